package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/textin"
	"github.com/konvoj/konvoj/internal/units"
)

// DocumentType is a document type as GET /companies/{id}/document-types
// lists it (docs/drivers-and-documents.md, "Custom document types"): the 14
// built-in types (built_in true, names from the catalogues) and the
// company's own. LeadDays is the type's rule's (the document rules hold
// it, for built-in and custom types alike).
type DocumentType struct {
	Code string `json:"code"`
	// HolderType is whose documents the type is for: driver (the
	// default), vehicle or trailer (docs/fleet.md).
	HolderType string            `json:"holder_type"`
	Names      map[string]string `json:"names"`
	HasExpiry  bool              `json:"has_expiry"`
	LeadDays   int               `json:"lead_days"`
	CappedBy   *string           `json:"capped_by"`
	Retired    bool              `json:"retired"`
	BuiltIn    bool              `json:"built_in"`
}

// TypeInput is the body of POST and PUT .../document-types: raw values,
// so that validation can name the wrong field; PUT may send only the
// fields it changes.
type TypeInput struct {
	Code json.RawMessage `json:"code"`
	// HolderType is set at create only (default driver); an update may
	// repeat it unchanged.
	HolderType json.RawMessage `json:"holder_type"`
	Names      json.RawMessage `json:"names"`
	HasExpiry  json.RawMessage `json:"has_expiry"`
	LeadDays   json.RawMessage `json:"lead_days"`
	CappedBy   json.RawMessage `json:"capped_by"`
	Retired    json.RawMessage `json:"retired"`
}

// typeCode is the form of a custom type's code.
var typeCode = regexp.MustCompile(`^[a-z0-9_]{1,40}$`)

// MaxTypeNameLength is the longest name of a custom type.
const MaxTypeNameLength = 100

// builtinCaps are the built-in validity chains: a work permit counts only
// while the residence permit (or, without one, the biometric visa) does.
var builtinCaps = map[string]string{"work_permit": "residence_permit"}

// ValidTypeCode reports whether code has the form of a type code (lower-case
// letters, digits and _, up to 40).
func ValidTypeCode(code string) bool { return typeCode.MatchString(code) }

// IsBuiltIn reports whether code is a built-in type of any holder type
// (the drivers' 14, the vehicles' and the trailers'): no custom type may
// take one.
func IsBuiltIn(code string) bool {
	return slices.Contains(Types, code) || slices.Contains(VehicleTypes, code) || slices.Contains(TrailerTypes, code)
}

// TypeNames names a company's document types in a language: the built-in
// types by the catalogues (doc.type.<code>), the custom ones by their
// names, in the reader's language, else English, else Czech, else any,
// else the code.
type TypeNames map[string]map[string]string

// Name is the type's name in l.
func (n TypeNames) Name(l i18n.Lang, code string) string {
	names, ok := n[code]
	if !ok {
		if IsBuiltIn(code) {
			return l.T("doc.type." + code)
		}
		return code
	}
	for _, lang := range []string{string(l), string(i18n.EN), string(i18n.CS)} {
		if s := names[lang]; s != "" {
			return s
		}
	}
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if names[k] != "" {
			return names[k]
		}
	}
	return code
}

// LoadTypeNames returns the names of the company's custom types (retired
// ones too: their records can still be read). It checks nothing: callers
// hold the company already.
func LoadTypeNames(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (TypeNames, error) {
	rows, err := db.Query(ctx, `SELECT code, names FROM document_types WHERE company_id = $1`, companyID)
	if err != nil {
		return nil, fmt.Errorf("document type names of company %s: %w", companyID, err)
	}
	out := TypeNames{}
	for rows.Next() {
		var code string
		var names map[string]string
		if err := rows.Scan(&code, &names); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan document type names: %w", err)
		}
		out[code] = names
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("document type names of company %s: %w", companyID, err)
	}
	return out, nil
}

// TypeNames returns the names of the caller's company's custom types: every
// role sees document names wherever a document is shown.
func (s *Service) TypeNames(ctx context.Context, p auth.Principal) (TypeNames, error) {
	return LoadTypeNames(ctx, s.db, p.CompanyID)
}

type typeNamesKey struct{}

// WithTypeNames puts the company's type names into the context, for the
// views.
func WithTypeNames(ctx context.Context, n TypeNames) context.Context {
	return context.WithValue(ctx, typeNamesKey{}, n)
}

// TypeNamesFrom is the context's type names (none: the built-in names
// only).
func TypeNamesFrom(ctx context.Context) TypeNames {
	n, _ := ctx.Value(typeNamesKey{}).(TypeNames)
	return n
}

// customType is a stored row of document_types.
type customType struct {
	HolderType string
	Code       string
	Names      map[string]string
	HasExpiry  bool
	CappedBy   *string
	Retired    bool
}

// loadCustomTypes returns the company's custom types of every holder type
// (codes are unique in the company); ofHolder keeps one holder type's.
func loadCustomTypes(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) ([]customType, error) {
	rows, err := db.Query(ctx, `SELECT holder_type, code, names, has_expiry, capped_by, retired FROM document_types
		WHERE company_id = $1 ORDER BY seq`, companyID)
	if err != nil {
		return nil, fmt.Errorf("document types of company %s: %w", companyID, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, t *customType) error {
		return row.Scan(&t.HolderType, &t.Code, &t.Names, &t.HasExpiry, &t.CappedBy, &t.Retired)
	})
	if err != nil {
		return nil, fmt.Errorf("document types of company %s: %w", companyID, err)
	}
	return out, nil
}

// DocumentTypes lists the company's document types: the built-in ones in
// their order, then the custom ones, oldest first (retired ones too,
// marked).
func (s *Service) DocumentTypes(ctx context.Context, p auth.Principal, companyID uuid.UUID) ([]DocumentType, error) {
	return s.HolderDocumentTypes(ctx, p, companyID, HolderDriver)
}

// HolderDocumentTypes is DocumentTypes for the documents of a holder type
// (driver, vehicle, trailer; another is 422 after the company's checks):
// its built-in types and the company's custom types for it.
func (s *Service) HolderDocumentTypes(ctx context.Context, p auth.Principal, companyID uuid.UUID, holderType string) ([]DocumentType, error) {
	if err := companyOf(ctx, s.db, p, auth.DocumentRules, companyID); err != nil {
		return nil, err
	}
	if err := checkHolderType(holderType); err != nil {
		return nil, err
	}
	return listTypes(ctx, s.db, companyID, holderType)
}

// ofHolder keeps the custom types of a holder type.
func ofHolder(types []customType, holderType string) []customType {
	var out []customType
	for _, t := range types {
		if t.HolderType == holderType {
			out = append(out, t)
		}
	}
	return out
}

func listTypes(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, holderType string) ([]DocumentType, error) {
	all, err := loadCustomTypes(ctx, db, companyID)
	if err != nil {
		return nil, err
	}
	custom := ofHolder(all, holderType)
	rules, err := LoadHolderRules(ctx, db, companyID, holderType)
	if err != nil {
		return nil, err
	}
	lead := map[string]int{}
	for _, r := range rules {
		lead[r.DocumentType] = r.LeadDays
	}
	builtIn := BuiltInTypes(holderType)
	out := make([]DocumentType, 0, len(builtIn)+len(custom))
	for _, code := range builtIn {
		names := map[string]string{}
		for _, l := range i18n.Langs {
			names[string(l)] = l.T("doc.type." + code)
		}
		t := DocumentType{Code: code, HolderType: holderType, Names: names, HasExpiry: !slices.Contains(noExpiryTypes, code),
			LeadDays: lead[code], BuiltIn: true}
		if c, ok := builtinCaps[code]; ok && holderType == HolderDriver {
			t.CappedBy = &c
		}
		out = append(out, t)
	}
	for _, c := range custom {
		ld, ok := lead[c.Code]
		if !ok {
			ld = storedLeadDays(ctx, db, companyID, c.Code)
		}
		out = append(out, DocumentType{Code: c.Code, HolderType: c.HolderType, Names: c.Names, HasExpiry: c.HasExpiry, LeadDays: ld, CappedBy: c.CappedBy, Retired: c.Retired})
	}
	return out, nil
}

// storedLeadDays is a retired type's lead days (retired types have no rule
// in konvoj_document_rules; their row in document_rules stays).
func storedLeadDays(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, code string) int {
	var n int
	if err := db.QueryRow(ctx, `SELECT lead_days FROM document_rules WHERE company_id = $1 AND document_type = $2
		AND holder_type = (SELECT t.holder_type FROM document_types t WHERE t.company_id = $1 AND t.code = $2)`, companyID, code).Scan(&n); err != nil {
		return defaultLeadDays
	}
	return n
}

// codeFromNames makes a new custom type's code from its name when the
// request gives none (docs/drivers-and-documents.md, "Custom document
// types"): the English name, else the Czech, else the first other one, in
// lower-case ASCII letters and digits joined by "_" ("Školení řidiče" →
// "skoleni_ridice"), cut to fit 40 characters; "_2", "_3" … is added when
// a built-in or another custom type of the company has it already.
func codeFromNames(names map[string]string, existing []customType) string {
	name := ""
	for _, l := range []string{"en", "cs", "pl", "ro", "uk"} {
		if names[l] != "" {
			name = names[l]
			break
		}
	}
	base := strings.ToLower(strings.ReplaceAll(export.FileName(name), "-", "_"))
	if base == "" {
		base = "type"
	}
	taken := func(code string) bool {
		return IsBuiltIn(code) || slices.ContainsFunc(existing, func(c customType) bool { return c.Code == code })
	}
	for n := 1; ; n++ {
		suffix := ""
		if n > 1 {
			suffix = fmt.Sprintf("_%d", n)
		}
		code := base
		if len(code)+len(suffix) > 40 {
			code = strings.TrimRight(code[:40-len(suffix)], "_")
		}
		code += suffix
		if !taken(code) {
			return code
		}
	}
}

// defaultLeadDays are a new custom type's lead days.
const defaultLeadDays = 30

// CreateType adds a custom document type and gives every driver of the
// company (deleted ones too, so that a restore finds it) an empty record
// of it, all in one transaction with its audit row. A code taken by a
// built-in or another custom type is 409 DuplicateEntry. read fills the
// input once the company is checked.
func (s *Service) CreateType(ctx context.Context, p auth.Principal, companyID uuid.UUID, read func(*TypeInput) error) (DocumentType, error) {
	if err := companyOf(ctx, s.db, p, auth.DocumentRules, companyID); err != nil {
		return DocumentType{}, err
	}
	var in TypeInput
	if err := read(&in); err != nil {
		return DocumentType{}, err
	}
	var out DocumentType
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		// Serializes with driver creates (which take the same row lock for
		// their number), so no driver misses the new type's record.
		if _, err := tx.Exec(ctx, `SELECT 1 FROM companies WHERE id = $1 FOR UPDATE`, companyID); err != nil {
			return fmt.Errorf("lock company %s: %w", companyID, err)
		}
		existing, err := loadCustomTypes(ctx, tx, companyID)
		if err != nil {
			return err
		}
		t := customType{HolderType: HolderDriver, HasExpiry: true}
		lead := defaultLeadDays
		var v apperr.Validation
		if !absent(in.HolderType) {
			if json.Unmarshal(in.HolderType, &t.HolderType) != nil || !slices.Contains(HolderTypes, t.HolderType) {
				v.Add("holder_type", "msg.list.holder_type")
			}
		}
		generated := absent(in.Code)
		if !generated {
			if err := json.Unmarshal(in.Code, &t.Code); err != nil || !typeCode.MatchString(t.Code) {
				v.Add("code", "msg.document_types.code", "max", 40)
			}
		}
		applyTypeInput(&v, in, &t, &lead, true)
		if generated && !v.Has("names") {
			t.Code = codeFromNames(t.Names, existing)
		}
		if !v.Has("code") && !v.Has("capped_by") && !v.Has("holder_type") {
			checkCap(&v, ofHolder(existing, t.HolderType), t)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if IsBuiltIn(t.Code) || slices.ContainsFunc(existing, func(c customType) bool { return c.Code == t.Code }) {
			return apperr.Duplicate("msg.document_types.code_taken", "code", t.Code)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO document_types (company_id, code, names, has_expiry, capped_by, retired, holder_type)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, companyID, t.Code, t.Names, t.HasExpiry, t.CappedBy, t.Retired, t.HolderType); err != nil {
			if postgres.IsUniqueViolation(err, "document_types_pkey") {
				return apperr.Duplicate("msg.document_types.code_taken", "code", t.Code)
			}
			return fmt.Errorf("insert document type %s: %w", t.Code, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO document_rules (company_id, document_type, required, lead_days, holder_type)
			VALUES ($1, $2, false, $3, $4)
			ON CONFLICT (company_id, holder_type, document_type) DO UPDATE SET lead_days = EXCLUDED.lead_days, updated_at = now()`,
			companyID, t.Code, lead, t.HolderType); err != nil {
			return fmt.Errorf("store lead days of document type %s: %w", t.Code, err)
		}
		if err := createTypeRecords(ctx, tx, companyID, t); err != nil {
			return err
		}
		out = DocumentType{Code: t.Code, HolderType: t.HolderType, Names: t.Names, HasExpiry: t.HasExpiry, LeadDays: lead, CappedBy: t.CappedBy, Retired: t.Retired}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "document_type", EntityID: companyID, Action: "created",
			NewValues: typeValues(out)})
	})
	if err != nil {
		return DocumentType{}, err
	}
	return out, nil
}

// UpdateType changes a custom type (only the fields sent); retired true
// hides it from every list and rule, its records and files stay. A
// built-in type cannot be changed here (409; its lead days are a document
// rule). An unknown code is 404. read fills the input once the company
// is checked.
func (s *Service) UpdateType(ctx context.Context, p auth.Principal, companyID uuid.UUID, code string, read func(*TypeInput) error) (DocumentType, error) {
	if err := companyOf(ctx, s.db, p, auth.DocumentRules, companyID); err != nil {
		return DocumentType{}, err
	}
	var in TypeInput
	if err := read(&in); err != nil {
		return DocumentType{}, err
	}
	if IsBuiltIn(code) {
		return DocumentType{}, apperr.Conflict("msg.document_types.built_in", "code", code)
	}
	var out DocumentType
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM companies WHERE id = $1 FOR UPDATE`, companyID); err != nil {
			return fmt.Errorf("lock company %s: %w", companyID, err)
		}
		existing, err := loadCustomTypes(ctx, tx, companyID)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(existing, func(c customType) bool { return c.Code == code })
		if i < 0 {
			return apperr.NotFound("msg.document_types.not_found")
		}
		before := existing[i]
		t := before
		lead := storedLeadDays(ctx, tx, companyID, code)
		leadBefore := lead
		var v apperr.Validation
		if !absent(in.Code) {
			var sent string
			if err := json.Unmarshal(in.Code, &sent); err != nil || sent != code {
				v.Add("code", "msg.document_types.code_fixed")
			}
		}
		if !absent(in.HolderType) {
			var sent string
			if err := json.Unmarshal(in.HolderType, &sent); err != nil || sent != t.HolderType {
				v.Add("holder_type", "msg.document_types.holder_type_fixed")
			}
		}
		applyTypeInput(&v, in, &t, &lead, false)
		if !v.Has("capped_by") {
			checkCap(&v, ofHolder(existing, t.HolderType), t)
		}
		if err := v.Err(); err != nil {
			return err
		}
		oldDT := DocumentType{Code: code, HolderType: t.HolderType, Names: before.Names, HasExpiry: before.HasExpiry, LeadDays: leadBefore, CappedBy: before.CappedBy, Retired: before.Retired}
		out = DocumentType{Code: code, HolderType: t.HolderType, Names: t.Names, HasExpiry: t.HasExpiry, LeadDays: lead, CappedBy: t.CappedBy, Retired: t.Retired}
		oldV, newV := audit.Diff(typeValues(oldDT), typeValues(out))
		if len(newV) == 0 {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE document_types SET names = $3, has_expiry = $4, capped_by = $5, retired = $6, updated_at = now()
			WHERE company_id = $1 AND code = $2`, companyID, code, t.Names, t.HasExpiry, t.CappedBy, t.Retired); err != nil {
			return fmt.Errorf("update document type %s: %w", code, err)
		}
		if lead != leadBefore {
			if _, err := tx.Exec(ctx, `INSERT INTO document_rules (company_id, document_type, required, lead_days, holder_type)
				VALUES ($1, $2, false, $3, $4)
				ON CONFLICT (company_id, holder_type, document_type) DO UPDATE SET lead_days = EXCLUDED.lead_days, updated_at = now()`,
				companyID, code, lead, t.HolderType); err != nil {
				return fmt.Errorf("store lead days of document type %s: %w", code, err)
			}
		}
		oldV["code"], newV["code"] = code, code
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "document_type", EntityID: companyID, Action: "updated",
			OldValues: oldV, NewValues: newV}); err != nil {
			return err
		}
		// A type retired or back may change transport units' readiness.
		return units.Flush(ctx, tx, companyID)
	})
	if err != nil {
		return DocumentType{}, err
	}
	return out, nil
}

// applyTypeInput validates and applies the fields other than code. On a
// create, names are required.
func applyTypeInput(v *apperr.Validation, in TypeInput, t *customType, lead *int, create bool) {
	switch {
	case absent(in.Names):
		if create || len(in.Names) > 0 {
			v.Add("names", "msg.document_types.names_required")
		}
	default:
		var raw map[string]any
		if err := json.Unmarshal(in.Names, &raw); err != nil {
			v.Add("names", "msg.document_types.names_required")
			break
		}
		names := map[string]string{}
		for lang, val := range raw {
			field := "names." + lang
			if l, ok := i18n.Parse(lang); !ok || string(l) != lang {
				v.Add(field, "msg.document_types.name_language", "allowed", langCodes())
				continue
			}
			s, ok := val.(string)
			if !ok {
				v.Add(field, "msg.document_types.name", "max", MaxTypeNameLength)
				continue
			}
			if textin.Bad(s) {
				v.Add(field, "msg.common.text_invalid", "field", i18n.M("field.document_type.name"))
				continue
			}
			s = strings.TrimSpace(textin.StripBidi(s))
			if utf8.RuneCountInString(s) > MaxTypeNameLength {
				v.Add(field, "msg.document_types.name", "max", MaxTypeNameLength)
				continue
			}
			if s != "" {
				names[lang] = s
			}
		}
		if len(names) == 0 && !v.Has("names") {
			v.Add("names", "msg.document_types.names_required")
		}
		t.Names = names
	}
	if len(in.HasExpiry) > 0 {
		if absent(in.HasExpiry) || json.Unmarshal(in.HasExpiry, &t.HasExpiry) != nil {
			v.Add("has_expiry", "msg.document_rules.boolean")
		}
	}
	if len(in.Retired) > 0 {
		if absent(in.Retired) || json.Unmarshal(in.Retired, &t.Retired) != nil {
			v.Add("retired", "msg.document_rules.boolean")
		}
	}
	if len(in.LeadDays) > 0 {
		var n int
		if absent(in.LeadDays) || json.Unmarshal(in.LeadDays, &n) != nil || n < 0 || n > MaxLeadDays {
			v.Add("lead_days", "msg.document_rules.lead_days", "max", MaxLeadDays)
		} else {
			*lead = n
		}
	}
	if len(in.CappedBy) > 0 {
		if absent(in.CappedBy) {
			t.CappedBy = nil
		} else {
			var c string
			if json.Unmarshal(in.CappedBy, &c) != nil || !typeCode.MatchString(c) {
				v.Add("capped_by", "msg.document_types.capped_by_unknown")
			} else {
				t.CappedBy = &c
			}
		}
	}
}

func langCodes() []string {
	out := make([]string, len(i18n.Langs))
	for i, l := range i18n.Langs {
		out[i] = string(l)
	}
	return out
}

// checkCap checks t's capped_by: a built-in or live custom type of the
// company of t's holder type (existing holds that holder type's custom
// types), not t itself, and no chain that comes back to t.
func checkCap(v *apperr.Validation, existing []customType, t customType) {
	if t.CappedBy == nil {
		return
	}
	capOf := map[string]string{}
	if t.HolderType == HolderDriver {
		for k, c := range builtinCaps {
			capOf[k] = c
		}
	}
	live := map[string]bool{}
	for _, c := range existing {
		if c.Retired || c.Code == t.Code {
			continue
		}
		live[c.Code] = true
		if c.CappedBy != nil {
			capOf[c.Code] = *c.CappedBy
		}
	}
	target := *t.CappedBy
	if !slices.Contains(BuiltInTypes(t.HolderType), target) && !live[target] {
		if target == t.Code {
			v.Add("capped_by", "msg.document_types.cap_cycle", "code", t.Code)
			return
		}
		v.Add("capped_by", "msg.document_types.capped_by_unknown")
		return
	}
	capOf[t.Code] = target
	seen := map[string]bool{t.Code: true}
	for at := target; at != ""; at = capOf[at] {
		if seen[at] {
			v.Add("capped_by", "msg.document_types.cap_cycle", "code", t.Code)
			return
		}
		seen[at] = true
	}
}

func typeValues(t DocumentType) map[string]any {
	var capped any
	if t.CappedBy != nil {
		capped = *t.CappedBy
	}
	names := map[string]any{}
	for k, v := range t.Names {
		names[k] = v
	}
	out := map[string]any{"names": names, "has_expiry": t.HasExpiry, "lead_days": t.LeadDays, "capped_by": capped, "retired": t.Retired}
	if t.HolderType != HolderDriver && t.HolderType != "" {
		out["holder_type"] = t.HolderType
	}
	return out
}

// customTypeCodes returns the codes of the company's custom types for
// drivers (retired ones too), for a new driver's records.
func customTypeCodes(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) ([]string, error) {
	rows, err := db.Query(ctx, `SELECT code FROM document_types WHERE company_id = $1 AND holder_type = 'driver' ORDER BY seq`, companyID)
	if err != nil {
		return nil, fmt.Errorf("document types of company %s: %w", companyID, err)
	}
	codes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("document types of company %s: %w", companyID, err)
	}
	return codes, nil
}

// LiveTypes returns the codes of the company's document types in use: the
// 14 built-in types in their order, then the live custom types, oldest
// first; and the custom types' names. The driver import reads a number and
// a valid_until column of each, and its template writes them.
func LiveTypes(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) ([]string, TypeNames, error) {
	custom, err := loadCustomTypes(ctx, db, companyID)
	if err != nil {
		return nil, nil, err
	}
	codes, names := slices.Clone(Types), TypeNames{}
	for _, t := range ofHolder(custom, HolderDriver) {
		if !t.Retired {
			codes = append(codes, t.Code)
			names[t.Code] = t.Names
		}
	}
	return codes, names, nil
}

// createTypeRecords gives every holder of the new custom type t's holder
// type (deleted ones too, so that a restore finds it) an empty record of
// it: every driver, or every vehicle or trailer.
func createTypeRecords(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, t customType) error {
	var sql string
	switch t.HolderType {
	case HolderVehicle:
		sql = `INSERT INTO driver_documents (company_id, holder_type, vehicle_id, type)
			SELECT $1, 'vehicle', v.id, $2 FROM vehicles v WHERE v.company_id = $1
			ON CONFLICT (vehicle_id, type) DO NOTHING`
	case HolderTrailer:
		sql = `INSERT INTO driver_documents (company_id, holder_type, trailer_id, type)
			SELECT $1, 'trailer', r.id, $2 FROM trailers r WHERE r.company_id = $1
			ON CONFLICT (trailer_id, type) DO NOTHING`
	default:
		sql = `INSERT INTO driver_documents (company_id, driver_id, type)
			SELECT $1, d.id, $2 FROM drivers d WHERE d.company_id = $1
			ON CONFLICT (driver_id, type) DO NOTHING`
	}
	if _, err := tx.Exec(ctx, sql, companyID, t.Code); err != nil {
		return fmt.Errorf("create documents of type %s: %w", t.Code, err)
	}
	return nil
}
