package documents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"golang.org/x/text/language"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/textin"
)

// Limits of the metadata fields.
const (
	maxNumberLen = 100
	// maxMetaBytes caps the meta object; it holds a few extra fields
	// (licence categories and the like), not documents.
	maxMetaBytes = 64 << 10
)

// MetadataFields are the document fields an upload or an update may set.
var MetadataFields = []string{"number", "country", "valid_from", "valid_until", "meta"}

// metadata is a document's editable fields as stored.
type metadata struct {
	Number     *string
	Country    *string
	ValidFrom  *civil.Date
	ValidUntil *civil.Date
	Meta       json.RawMessage
}

// opt is one field of a change: Set says the request gave it, a nil Value
// clears it.
type opt[T any] struct {
	Set   bool
	Value *T
}

func setTo[T any](v *T) opt[T] { return opt[T]{Set: true, Value: v} }

// change is a validated set of metadata changes.
type change struct {
	Number     opt[string]
	Country    opt[string]
	ValidFrom  opt[civil.Date]
	ValidUntil opt[civil.Date]
	Meta       opt[json.RawMessage]
	// replace: an upload's number, valid_from and valid_until are the new
	// version's own, so those it does not give are cleared (the part
	// details=replace; docs/drivers-and-documents.md, "Upload").
	replace bool
}

// Values of an upload's details part.
const (
	DetailsKeep    = "keep"
	DetailsReplace = "replace"
)

// replaced is c with the version fields an upload with details=replace
// left out cleared.
func (c change) replaced() change {
	if !c.replace {
		return c
	}
	if !c.Number.Set {
		c.Number = setTo[string](nil)
	}
	if !c.ValidFrom.Set {
		c.ValidFrom = setTo[civil.Date](nil)
	}
	if !c.ValidUntil.Set {
		c.ValidUntil = setTo[civil.Date](nil)
	}
	return c
}

// apply returns m with the changes of c.
func (m metadata) apply(c change) metadata {
	if c.Number.Set {
		m.Number = c.Number.Value
	}
	if c.Country.Set {
		m.Country = c.Country.Value
	}
	if c.ValidFrom.Set {
		m.ValidFrom = c.ValidFrom.Value
	}
	if c.ValidUntil.Set {
		m.ValidUntil = c.ValidUntil.Value
	}
	if c.Meta.Set {
		m.Meta = json.RawMessage(`{}`)
		if c.Meta.Value != nil {
			m.Meta = *c.Meta.Value
		}
	}
	return m
}

// check validates the merged result: rules that involve more than one field
// and so need the stored values too.
func (m metadata) check() error {
	if m.ValidFrom != nil && m.ValidUntil != nil && m.ValidUntil.Before(*m.ValidFrom) {
		return apperr.Invalid("valid_until", "msg.documents.until_before_from")
	}
	return nil
}

// checkExpiry refuses a valid_until sent for a document of a type without
// an expiry (a custom type with has_expiry false, a registration
// certificate), from either front: the upload and the metadata update. Clearing it
// is allowed, and a date stored before the type lost its expiry stays until
// someone clears it (docs/drivers-and-documents.md, "Custom document
// types").
func checkExpiry(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, docType string, c change) error {
	if !c.ValidUntil.Set || c.ValidUntil.Value == nil {
		return nil
	}
	if slices.Contains(noExpiryTypes, docType) {
		return apperr.Invalid("valid_until", "msg.documents.no_expiry")
	}
	if IsBuiltIn(docType) {
		return nil
	}
	noExpiry, err := WithoutExpiry(ctx, db, companyID)
	if err != nil {
		return err
	}
	if noExpiry[docType] {
		return apperr.Invalid("valid_until", "msg.documents.no_expiry")
	}
	return nil
}

// WithoutExpiry returns the company's custom types that have no expiry
// (has_expiry false): the driver import refuses a valid_until for them, as
// an upload and an update do (checkExpiry).
func WithoutExpiry(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (map[string]bool, error) {
	rows, err := db.Query(ctx, `SELECT code FROM document_types WHERE company_id = $1 AND NOT has_expiry`, companyID)
	if err != nil {
		return nil, fmt.Errorf("document types without expiry of company %s: %w", companyID, err)
	}
	codes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("document types without expiry of company %s: %w", companyID, err)
	}
	out := make(map[string]bool, len(codes))
	for _, c := range codes {
		out[c] = true
	}
	return out, nil
}

// auditValues are the fields compared for the audit row; status is
// included so the row shows e.g. no_data becoming valid.
func (m metadata) auditValues(hasFile bool, today civil.Date) map[string]any {
	var meta any = map[string]any{}
	if len(m.Meta) > 0 {
		_ = json.Unmarshal(m.Meta, &meta)
	}
	return map[string]any{
		"number":      m.Number,
		"country":     m.Country,
		"valid_from":  m.ValidFrom,
		"valid_until": m.ValidUntil,
		"meta":        meta,
		"status":      Status(hasFile, m.ValidUntil, today),
	}
}

// The parsers below check one field each and add their message to v. The
// multipart form of a field is its text; the JSON form is its raw value.

func parseNumber(v *apperr.Validation, s string) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, textin.IsControl) {
		v.Add("number", "msg.documents.number_chars")
		return nil
	}
	if utf8.RuneCountInString(s) > maxNumberLen {
		v.Add("number", "msg.common.too_long", "field", fieldName("number"), "max", maxNumberLen)
		return nil
	}
	return &s
}

func parseCountry(v *apperr.Validation, s string) *string {
	s = strings.ToUpper(strings.TrimSpace(s))
	if s == "" {
		return nil
	}
	if !IsCountryCode(s) {
		v.Add("country", "msg.documents.country")
		return nil
	}
	return &s
}

// IsCountryCode reports whether s is an upper-case ISO 3166-1 alpha-2 code
// of a country (not of a grouping such as EU, nor a private-use code).
func IsCountryCode(s string) bool {
	if len(s) != 2 || strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
		return false
	}
	r, err := language.ParseRegion(s)
	return err == nil && r.IsCountry() && r.String() == s
}

func parseDate(v *apperr.Validation, field, s string) *civil.Date {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	d, err := civil.Parse(s)
	if err != nil {
		v.Add(field, "msg.common.date_iso", "field", fieldName(field))
		return nil
	}
	return &d
}

func parseMeta(v *apperr.Validation, raw []byte) *json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) > maxMetaBytes {
		v.Add("meta", "msg.documents.meta_too_large")
		return nil
	}
	var obj map[string]any
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		v.Add("meta", "msg.documents.meta_object")
		return nil
	}
	// Stored re-encoded, so the text kept is known-good JSON.
	clean, err := json.Marshal(obj)
	if err != nil {
		v.Add("meta", "msg.documents.meta_object")
		return nil
	}
	m := json.RawMessage(clean)
	return &m
}

// setFormField records a multipart text field. An empty value leaves the
// field unchanged: browsers send every input of a form, also the ones left
// blank, and a blank input must not wipe a stored value (PUT clears).
func (c *change) setFormField(v *apperr.Validation, name, value string) {
	if strings.TrimSpace(value) == "" {
		return
	}
	switch name {
	case "number":
		c.Number = setIfValid(parseNumber(v, value))
	case "country":
		c.Country = setIfValid(parseCountry(v, value))
	case "valid_from":
		c.ValidFrom = setIfValid(parseDate(v, name, value))
	case "valid_until":
		c.ValidUntil = setIfValid(parseDate(v, name, value))
	case "meta":
		c.Meta = setIfValid(parseMeta(v, []byte(value)))
	case "details":
		switch strings.TrimSpace(value) {
		case DetailsKeep:
		case DetailsReplace:
			c.replace = true
		default:
			v.Add("details", "msg.documents.details")
		}
	}
}

// setIfValid marks a parsed value as set; nil (the field failed its check,
// and the message is recorded) leaves it unset.
func setIfValid[T any](p *T) opt[T] {
	if p == nil {
		return opt[T]{}
	}
	return setTo(p)
}

// parseJSONChange reads the body of PUT /documents/{id}: absent fields stay
// unchanged, null (or an empty string) clears a field, meta null resets it
// to {}. Unknown fields are ignored.
func parseJSONChange(body map[string]json.RawMessage) (change, error) {
	var c change
	var v apperr.Validation
	str := func(name string) (string, bool, bool) { // value, present, null
		raw, ok := body[name]
		if !ok {
			return "", false, false
		}
		if isNull(raw) {
			return "", true, true
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			v.Add(name, "msg.common.not_string", "field", fieldName(name))
			return "", false, false
		}
		return s, true, strings.TrimSpace(s) == ""
	}
	if s, ok, null := str("number"); ok {
		if null {
			c.Number = setTo[string](nil)
		} else if p := parseNumber(&v, s); p != nil {
			c.Number = setTo(p)
		}
	}
	if s, ok, null := str("country"); ok {
		if null {
			c.Country = setTo[string](nil)
		} else if p := parseCountry(&v, s); p != nil {
			c.Country = setTo(p)
		}
	}
	for _, f := range []struct {
		name string
		dst  *opt[civil.Date]
	}{{"valid_from", &c.ValidFrom}, {"valid_until", &c.ValidUntil}} {
		if s, ok, null := str(f.name); ok {
			if null {
				*f.dst = setTo[civil.Date](nil)
			} else if p := parseDate(&v, f.name, s); p != nil {
				*f.dst = setTo(p)
			}
		}
	}
	if raw, ok := body["meta"]; ok {
		if isNull(raw) {
			c.Meta = setTo[json.RawMessage](nil)
		} else if p := parseMeta(&v, raw); p != nil {
			c.Meta = setTo(p)
		}
	}
	return c, v.Err()
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// fieldName is a document field's name as messages show it: the
// catalogue's "field.document.<name>" ("valid_until" → "end of validity").
func fieldName(name string) i18n.Message { return i18n.M("field.document." + name) }
