package imports

import (
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Column is a header of the file and the field it was matched to ("" for
// a column that is ignored).
type Column struct {
	Header string `json:"header"`
	Field  string `json:"field"`
}

// Fields are every field a column may be matched to: the driver fields,
// then the document columns.
func Fields() []string {
	return append(slices.Clone(drivers.ImportFields), drivers.DocumentColumns()...)
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
	for _, f := range drivers.DocumentColumns() {
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

// Match matches the header row to fields: by the user's mapping first
// (header → field, "" to ignore it), then by name in any language. Unknown
// headers are returned apart and ignored. Two columns with one field, or a
// mapping to an unknown field, are 422.
func Match(header []string, mapping map[string]string) ([]Column, []string, error) {
	cols := make([]Column, len(header))
	var unknown []string
	used := map[string]string{} // field → header
	known := Fields()
	var v apperr.Validation
	for i, h := range header {
		field, chosen := mapping[h]
		if chosen && field != "" && !slices.Contains(known, field) {
			v.Add("mapping", "msg.imports.mapping_field", "field", field)
			continue
		}
		if !chosen {
			field = aliases[fold(h)]
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
