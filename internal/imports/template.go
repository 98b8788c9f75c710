package imports

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Label is a field's name as people read it in lang: the export's column
// header of a driver field, "<document type> number" / "… valid until" of
// a document column (a custom type by its name). The import matches these
// labels back (Fields.Match), so a header written with Label is always
// recognised.
func (f Fields) Label(lang i18n.Lang, field string) string {
	if f.kind.isFleet() {
		return lang.T("fleet.field." + field)
	}
	for _, t := range f.types {
		switch field {
		case t + "_number":
			return lang.T("imports.col.doc_number", "type", f.names.Name(lang, t))
		case t + "_valid_until":
			return lang.T("imports.col.doc_valid_until", "type", f.names.Name(lang, t))
		}
	}
	return lang.T("drivers.field." + field)
}

// Template are the template's columns: every driver field the import
// reads (the office by its name, not its id), then the document columns.
func (f Fields) Template() []string {
	return slices.DeleteFunc(f.List(), func(f string) bool { return f == "office_id" })
}

// sample is a value of the template's example row: text, or a day (a
// date cell in XLSX, ISO in CSV).
type sample struct {
	text string
	day  *civil.Date
}

func (v sample) cell() export.Cell {
	if v.day != nil {
		return export.Date(*v.day)
	}
	return export.Text(v.text)
}

// exampleDriver is the template's example row by field: a complete driver
// that imports without an error. Words (status, yes/no) are written in the
// template's language.
func exampleDriver(lang i18n.Lang, office string) map[string]sample {
	day := func(y int, m time.Month, d int) sample { v := civil.NewDate(y, m, d); return sample{day: &v} }
	txt := func(s string) sample { return sample{text: s} }
	return map[string]sample{
		"first_name":                  txt("Jan"),
		"last_name":                   txt("Novák"),
		"email":                       txt("jan.novak@example.com"),
		"phone":                       txt("+420 777 123 456"),
		"citizenship":                 txt("CZ"),
		"status":                      txt(lang.T("driver.status.active")),
		"office":                      txt(office),
		"hire_date":                   day(2025, time.March, 1),
		"contract_from":               day(2025, time.March, 1),
		"contract_indefinite":         txt(lang.T("export.yes")),
		"work_location":               txt("Praha"),
		"tags":                        txt("adr"),
		"language":                    txt(string(lang)),
		"birth_date":                  day(1985, time.April, 12),
		"registration_address":        txt("Dlouhá 12, 110 00 Praha 1"),
		"bank_country":                txt("CZ"),
		"iban":                        txt("CZ6508000000192000145399"),
		"swift":                       txt("GIBACZPX"),
		"drivers_license_number":      txt("EK123456"),
		"drivers_license_valid_until": day(2031, time.June, 30),
		"passport_number":             txt("45123456"),
		"passport_valid_until":        day(2032, time.January, 31),
	}
}

// Template is the import template (docs/import-export.md) in lang: the
// header row of TemplateFields with their labels in lang, and an example
// row. The XLSX holds drop-down lists for the status, citizenship, bank
// country, office, language and yes/no columns and date checks on the
// date and document validity columns; the CSV holds the same two rows.
// readFormat reads the requested format once the role may import (403
// before a bad format's 400).
//
// The template of vehicles or trailers is the same with the kind's fields,
// an example vehicle or trailer and drop-down lists of its closed fields
// (type, status, use, fuel, refrigeration) and offices.
func (s *Service) Template(ctx context.Context, p auth.Principal, kind Kind, lang i18n.Lang, readFormat func() (export.Format, error)) ([]byte, error) {
	if err := importer(p, kind); err != nil {
		return nil, err
	}
	format, err := readFormat()
	if err != nil {
		return nil, err
	}
	offices, err := s.drivers.Offices(ctx, p)
	if err != nil {
		return nil, err
	}
	var officeNames []string
	for _, o := range offices {
		officeNames = append(officeNames, o.Name)
	}
	first := ""
	if len(officeNames) > 0 {
		first = officeNames[0]
	}
	fs, err := s.Fields(ctx, p.CompanyID, kind)
	if err != nil {
		return nil, err
	}
	fields := fs.Template()
	headers := make([]string, len(fields))
	for i, f := range fields {
		headers[i] = fs.Label(lang, f)
	}
	example := exampleDriver(lang, first)
	sheet, choices := lang.T("drivers.export.sheet"), func(string) []string { return nil }
	if kind.isFleet() {
		example = exampleFleet(kind, lang, first)
		sheet, choices = lang.T("fleet.export.sheet."+string(kind.fleetKind())), func(field string) []string {
			return fleetChoices(kind, lang, field)
		}
	}
	row := make([]export.Cell, len(fields))
	for i, f := range fields {
		row[i] = example[f].cell()
	}
	if format == export.CSV {
		var buf bytes.Buffer
		w, err := export.New(export.CSV, &buf, "")
		if err != nil {
			return nil, err
		}
		if err := w.Header(headers); err != nil {
			return nil, err
		}
		if err := w.Row(row); err != nil {
			return nil, err
		}
		if err := w.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return templateXLSX(lang, sheet, fields, headers, example, officeNames, choices)
}

// templateRows is how far down the XLSX's checks reach: the most rows an
// import takes, below the header.
const templateRows = MaxRows + 1

// templateXLSX builds the workbook with excelize: the template is small,
// so it is built whole (the exports stream theirs).
// choices gives the drop-down list of a field of another kind than drivers
// (nil: none of its own).
func templateXLSX(lang i18n.Lang, sheet string, fields, headers []string, example map[string]sample, offices []string,
	choices func(field string) []string) ([]byte, error) {
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return nil, fmt.Errorf("template sheet: %w", err)
	}
	// The long choices (countries, offices) live on a hidden sheet; a list
	// written into the check itself is limited to 255 characters.
	const lists = "Lists"
	if _, err := f.NewSheet(lists); err != nil {
		return nil, fmt.Errorf("template lists: %w", err)
	}
	codes := countries.Codes()
	for i, code := range codes {
		if err := f.SetCellStr(lists, fmt.Sprintf("A%d", i+1), code); err != nil {
			return nil, fmt.Errorf("template lists: %w", err)
		}
	}
	for i, name := range offices {
		if err := f.SetCellStr(lists, fmt.Sprintf("B%d", i+1), name); err != nil {
			return nil, fmt.Errorf("template lists: %w", err)
		}
	}
	if err := f.SetSheetVisible(lists, false); err != nil {
		return nil, fmt.Errorf("template lists: %w", err)
	}

	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, fmt.Errorf("template style: %w", err)
	}
	date, err := f.NewStyle(&excelize.Style{NumFmt: 14})
	if err != nil {
		return nil, fmt.Errorf("template style: %w", err)
	}
	text, err := f.NewStyle(&excelize.Style{NumFmt: 49}) // "@": typed numbers stay text (phone, IBAN)
	if err != nil {
		return nil, fmt.Errorf("template style: %w", err)
	}

	var statuses []string
	for _, st := range drivers.Statuses {
		statuses = append(statuses, lang.T("driver.status."+st))
	}
	var langs []string
	for _, l := range i18n.Langs {
		langs = append(langs, string(l))
	}
	for i, field := range fields {
		col, err := excelize.ColumnNumberToName(i + 1)
		if err != nil {
			return nil, fmt.Errorf("template column: %w", err)
		}
		if err := f.SetCellStr(sheet, col+"1", headers[i]); err != nil {
			return nil, fmt.Errorf("template header: %w", err)
		}
		width := float64(max(12, min(40, len([]rune(headers[i]))+2)))
		if err := f.SetColWidth(sheet, col, col, width); err != nil {
			return nil, fmt.Errorf("template width: %w", err)
		}
		isDate := strings.HasSuffix(field, "_valid_until") || strings.HasSuffix(field, "_date") ||
			field == "contract_from" || field == "contract_to"
		style := text
		if isDate {
			style = date
		}
		if err := f.SetColStyle(sheet, col, style); err != nil {
			return nil, fmt.Errorf("template style: %w", err)
		}
		if v, ok := example[field]; ok && (v.text != "" || v.day != nil) {
			if err := setCell(f, sheet, col+"2", v, date); err != nil {
				return nil, err
			}
		}
		dv := excelize.NewDataValidation(true)
		dv.Sqref = fmt.Sprintf("%s2:%s%d", col, col, templateRows)
		dv.SetError(excelize.DataValidationErrorStyleStop, headers[i], lang.T("imports.template.invalid"))
		switch own := choices(field); {
		case own != nil:
			err = dv.SetDropList(own)
		case field == "status":
			err = dv.SetDropList(statuses)
		case field == "contract_indefinite":
			err = dv.SetDropList([]string{lang.T("export.yes"), lang.T("export.no")})
		case field == "language":
			err = dv.SetDropList(langs)
		case field == "citizenship" || field == "bank_country":
			dv.SetSqrefDropList(fmt.Sprintf("%s!$A$1:$A$%d", lists, len(codes)))
		case field == "office" && len(offices) > 0:
			dv.SetSqrefDropList(fmt.Sprintf("%s!$B$1:$B$%d", lists, len(offices)))
		case isDate:
			// Any day from 1900 to 2199: a date cell, not text.
			err = dv.SetRange(1, 109573, excelize.DataValidationTypeDate, excelize.DataValidationOperatorBetween)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("template check of %s: %w", field, err)
		}
		if err := f.AddDataValidation(sheet, dv); err != nil {
			return nil, fmt.Errorf("template check of %s: %w", field, err)
		}
	}
	last, _ := excelize.ColumnNumberToName(len(fields))
	if err := f.SetCellStyle(sheet, "A1", last+"1", bold); err != nil {
		return nil, fmt.Errorf("template style: %w", err)
	}
	if err := f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, fmt.Errorf("template panes: %w", err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, fmt.Errorf("write template: %w", err)
	}
	return buf.Bytes(), nil
}

// setCell writes an example cell: a day as a date cell, text as text.
func setCell(f *excelize.File, sheet, cell string, v sample, dateStyle int) error {
	var err error
	if v.day != nil {
		if err = f.SetCellValue(sheet, cell, v.day.Time()); err == nil {
			err = f.SetCellStyle(sheet, cell, cell, dateStyle)
		}
	} else {
		err = f.SetCellStr(sheet, cell, v.text)
	}
	if err != nil {
		return fmt.Errorf("template cell %s: %w", cell, err)
	}
	return nil
}

// TemplateName is the drivers template's file name, without the
// extension (Kind.TemplateName for every kind).
const TemplateName = "drivers-import-template"

// exampleFleet is the example row of a vehicles or trailers template: a
// complete record that imports without an error, words in lang.
func exampleFleet(kind Kind, lang i18n.Lang, office string) map[string]sample {
	txt := func(s string) sample { return sample{text: s} }
	word := func(field, value string) sample {
		_, key := fleet.Choices(kind.fleetKind(), field)
		return txt(lang.T(key(value)))
	}
	if kind == Trailers {
		d := civil.NewDate(2020, time.May, 4)
		return map[string]sample{
			"type": word("type", "frigo"), "status": word("status", "active"), "plate_number": txt("2AB 3456"),
			"vin": txt("WSM00000003123456"), "make": txt("Schmitz Cargobull"), "model": txt("S.KO COOL"), "year": txt("2020"),
			"has_refrigeration": word("has_refrigeration", "true"), "temperature_min": txt("-25"), "temperature_max": txt("25"),
			"volume_m3": txt("86,5"), "gross_weight_kg": txt("39000"), "payload_kg": txt("27000"), "axles": txt("3"),
			"first_registration_date": sample{day: &d}, "office": txt(office),
		}
	}
	d := civil.NewDate(2021, time.March, 15)
	return map[string]sample{
		"type": word("type", "lkv"), "status": word("status", "active"), "plate_number": txt("1AB 2345"),
		"vin": txt("WDB9634031L123456"), "make": txt("Mercedes-Benz"), "model": txt("Actros"), "year": txt("2021"),
		"fuel_type": word("fuel_type", "diesel"), "emission_class": txt("EURO 6"), "gross_weight_kg": txt("18000"),
		"payload_kg": txt("10000"), "axles": txt("2"), "odometer_km": txt("350000"), "first_registration_date": sample{day: &d},
		"office": txt(office), "tags": txt("adr"),
	}
}

// fleetChoices is the drop-down list of a closed field of a vehicles or
// trailers template, in lang (nil for another field).
func fleetChoices(kind Kind, lang i18n.Lang, field string) []string {
	values, key := fleet.Choices(kind.fleetKind(), field)
	if values == nil {
		return nil
	}
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = lang.T(key(v))
	}
	return out
}
