package api_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/xml"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

func readCSV(t *testing.T, body []byte) [][]string {
	t.Helper()
	if !bytes.HasPrefix(body, []byte("\ufeff")) {
		t.Fatalf("no byte order mark: %q", truncateBytes(body))
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func truncateBytes(b []byte) []byte {
	if len(b) > 300 {
		return b[:300]
	}
	return b
}

// column returns the index of the header, failing the test without it.
func column(t *testing.T, header []string, name string) int {
	t.Helper()
	for i, h := range header {
		if h == name {
			return i
		}
	}
	t.Fatalf("no column %q in %v", name, header)
	return -1
}

// The drivers export holds exactly the list's filtered set in the list's
// order, with headers in the caller's language, personal columns only for
// roles that may read them, formula-looking text defused in CSV, and
// typed cells in XLSX.
func TestDriversExport(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Export s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	office := fixtures.Office(t, env.DB, company, "Praha")
	env.Driver(company, fixtures.Name("Žofie", "Černá"), fixtures.Email("zofie@example.test"), fixtures.HireDate("2024-03-01"),
		fixtures.InOffice(office), fixtures.Citizenship("CZ"), func(s *fixtures.DriverSpec) {
			s.Phone, s.IBAN = fixtures.Text("+420 777 123 456"), fixtures.Text("CZ6508000000192000145399")
		})
	env.Driver(company, fixtures.Name("=HYPERLINK(\"http://x\")", "Attacker"), fixtures.Email("evil@example.test"))
	env.Driver(company, fixtures.Name("Petr", "Nečinný"), fixtures.Email("petr@example.test"), fixtures.Status("inactive"))
	other := env.Company("Other", "free")
	env.Driver(other, fixtures.Email("stranger@example.test"))

	t.Run("csv in Czech with the list's filter", func(t *testing.T) {
		r := hr.Send(http.MethodGet, "/api/v0/drivers/export?status=active&format=csv", nil,
			http.Header{"Accept-Language": {"cs"}}).Expect(http.StatusOK)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Fatalf("Content-Type %q", ct)
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="drivers-`) {
			t.Fatalf("Content-Disposition %q", cd)
		}
		recs := readCSV(t, r.Body)
		if len(recs) != 3 {
			t.Fatalf("%d rows, want header + 2 active drivers: %v", len(recs), recs)
		}
		h := recs[0]
		if h[0] != "Osobní číslo" || h[1] != "Jméno" {
			t.Fatalf("header %v", h)
		}
		first, phone, hire, office, status := column(t, h, "Jméno"), column(t, h, "Telefon"), column(t, h, "Datum nástupu"),
			column(t, h, "Pobočka"), column(t, h, "Stav")
		column(t, h, "IBAN")
		if recs[1][first] != "Žofie" || recs[1][phone] != "'+420 777 123 456" || recs[1][hire] != "2024-03-01" ||
			recs[1][office] != "Praha" || recs[1][status] != "Aktivní" {
			t.Errorf("row 1 = %v", recs[1])
		}
		if recs[2][first] != `'=HYPERLINK("http://x")` {
			t.Errorf("formula text not defused: %q", recs[2][first])
		}
	})
	t.Run("list order and search as the list", func(t *testing.T) {
		en := http.Header{"Accept-Language": {"en"}}
		r := hr.Send(http.MethodGet, "/api/v0/drivers/export?sort_by=last_name&sort_order=desc", nil, en).Expect(http.StatusOK)
		recs := readCSV(t, r.Body)
		last := column(t, recs[0], "Last name")
		var got []string
		for _, rec := range recs[1:] {
			got = append(got, rec[last])
		}
		var list struct {
			Data []struct {
				LastName string `json:"last_name"`
			} `json:"data"`
		}
		hr.Get("/api/v0/drivers?sort_by=last_name&sort_order=desc").Expect(http.StatusOK).Decode(&list)
		var want []string
		for _, d := range list.Data {
			want = append(want, d.LastName)
		}
		if len(got) != 3 || strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("order %v, the list's %v", got, want)
		}
		recs = readCSV(t, hr.Send(http.MethodGet, "/api/v0/drivers/export?search=cerna", nil, en).Expect(http.StatusOK).Body)
		if len(recs) != 2 || recs[1][last] != "Černá" {
			t.Errorf("search: %v", recs)
		}
	})
	t.Run("xlsx typed cells, text never a formula", func(t *testing.T) {
		r := hr.Send(http.MethodGet, "/api/v0/drivers/export?format=xlsx&status=active", nil,
			http.Header{"Accept-Language": {"en"}}).Expect(http.StatusOK)
		x, err := excelize.OpenReader(bytes.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		sheet := x.GetSheetName(0)
		rows, err := x.GetRows(sheet)
		if err != nil || len(rows) != 3 {
			t.Fatalf("rows %v %v", rows, err)
		}
		hire := column(t, rows[0], "Hire date")
		cell, _ := excelize.CoordinatesToCellName(hire+1, 2)
		raw, _ := x.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		if raw != "45352" { // 2024-03-01 as a spreadsheet day number
			t.Errorf("hire date cell %s = %q, want a date serial", cell, raw)
		}
		name := column(t, rows[0], "First name")
		cell, _ = excelize.CoordinatesToCellName(name+1, 3)
		if f, _ := x.GetCellFormula(sheet, cell); f != "" {
			t.Errorf("text cell %s became a formula %q", cell, f)
		}
		if v, _ := x.GetCellValue(sheet, cell); v != `=HYPERLINK("http://x")` {
			t.Errorf("text cell %s = %q", cell, v)
		}
		valid := column(t, rows[0], "Documents missing")
		cell, _ = excelize.CoordinatesToCellName(valid+1, 2)
		if typ, _ := x.GetCellType(sheet, cell); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
			t.Errorf("count cell %s type %v", cell, typ)
		}
	})
	t.Run("dispatcher without personal columns; driver own row", func(t *testing.T) {
		en := http.Header{"Accept-Language": {"en"}}
		recs := readCSV(t, env.As(company, auth.RoleDispatcher).Send(http.MethodGet, "/api/v0/drivers/export", nil, en).Expect(http.StatusOK).Body)
		for _, h := range recs[0] {
			if h == "IBAN" || h == "Birth date" {
				t.Errorf("dispatcher got personal column %q", h)
			}
		}
		recs = readCSV(t, env.As(company, auth.RoleDriver, "petr@example.test").Send(http.MethodGet, "/api/v0/drivers/export", nil, en).Expect(http.StatusOK).Body)
		if len(recs) != 2 || recs[1][column(t, recs[0], "E-mail")] != "petr@example.test" {
			t.Errorf("driver export %v", recs)
		}
	})
	t.Run("bad filter and format refused before the file", func(t *testing.T) {
		hr.Get("/api/v0/drivers/export?status=flying").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		hr.Get("/api/v0/drivers/export?format=pdf").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		hr.Get("/api/v0/drivers/export?office_id=nope").ExpectError(http.StatusBadRequest, "BadRequest")
	})
}

// The compliance report has one row per driver and required document
// type, with status, valid_until and days left, the status cell coloured
// in XLSX; an accountant (who may not list documents) is refused.
func TestComplianceReport(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Compliance a.s.", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company, fixtures.Name("Jana", "Dvořáková"), fixtures.Citizenship("CZ"))
	today, err := civil.Parse(webtest.Today())
	if err != nil {
		t.Fatal(err)
	}
	until := today.AddDays(10).String()
	upload(t, hr, documentID(t, env, driver, "passport"), filePart("pas.pdf", samplePDF(t, 100)),
		field("valid_until", until)).Expect(http.StatusCreated)

	r := hr.Send(http.MethodGet, "/api/v0/reports/compliance?format=xlsx", nil, http.Header{"Accept-Language": {"en"}}).Expect(http.StatusOK)
	x, err := excelize.OpenReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	sheet := x.GetSheetName(0)
	rows, _ := x.GetRows(sheet)
	if len(rows) != 6 { // header + the 5 default required types
		t.Fatalf("rows %v", rows)
	}
	if strings.Join(rows[0], "|") != "Number|Last name|First name|Driver status|Document|Status|Valid until|Days left" {
		t.Fatalf("header %v", rows[0])
	}
	var passport int
	for i, row := range rows {
		if len(row) > 4 && row[4] == "Passport" {
			passport = i + 1
		}
	}
	if passport == 0 {
		t.Fatalf("no passport row: %v", rows)
	}
	row := rows[passport-1]
	if row[1] != "Dvořáková" || row[5] != "Expiring soon" || row[7] != "10" {
		t.Errorf("passport row %v", row)
	}
	raw, _ := x.GetCellValue(sheet, "G"+strconv.Itoa(passport), excelize.Options{RawCellValue: true})
	if want := excelSerial(t, until); raw != want {
		t.Errorf("valid_until cell = %q, want serial %s", raw, want)
	}
	style, _ := x.GetCellStyle(sheet, "F"+strconv.Itoa(passport))
	if fill := cellFill(t, r.Body, style); fill != "FFFFCC99" {
		t.Errorf("status cell fill %q, want the orange of expiring soon", fill)
	}

	recs := readCSV(t, hr.Send(http.MethodGet, "/api/v0/reports/compliance", nil, http.Header{"Accept-Language": {"cs"}}).Expect(http.StatusOK).Body)
	if len(recs) != 6 || recs[0][7] != "Zbývá dní" {
		t.Errorf("csv %v", recs)
	}
	env.As(company, auth.RoleAccountant).Get("/api/v0/reports/compliance").ExpectError(http.StatusForbidden, "Forbidden")
	env.As(company, auth.RoleDispatcher).Get("/api/v0/reports/compliance").Expect(http.StatusOK)
}

// cellFill is the solid fill colour (ARGB) of a cell style of an XLSX file,
// read from its styles part.
func cellFill(t *testing.T, file []byte, style int) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	var styles struct {
		Fills []struct {
			Fg struct {
				RGB string `xml:"rgb,attr"`
			} `xml:"patternFill>fgColor"`
		} `xml:"fills>fill"`
		Xfs []struct {
			FillID int `xml:"fillId,attr"`
		} `xml:"cellXfs>xf"`
	}
	for _, f := range zr.File {
		if f.Name == "xl/styles.xml" {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			if err := xml.NewDecoder(rc).Decode(&styles); err != nil {
				t.Fatal(err)
			}
		}
	}
	if style >= len(styles.Xfs) || styles.Xfs[style].FillID >= len(styles.Fills) {
		t.Fatalf("style %d not in the styles part", style)
	}
	return styles.Fills[styles.Xfs[style].FillID].Fg.RGB
}

// excelSerial is the spreadsheet day number of an ISO date.
func excelSerial(t *testing.T, iso string) string {
	t.Helper()
	d, err := civil.Parse(iso)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := civil.Parse("1899-12-30")
	return strconv.Itoa(base.DaysUntil(d))
}

// A text that a spreadsheet splitting the file on ";" or "," would cut
// into a formula (a last name "ok;=1+2") is quoted and defused piece by
// piece: read with either separator, honouring quotes or splitting the
// line naively, no cell of the export starts with =, +, -, @, a tab or a
// carriage return; and the file imports back unchanged.
func TestDriversExportDefusesEveryPiece(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Split s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	drvCreate(t, hr, map[string]any{"first_name": "a,@b", "last_name": "ok;=1+2", "email": "split@example.test",
		"work_location": "x; -1", "hire_date": "2024-03-01"})
	body := hr.Send(http.MethodGet, "/api/v0/drivers/export?format=csv", nil, http.Header{"Accept-Language": {"en"}}).
		Expect(http.StatusOK).Body
	recs := readCSV(t, body)
	last, first := column(t, recs[0], "Last name"), column(t, recs[0], "First name")
	if recs[1][last] != "ok;'=1+2" || recs[1][first] != "a,'@b" {
		t.Errorf("names as written: %q %q", recs[1][last], recs[1][first])
	}
	text := string(bytes.TrimPrefix(body, []byte("\ufeff")))
	if !strings.Contains(text, `"ok;'=1+2"`) {
		t.Errorf("the last name is not quoted:\n%s", text)
	}
	var seen []string
	for _, sep := range []rune{',', ';'} {
		r := csv.NewReader(strings.NewReader(text))
		r.Comma, r.FieldsPerRecord, r.LazyQuotes = sep, -1, true
		all, err := r.ReadAll()
		if err != nil {
			t.Fatalf("read with %q: %v", sep, err)
		}
		for _, rec := range all {
			seen = append(seen, rec...)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		seen = append(seen, strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ';' })...)
	}
	for _, c := range seen {
		if c = strings.TrimLeft(c, ` "`); c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) {
			t.Errorf("a spreadsheet reading the export sees the cell %q", c)
		}
	}

	im := awaitImport(t, hr, sendImport(t, hr, "drivers.csv", body).Expect(http.StatusCreated))
	if im.Rows != 1 || im.Unchanged != 1 || len(im.Errors) != 0 {
		t.Errorf("the exported file imports with changes: %+v", im)
	}
}
