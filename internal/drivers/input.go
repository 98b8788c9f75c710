package drivers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/mail"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/phones"
	"github.com/konvoj/konvoj/internal/textin"
)

// Input is a create or update request as the client sent it: field name →
// raw JSON value. A missing key leaves the field as it is; null (or an empty
// string) clears an optional field. Unknown keys and the read-only fields of
// the driver object (id, internal_number, is_ready, …) are ignored, so a
// client may send back an object it read.
type Input struct {
	Fields map[string]json.RawMessage
}

// Set adds a field value (for callers that build an Input in Go, such as
// the web pages and tests).
func (in *Input) Set(field string, value any) error {
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("encode field %s: %w", field, err)
	}
	if in.Fields == nil {
		in.Fields = map[string]json.RawMessage{}
	}
	in.Fields[field] = raw
	return nil
}

// readOnlyFields are fields of the driver object that a request cannot set.
var readOnlyFields = map[string]bool{
	"id": true, "company_id": true, "internal_number": true, "is_ready": true,
	"documents": true, "documents_summary": true, "created_at": true, "updated_at": true,
}

// fieldSpec applies one request field to a driver record, adding a message
// to v when the value is not acceptable.
type fieldSpec func(d *Driver, f field, v *apperr.Validation)

// field is one request value with the names used in messages.
type field struct {
	name  string          // JSON name: "first_name"
	label i18n.Message    // the field's name in messages: "first name"
	raw   json.RawMessage // the value as sent
	facts Facts
}

// Facts are what a driver's values are judged against besides the request
// itself: today in the company's time zone (a birth date cannot be later)
// and the company's country, in which a phone number written without its
// international prefix is read (docs/drivers-and-documents.md).
type Facts struct {
	Today   civil.Date
	Country string
}

// FactsOf are the caller's company's facts.
func FactsOf(p auth.Principal) Facts { return Facts{Today: p.Today(), Country: p.CompanyCountry} }

// EarliestBirthYear is the first year a birth date may fall in.
const EarliestBirthYear = 1900

// fields are the writable fields with their rules. Lengths are the
// specification's (and the columns').
var fields = map[string]fieldSpec{
	"office_id":            uuidField(func(d *Driver) **uuid.UUID { return &d.OfficeID }),
	"first_name":           requiredString(100, func(d *Driver) *string { return &d.FirstName }),
	"last_name":            requiredString(100, func(d *Driver) *string { return &d.LastName }),
	"middle_name":          optionalString(100, func(d *Driver) **string { return &d.MiddleName }),
	"birth_date":           birthDateField,
	"citizenship":          countryField(func(d *Driver) **string { return &d.Citizenship }),
	"rodne_cislo":          optionalString(20, func(d *Driver) **string { return &d.RodneCislo }),
	"email":                emailField,
	"phone":                phoneField(50, func(d *Driver) **string { return &d.Phone }),
	"registration_address": optionalString(0, func(d *Driver) **string { return &d.RegistrationAddress }),
	"residence_address":    optionalString(0, func(d *Driver) **string { return &d.ResidenceAddress }),
	"status":               statusField,
	"hire_date":            dateField(func(d *Driver) **civil.Date { return &d.HireDate }),
	"fire_date":            dateField(func(d *Driver) **civil.Date { return &d.FireDate }),
	"contract_from":        dateField(func(d *Driver) **civil.Date { return &d.ContractFrom }),
	"contract_to":          dateField(func(d *Driver) **civil.Date { return &d.ContractTo }),
	"contract_indefinite":  contractIndefiniteField,
	"work_location":        optionalString(50, func(d *Driver) **string { return &d.WorkLocation }),
	"bank_country":         countryField(func(d *Driver) **string { return &d.BankCountry }),
	"bank_account":         optionalString(50, func(d *Driver) **string { return &d.BankAccount }),
	"iban":                 ibanField,
	"swift":                swiftField,
	"flags":                flagsField,
	"tags":                 tagsField,
	"language":             languageField,
}

// requiredOnCreate are the fields a create must carry (docs/drivers-and-documents.md).
var requiredOnCreate = []string{"first_name", "last_name", "email"}

// apply merges the request into d (the stored record on update, defaults on
// create) and validates the result: field rules for the fields sent, then
// the rules across fields on the merged record.
func (in Input) apply(d *Driver, creating bool, facts Facts, v *apperr.Validation) {
	if creating {
		for _, name := range requiredOnCreate {
			if _, ok := in.Fields[name]; !ok {
				v.Add(name, "msg.common.required", "field", label(name))
			}
		}
	}
	names := make([]string, 0, len(in.Fields))
	for name := range in.Fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if spec, ok := fields[name]; ok {
			spec(d, field{name: name, label: label(name), raw: in.Fields[name], facts: facts}, v)
		}
	}
	crossFieldRules(d, in.Fields, v)
}

// crossFieldRules checks the merged record, so an update that sends only one
// side of a pair is checked against the stored other side. The message goes
// to the field that was sent.
func crossFieldRules(d *Driver, sent map[string]json.RawMessage, v *apperr.Validation) {
	if d.ContractFrom != nil && d.ContractTo != nil && !d.ContractFrom.Before(*d.ContractTo) &&
		!v.Has("contract_from") && !v.Has("contract_to") {
		if _, ok := sent["contract_from"]; ok || !has(sent, "contract_to") {
			v.Add("contract_from", "msg.drivers.contract_from_after_to")
		} else {
			v.Add("contract_to", "msg.drivers.contract_to_before_from")
		}
	}
	if d.HireDate != nil && d.FireDate != nil && d.FireDate.Before(*d.HireDate) &&
		!v.Has("hire_date") && !v.Has("fire_date") {
		if _, ok := sent["fire_date"]; ok || !has(sent, "hire_date") {
			v.Add("fire_date", "msg.drivers.fire_before_hire")
		} else {
			v.Add("hire_date", "msg.drivers.hire_after_fire")
		}
	}
}

func has(m map[string]json.RawMessage, k string) bool { _, ok := m[k]; return ok }

// checkDriverFields enforces docs/permissions.md for a driver editing its own
// record: any driver field beyond phone, addresses and bank fields is 403
// Forbidden, never silently dropped.
func (in Input) checkDriverFields() error {
	var refused []string
	for name := range in.Fields {
		_, writable := fields[name]
		if (writable || readOnlyFields[name]) && !auth.DriverEditableFields[name] {
			refused = append(refused, name)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	sort.Strings(refused)
	return apperr.Forbiddenf("msg.drivers.self_edit_refused", "fields", strings.Join(refused, ", "))
}

// label is the field's name as messages show it: the catalogue's
// "field.<name>" ("first_name" → "first name"; a test checks every field has one).
func label(name string) i18n.Message { return i18n.M("field." + name) }

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

// stringValue decodes a JSON string (trimmed). ok is false, with a message
// added, when the value is not a string. null gives "", true.
func stringValue(f field, v *apperr.Validation) (string, bool) {
	if isNull(f.raw) {
		return "", true
	}
	var s string
	if err := json.Unmarshal(f.raw, &s); err != nil {
		v.Add(f.name, "msg.common.not_string", "field", f.label)
		return "", false
	}
	if nameFields[f.name] {
		s = textin.StripBidi(s)
	}
	return strings.TrimSpace(s), true
}

// nameFields are the driver's names: bidi control characters are removed
// from them (docs/security.md), so a name cannot reorder what surrounds it.
var nameFields = map[string]bool{"first_name": true, "last_name": true, "middle_name": true}

func tooLong(s string, max int) bool { return max > 0 && utf8.RuneCountInString(s) > max }

func requiredString(max int, ptr func(*Driver) *string) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			v.Add(f.name, "msg.common.required", "field", f.label)
		case tooLong(s, max):
			v.Add(f.name, "msg.common.too_long", "field", f.label, "max", max)
		default:
			*ptr(d) = s
		}
	}
}

// optionalString: null or "" clears the field; max 0 means no limit.
func optionalString(max int, ptr func(*Driver) **string) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(d) = nil
		case tooLong(s, max):
			v.Add(f.name, "msg.common.too_long", "field", f.label, "max", max)
		default:
			*ptr(d) = &s
		}
	}
}

func dateField(ptr func(*Driver) **civil.Date) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		if isNull(f.raw) {
			*ptr(d) = nil
			return
		}
		var s string
		if err := json.Unmarshal(f.raw, &s); err != nil {
			v.Add(f.name, "msg.common.not_date", "field", f.label)
			return
		}
		if s = strings.TrimSpace(s); s == "" {
			*ptr(d) = nil
			return
		}
		date, err := civil.Parse(s)
		if err != nil {
			v.Add(f.name, "msg.common.not_date", "field", f.label)
			return
		}
		*ptr(d) = &date
	}
}

// birthDateField is a date neither in the future nor before
// EarliestBirthYear.
func birthDateField(d *Driver, f field, v *apperr.Validation) {
	var date *civil.Date
	if dateField(func(*Driver) **civil.Date { return &date })(d, f, v); date == nil {
		if !v.Has(f.name) {
			d.BirthDate = nil
		}
		return
	}
	switch {
	case date.After(f.facts.Today):
		v.Add(f.name, "msg.common.date_future", "field", f.label)
	case date.Year() < EarliestBirthYear:
		v.Add(f.name, "msg.common.date_before", "field", f.label, "year", EarliestBirthYear)
	default:
		d.BirthDate = date
	}
}

// phoneField reads a phone number with phones.Normalize and stores it in
// E.164 when the numbering plans know it (docs/drivers-and-documents.md,
// "Phone numbers"); a number without its international prefix is read in
// the company's country.
func phoneField(max int, ptr func(*Driver) **string) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		if !ok {
			return
		}
		if s == "" {
			*ptr(d) = nil
			return
		}
		if tooLong(s, max) {
			v.Add(f.name, "msg.common.too_long", "field", f.label, "max", max)
			return
		}
		if e164, ok := phoneValue(v, f.name, f.label, s, f.facts.Country); ok {
			*ptr(d) = &e164
		}
	}
}

// phoneValue normalises a phone number written in text for the field name
// (label in messages): the stored form and true, or a message in v and
// false. A number without its international prefix is read in country
// (the company's).
func phoneValue(v *apperr.Validation, name string, label i18n.Message, text, country string) (string, bool) {
	e164, problem := phones.Normalize(text, country)
	switch problem {
	case phones.OK:
		return e164, true
	default:
		v.Add(name, "msg.common.phone", "field", label, "value", text)
	}
	return "", false
}

// countryField accepts an ISO 3166-1 alpha-2 code in any case and stores it
// upper case (the schema's CHECK).
func countryField(ptr func(*Driver) **string) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(d) = nil
		default:
			code := countries.Normalize(s)
			if !countries.Valid(code) {
				v.Add(f.name, "msg.common.country", "field", f.label)
				return
			}
			*ptr(d) = &code
		}
	}
}

func uuidField(ptr func(*Driver) **uuid.UUID) fieldSpec {
	return func(d *Driver, f field, v *apperr.Validation) {
		s, ok := stringValue(f, v)
		switch {
		case !ok:
		case s == "":
			*ptr(d) = nil
		default:
			id, err := uuid.Parse(s)
			if err != nil {
				v.Add(f.name, "msg.common.uuid", "field", f.label)
				return
			}
			*ptr(d) = &id
		}
	}
}

func emailField(d *Driver, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.name, "msg.common.required", "field", f.label)
	case tooLong(s, 255):
		v.Add(f.name, "msg.common.too_long", "field", f.label, "max", 255)
	case !validEmail(s):
		v.Add(f.name, "msg.common.email")
	default:
		d.Email = s
	}
}

// validEmail accepts a bare address (no display name) whose domain has a
// dot: "jan@firma" is far more often a typo than a real mailbox here.
func validEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	domain := s[at+1:]
	return at > 0 && strings.Contains(domain, ".") && !strings.HasPrefix(domain, ".") &&
		!strings.HasSuffix(domain, ".") && !strings.Contains(domain, "..")
}

func statusField(d *Driver, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		v.Add(f.name, "msg.common.required", "field", f.label)
	case !slices.Contains(Statuses, s):
		v.Add(f.name, "msg.drivers.status")
	default:
		d.Status = s
	}
}

func contractIndefiniteField(d *Driver, f field, v *apperr.Validation) {
	var b bool
	if isNull(f.raw) || json.Unmarshal(f.raw, &b) != nil {
		v.Add(f.name, "msg.drivers.contract_indefinite")
		return
	}
	d.ContractIndefinite = b
}

// ibanField stores the IBAN without spaces, upper case, after its mod-97
// checksum passed.
func ibanField(d *Driver, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	if !ok {
		return
	}
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	switch {
	case s == "":
		d.IBAN = nil
	case !ValidIBAN(s):
		v.Add(f.name, "msg.drivers.iban")
	default:
		d.IBAN = &s
	}
}

var bicPattern = regexp.MustCompile(`^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$`)

// swiftField stores a BIC (8 or 11 characters) upper case.
func swiftField(d *Driver, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	if !ok {
		return
	}
	s = strings.ToUpper(strings.Join(strings.Fields(s), ""))
	switch {
	case s == "":
		d.SWIFT = nil
	case !bicPattern.MatchString(s) || !countries.Valid(s[4:6]):
		v.Add(f.name, "msg.drivers.swift")
	default:
		d.SWIFT = &s
	}
}

// knownFlags are the flags with a defined meaning (booleans); other keys are
// kept as sent.
var knownFlags = []string{"pas_souhlas", "propiska_cz"}

// flagsField replaces the flags object as a whole (null clears it to {}).
func flagsField(d *Driver, f field, v *apperr.Validation) {
	if isNull(f.raw) {
		d.Flags = json.RawMessage(`{}`)
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(f.raw, &m); err != nil || m == nil {
		v.Add(f.name, "msg.drivers.flags")
		return
	}
	bad := false
	for _, k := range knownFlags {
		var b bool
		if raw, ok := m[k]; ok && json.Unmarshal(raw, &b) != nil {
			v.Add("flags."+k, "msg.drivers.flag", "flag", k)
			bad = true
		}
	}
	if bad {
		return
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, f.raw); err != nil {
		v.Add(f.name, "msg.drivers.flags")
		return
	}
	d.Flags = buf.Bytes()
}

// ValidIBAN checks an IBAN written without spaces, upper case: country code,
// two check digits, 11-30 letters or digits, and the ISO 13616 mod-97
// checksum.
func ValidIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 || !countries.Valid(s[:2]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	rem := 0
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			rem = (rem*10 + int(r-'0')) % 97
		case r >= 'A' && r <= 'Z':
			rem = (rem*100 + int(r-'A'+10)) % 97
		default:
			return false
		}
	}
	return rem == 1
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// MaxTags and MaxTagLength bound a driver's tags (docs/drivers-and-documents.md).
const (
	MaxTags      = 20
	MaxTagLength = 40
)

// tagPattern is a tag: lower-case letters, digits, _ and -, the form a
// document rule's required_for tag:<tag> names (and the schema's CHECK).
var tagPattern = regexp.MustCompile(`^[a-z0-9_-]{1,40}$`)

// Languages are the languages a driver may have (null: the company's).
var Languages = []string{"cs", "en", "pl", "uk", "ro"}

// tagsField replaces the tags as a whole: an array of strings (null or []
// clears them), each trimmed and lower-cased, repeats dropped; more than
// MaxTags, or a tag that is empty, longer than MaxTagLength or has other
// characters than letters, digits, _ and -, is refused.
func tagsField(d *Driver, f field, v *apperr.Validation) {
	if isNull(f.raw) {
		d.Tags = []string{}
		return
	}
	var raw []string
	if err := json.Unmarshal(f.raw, &raw); err != nil {
		v.Add(f.name, "msg.drivers.tags")
		return
	}
	tags := []string{}
	for i, t := range raw {
		t = strings.ToLower(strings.TrimSpace(t))
		if !tagPattern.MatchString(t) {
			v.Add(fmt.Sprintf("tags.%d", i), "msg.drivers.tag", "max", MaxTagLength)
			return
		}
		if !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	if len(tags) > MaxTags {
		v.Add(f.name, "msg.drivers.too_many_tags", "max", MaxTags)
		return
	}
	d.Tags = tags
}

// ParseTags splits a comma-separated text into tags (the pages' form).
func ParseTags(s string) []string {
	out := []string{}
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// languageField sets the driver's language: one of Languages, or null or
// "" for the company's.
func languageField(d *Driver, f field, v *apperr.Validation) {
	s, ok := stringValue(f, v)
	switch {
	case !ok:
	case s == "":
		d.Language = nil
	case !slices.Contains(Languages, strings.ToLower(s)):
		v.Add(f.name, "msg.drivers.language", "allowed", strings.Join(Languages, ", "))
	default:
		s = strings.ToLower(s)
		d.Language = &s
	}
}

// tagsValue is the tags as stored: never NULL.
func tagsValue(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}
