package imports

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Column is a header of the file and the field it was matched to ("" for
// a column that is ignored).
type Column struct {
	Header string `json:"header"`
	Field  string `json:"field"`
}

// Fields are the fields a company's columns may be matched to: the driver
// fields, then the number and valid_until columns of each document type the
// company uses (the 14 built-in types, then its live custom types).
//
// An import of vehicles or trailers has the fleet's fields of its kind
// (fleet.ImportFields) and no document columns.
type Fields struct {
	kind  Kind
	types []string
	names documents.TypeNames
}

// BuiltinFields are the fields of a company without custom document types.
func BuiltinFields() Fields { return Fields{kind: Drivers, types: documents.Types} }

// Fields returns the fields of the company's columns of an import of kind
// (companyID is the caller's, checked by the access file, or a job's).
func (s *Service) Fields(ctx context.Context, companyID uuid.UUID, kind Kind) (Fields, error) {
	if kind.isFleet() {
		return Fields{kind: kind}, nil
	}
	types, names, err := documents.LiveTypes(ctx, s.db, companyID)
	if err != nil {
		return Fields{}, err
	}
	return Fields{kind: Drivers, types: types, names: names}, nil
}

// List is every field, the driver fields first.
func (f Fields) List() []string {
	if f.kind.isFleet() {
		return slices.Clone(fleet.ImportFields(f.kind.fleetKind()))
	}
	return append(slices.Clone(drivers.ImportFields), drivers.DocumentColumns(f.types)...)
}

// custom are the company's custom types.
func (f Fields) custom() []string {
	return slices.DeleteFunc(slices.Clone(f.types), documents.IsBuiltIn)
}

// alias is the field of a folded header: the built-in names first, then
// the company's custom types by code and by each of their names in every
// language's words for "number" and "valid until".
func (f Fields) alias(header string) string {
	k := fold(header)
	if f.kind.isFleet() {
		return fleetAliases[f.kind]()[k]
	}
	if field, ok := aliases[k]; ok {
		return field
	}
	for _, t := range f.custom() {
		if k == fold(t+"_number") {
			return t + "_number"
		}
		if k == fold(t+"_valid_until") {
			return t + "_valid_until"
		}
		for _, l := range i18n.Langs {
			for _, name := range f.names[t] {
				if k == fold(l.T("imports.col.doc_number", "type", name)) {
					return t + "_number"
				}
				if k == fold(l.T("imports.col.doc_valid_until", "type", name)) {
					return t + "_valid_until"
				}
			}
		}
	}
	return ""
}

// fold makes a header comparable: lower case, without accents and without
// anything but letters and digits ("E-mail" = "email", "Příjmení" =
// "prijmeni", "first_name" = "First name").
func fold(s string) string {
	t := transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)
	out, _, err := transform.String(t, strings.ToLower(s))
	if err != nil {
		out = strings.ToLower(s)
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, out)
}

// aliases maps each folded header Konvoj knows to its field: the field's
// API name, its column header (as the export writes it) and its label in
// messages, in every language; for documents "<type>_number" and the
// type's name with "number" / "valid until" in every language.
var aliases = func() map[string]string {
	m := map[string]string{}
	add := func(name, field string) {
		if k := fold(name); k != "" {
			if _, taken := m[k]; !taken {
				m[k] = field
			}
		}
	}
	for _, f := range drivers.ImportFields {
		add(f, f)
	}
	for _, f := range drivers.DocumentColumns(documents.Types) {
		add(f, f)
	}
	for _, l := range i18n.Langs {
		for _, f := range drivers.ImportFields {
			for _, key := range []string{"drivers.field." + f, "field." + f} {
				if l.Has(key) {
					add(l.T(key), f)
				}
			}
		}
		for _, t := range documents.Types {
			name := l.T("doc.type." + t)
			add(l.T("imports.col.doc_number", "type", name), t+"_number")
			add(l.T("imports.col.doc_valid_until", "type", name), t+"_valid_until")
		}
	}
	return m
}()

// Match matches the header row to the fields: by the user's mapping first
// (header → field, "" to ignore it), then by name in any language. Unknown
// headers are returned apart and ignored. Two columns with one field, or a
// mapping to an unknown field, are 422.
func (f Fields) Match(header []string, mapping map[string]string) ([]Column, []string, error) {
	cols := make([]Column, len(header))
	var unknown []string
	used := map[string]string{} // field → header
	known := f.List()
	var v apperr.Validation
	for i, h := range header {
		field, chosen := mapping[h]
		if chosen && field != "" && !slices.Contains(known, field) {
			v.Add("mapping", "msg.imports.mapping_field", "field", field)
			continue
		}
		if !chosen {
			field = f.alias(h)
		}
		cols[i] = Column{Header: h, Field: field}
		if field == "" {
			if !chosen && h != "" {
				unknown = append(unknown, h)
			}
			continue
		}
		if first, dup := used[field]; dup {
			v.Add("file", "msg.imports.duplicate_column", "first", first, "second", h)
			continue
		}
		used[field] = h
	}
	if err := v.Err(); err != nil {
		return nil, nil, err
	}
	return cols, unknown, nil
}

// rowsOf turns the table's rows into the drivers service's import rows
// (the text of the matched, non-empty cells by field).
func rowsOf(t Table, cols []Column) []drivers.ImportRow {
	out := make([]drivers.ImportRow, len(t.Rows))
	for i, r := range t.Rows {
		vals := map[string]string{}
		for j, c := range r.Cells {
			if j < len(cols) && cols[j].Field != "" && c != "" {
				vals[cols[j].Field] = c
			}
		}
		out[i] = drivers.ImportRow{Line: r.Line, Values: vals}
	}
	return out
}
