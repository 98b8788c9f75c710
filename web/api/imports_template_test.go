package api_test

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// The import template, in each language and both formats: headers in the
// caller's language, the example row, drop-down lists in XLSX; uploaded
// back as it is it imports without an error, and with the example row
// filled with real drivers it imports them.
func TestImportTemplate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Šablona s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)

	get := func(lang, format string) []byte {
		t.Helper()
		h := http.Header{"Accept-Language": {lang}}
		r := hr.Send(http.MethodGet, "/api/v0/imports/drivers/template?format="+format, nil, h).Expect(http.StatusOK)
		if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, `drivers-import-template.`+format) {
			t.Errorf("%s %s: Content-Disposition %q", lang, format, cd)
		}
		return r.Body
	}
	for _, tc := range []struct{ lang, lastName, status, licence string }{
		{"en", "Last name", "Active", "Driving licence number"},
		{"cs", "Příjmení", "Aktivní", "Řidičský průkaz – číslo"},
		{"pl", "Last name", "", ""},
	} {
		x := get(tc.lang, "xlsx")
		f, err := excelize.OpenReader(bytes.NewReader(x))
		if err != nil {
			t.Fatalf("%s: open template: %v", tc.lang, err)
		}
		sheet := f.GetSheetList()[0]
		rows, err := f.GetRows(sheet)
		if err != nil || len(rows) != 2 {
			t.Fatalf("%s: rows %v %v", tc.lang, rows, err)
		}
		if !slices.Contains(rows[0], tc.lastName) {
			t.Errorf("%s: header %v lacks %q", tc.lang, rows[0], tc.lastName)
		}
		if tc.licence != "" && !slices.Contains(rows[0], tc.licence) {
			t.Errorf("%s: header %v lacks %q", tc.lang, rows[0], tc.licence)
		}
		status := slices.Index(rows[0], "Status")
		if tc.lang == "cs" {
			status = slices.Index(rows[0], "Stav")
		}
		if tc.status != "" && (status < 0 || rows[1][status] != tc.status) {
			t.Errorf("%s: example status %v", tc.lang, rows[1])
		}
		dvs, err := f.GetDataValidations(sheet)
		if err != nil {
			t.Fatal(err)
		}
		var lists []string
		for _, dv := range dvs {
			lists = append(lists, dv.Sqref+" "+dv.Formula1)
		}
		all := strings.Join(lists, "\n")
		for _, want := range []string{"Lists!$A$1:$A$", "\"" + strings.Join([]string{"cs", "en", "pl", "uk", "ro"}, ",") + "\""} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: no check %q in\n%s", tc.lang, want, all)
			}
		}
		if tc.status != "" && !strings.Contains(all, tc.status) {
			t.Errorf("%s: no status list with %q in\n%s", tc.lang, tc.status, all)
		}
		_ = f.Close()

		// As downloaded: one driver, no error, every column known.
		for _, file := range []struct {
			name string
			data []byte
		}{{"template.xlsx", x}, {"template.csv", get(tc.lang, "csv")}} {
			var im importResult
			sendImport(t, hr, file.name, file.data).Expect(http.StatusCreated).Decode(&im)
			if im.Rows != 1 || im.Created != 1 || len(im.Errors) != 0 || len(im.Unknown) != 0 {
				t.Errorf("%s %s: %+v", tc.lang, file.name, im)
			}
			for _, c := range im.Columns {
				if c.Field == "" {
					t.Errorf("%s %s: column %q not matched", tc.lang, file.name, c.Header)
				}
			}
		}
	}

	// Filled in: the example row becomes a real driver, a second one added.
	f, err := excelize.OpenReader(bytes.NewReader(get("cs", "xlsx")))
	if err != nil {
		t.Fatal(err)
	}
	sheet := f.GetSheetList()[0]
	header, _ := f.GetRows(sheet)
	set := func(row int, col string, v any) {
		t.Helper()
		i := slices.Index(header[0], col)
		if i < 0 {
			t.Fatalf("no column %q", col)
		}
		cell, _ := excelize.CoordinatesToCellName(i+1, row)
		if err := f.SetCellValue(sheet, cell, v); err != nil {
			t.Fatal(err)
		}
	}
	set(2, "Jméno", "Marek")
	set(2, "Příjmení", "Šťastný")
	set(2, "E-mail", "marek@sablona.test")
	set(3, "Jméno", "Olena")
	set(3, "Příjmení", "Kovalenko")
	set(3, "E-mail", "olena@sablona.test")
	set(3, "Státní občanství", "UA")
	set(3, "Stav", "Na dovolené")
	set(3, "Řidičský průkaz – číslo", "UA998877")
	var filled bytes.Buffer
	if err := f.Write(&filled); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	var im importResult
	sendImport(t, hr, "ridici.xlsx", filled.Bytes()).Expect(http.StatusCreated).Decode(&im)
	if im.Rows != 2 || im.Created != 2 || len(im.Errors) != 0 {
		t.Fatalf("filled template, dry run: %+v", im)
	}
	sendImport(t, hr, "ridici.xlsx", filled.Bytes(), field("dry_run", "false")).Expect(http.StatusCreated).Decode(&im)
	if im.Created != 2 || len(im.Errors) != 0 {
		t.Fatalf("filled template: %+v", im)
	}
	var status, licence, until string
	err = env.DB.QueryRow(context.Background(), `SELECT d.status, dd.number, coalesce(ddp.valid_until::text, '')
		FROM drivers d JOIN driver_documents dd ON dd.driver_id = d.id AND dd.type = 'drivers_license'
		JOIN driver_documents ddp ON ddp.driver_id = d.id AND ddp.type = 'passport'
		WHERE d.company_id = $1 AND d.email = 'olena@sablona.test'`, company).Scan(&status, &licence, &until)
	if err != nil || status != "on_leave" || licence != "UA998877" || until != "" {
		t.Errorf("olena: %s %s %q %v", status, licence, until, err)
	}
	err = env.DB.QueryRow(context.Background(), `SELECT dd.valid_until::text FROM drivers d
		JOIN driver_documents dd ON dd.driver_id = d.id AND dd.type = 'passport'
		WHERE d.company_id = $1 AND d.email = 'marek@sablona.test'`, company).Scan(&until)
	if err != nil || until != "2032-01-31" {
		t.Errorf("marek's passport valid until %q %v", until, err)
	}

	// A dispatcher may not have it; a bad format is 422.
	env.As(company, auth.RoleDispatcher).Get("/api/v0/imports/drivers/template").ExpectError(http.StatusForbidden, "Forbidden")
	hr.Get("/api/v0/imports/drivers/template?format=pdf").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
}
