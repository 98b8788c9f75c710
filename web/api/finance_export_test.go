package api_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// The export holds exactly the filtered rows of the list, newest first,
// with headers and words in the caller's language; XLSX cells are typed.
func TestFinanceExport(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	day := func(o int) string { return pragueDay(o) }
	salary := f.create(t, "base_salary", "30000.00", day(-3))
	f.create(t, "bonus", "1500.50", day(-2))
	ded := f.create(t, "deduction", "-250.00", day(-1))
	f.create(t, "overtime", "999.99", day(-40)) // outside the date filter
	f.move(t, salary["id"], "approved", http.StatusOK)

	filter := "?type=base_salary,deduction&from_date=" + day(-10)
	t.Run("csv in Czech", func(t *testing.T) {
		r := f.acc.Send(http.MethodGet, f.path(f.driver, "/export"+filter+"&format=csv"), nil,
			http.Header{"Accept-Language": {"cs"}}).Expect(http.StatusOK)
		if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Fatalf("Content-Type %q", ct)
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="finance-DRV-`) || !strings.Contains(cd, "-Jan-Novak-") || !strings.Contains(cd, ".csv") {
			t.Fatalf("Content-Disposition %q", cd)
		}
		body := bytes.TrimPrefix(r.Body, []byte("\ufeff"))
		recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		want := [][]string{
			{"Datum", "Druh", "Kategorie", "Popis", "Reference", "Částka", "Měna", "Stav", "Datum výplaty", "ID"},
			{day(-1), "Srážka", "", "", "", "-250.00", "CZK", "Čeká na schválení", "", ded["id"].(string)},
			{day(-3), "Základní mzda", "", "", "", "30000.00", "CZK", "Schváleno", "", salary["id"].(string)},
		}
		if len(recs) != len(want) {
			t.Fatalf("%d rows, want %d: %v", len(recs), len(want), recs)
		}
		for i := range want {
			if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
				t.Errorf("row %d = %v, want %v", i, recs[i], want[i])
			}
		}
	})
	t.Run("xlsx typed cells", func(t *testing.T) {
		r := f.hr.Send(http.MethodGet, f.path(f.driver, "/export"+filter+"&format=xlsx"), nil,
			http.Header{"Accept-Language": {"en"}}).Expect(http.StatusOK)
		x, err := excelize.OpenReader(bytes.NewReader(r.Body))
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		sheet := x.GetSheetName(0)
		if sheet != "Transactions" {
			t.Fatalf("sheet %q", sheet)
		}
		rows, err := x.GetRows(sheet)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 3 || rows[0][0] != "Date" || rows[1][1] != "Deduction" || rows[2][7] != "Approved" {
			t.Fatalf("rows %v", rows)
		}
		for _, c := range []struct{ cell, want string }{{"F2", "-250"}, {"F3", "30000"}} {
			typ, err := x.GetCellType(sheet, c.cell)
			if err != nil || (typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset) {
				t.Errorf("%s type %v %v", c.cell, typ, err)
			}
			raw, _ := x.GetCellValue(sheet, c.cell, excelize.Options{RawCellValue: true})
			if raw != c.want {
				t.Errorf("%s = %q, want %s", c.cell, raw, c.want)
			}
		}
		// A date is a number with a date format, not text.
		raw, _ := x.GetCellValue(sheet, "A2", excelize.Options{RawCellValue: true})
		if strings.Contains(raw, "-") || raw == "" {
			t.Errorf("A2 raw %q: not a date serial", raw)
		}
		style, _ := x.GetCellStyle(sheet, "A2")
		st, err := x.GetStyle(style)
		if err != nil || st.NumFmt != 14 {
			t.Errorf("A2 style %+v %v", st, err)
		}
		shown, _ := x.GetCellValue(sheet, "A2")
		if shown == raw {
			t.Errorf("A2 shows its serial %q", shown)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		f.acc.Get(f.path(f.driver, "/export?format=pdf")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		f.acc.Get(f.path(f.driver, "/export?status=lost")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	})
}
