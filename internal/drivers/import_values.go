package drivers

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/patch"
)

// importValue turns one cell's text into the field's value of an Input, as
// a client would send it, so the drivers' own rules judge it. Words are
// read in any of Konvoj's languages (statuses, yes/no), dates as ISO
// (2026-03-01), Czech (1. 3. 2026) or spreadsheet day numbers; an office by
// its name. A value that cannot be read is passed on as text, and the
// field's rule answers with its usual message.
func importValue(in *Input, v *apperr.Validation, field, text string, offices importOffices) error {
	text = strings.TrimSpace(text)
	switch field {
	case "office":
		id, ok := offices.byName[strings.ToLower(text)]
		if !ok {
			v.Add("office", "msg.imports.office_unknown", "office", text)
			return nil
		}
		return in.Set("office_id", id.String())
	case "office_id":
		if _, err := uuid.Parse(text); err != nil {
			// An office's name in the id column is read as a name.
			if id, ok := offices.byName[strings.ToLower(text)]; ok {
				return in.Set("office_id", id.String())
			}
		}
		return in.Set(field, text)
	case "status":
		return in.Set(field, statusWord(text))
	case "contract_indefinite":
		if b, ok := yesNoWord(text); ok {
			return in.Set(field, b)
		}
		return in.Set(field, text)
	case "tags":
		var tags []string
		for _, t := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' }) {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, strings.ToLower(t))
			}
		}
		return in.Set(field, tags)
	case "hire_date", "fire_date", "contract_from", "contract_to", "birth_date":
		if d, ok := ParseImportDate(text); ok {
			return in.Set(field, d.String())
		}
		return in.Set(field, text)
	}
	return in.Set(field, text)
}

// statusWord maps a driver status in any language ("Aktivní") to its
// value; anything else is returned as it is.
func statusWord(text string) string {
	low := strings.ToLower(text)
	for _, st := range Statuses {
		if low == st {
			return st
		}
		for _, l := range i18n.Langs {
			if strings.ToLower(l.T("driver.status."+st)) == low {
				return st
			}
		}
	}
	return text
}

// yesNoWord reads a yes or no in any language, or true/false, 1/0.
func yesNoWord(text string) (bool, bool) {
	low := strings.ToLower(text)
	switch low {
	case "true", "1", "yes", "y", "ano", "a", "x":
		return true, true
	case "false", "0", "no", "n", "ne":
		return false, true
	}
	for _, l := range i18n.Langs {
		if strings.ToLower(l.T("export.yes")) == low {
			return true, true
		}
		if strings.ToLower(l.T("export.no")) == low {
			return false, true
		}
	}
	return false, false
}

// ParseImportDate reads a date cell: ISO 2026-03-01, Czech 1.3.2026 or
// 1. 3. 2026, or a spreadsheet day number (an XLSX date cell read as its
// value).
func ParseImportDate(text string) (civil.Date, bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return civil.Date{}, false
	}
	if d, err := civil.Parse(text); err == nil {
		return d, true
	}
	if t, err := time.Parse("2.1.2006", strings.ReplaceAll(text, " ", "")); err == nil {
		return civil.DateOf(t), true
	}
	if f, err := strconv.ParseFloat(text, 64); err == nil && f >= 1 && f < 2958466 && f == math.Trunc(f) {
		return civil.DateOf(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).AddDate(0, 0, int(f))), true
	}
	return civil.Date{}, false
}

// importWording says a refused cell's problem in words (docs/import-export.md):
// the messages of the drivers' rules that speak of a format are said again
// naming the cell's text and what to write instead ("Unknown country:
// Rumunsko; use a two-letter code such as RO"); others are kept.
func importWording(field, text string, m i18n.Message) i18n.Message {
	text = strings.TrimSpace(text)
	if text == "" {
		return m
	}
	switch m.Key {
	case "msg.common.country":
		example, ok := countries.Named(text)
		if !ok {
			example = "CZ"
		}
		return i18n.M("msg.imports.country", "value", text, "example", example)
	case "msg.common.not_date", "msg.common.date_iso":
		return i18n.M("msg.imports.date", "field", patch.Label(field), "value", text)
	case "msg.common.email":
		return i18n.M("msg.imports.email", "value", text)
	case "msg.drivers.status":
		allowed := make([]i18n.Message, len(Statuses))
		for i, st := range Statuses {
			allowed[i] = i18n.M("driver.status." + st)
		}
		return i18n.M("msg.imports.status", "value", text, "allowed", allowed)
	case "msg.drivers.contract_indefinite":
		return i18n.M("msg.imports.yes_no", "field", patch.Label(field), "value", text)
	case "msg.drivers.iban":
		return i18n.M("msg.imports.iban", "value", text)
	case "msg.drivers.swift":
		return i18n.M("msg.imports.swift", "value", text)
	case "msg.drivers.language":
		return i18n.M("msg.imports.language", "value", text)
	case "msg.common.uuid", "msg.drivers.office_unknown":
		return i18n.M("msg.imports.office_unknown", "office", text)
	}
	return m
}
