package e2e

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
)

// importRows is the size of the file: over the 1,000 rows that run within
// the request, so every check and the import run as jobs with progress.
const importRows = 1500

// HR imports a company's drivers: downloads the templates (the XLSX with
// its drop-down lists), uploads a CSV made from the CSV template with one
// bad row and sees the error at its row and cell, uploads the fixed file,
// matches an unknown column to the work location, confirms, watches the
// progress until the import is done, finds the new drivers in the list and
// downloads the list's compliance report, whose XLSX holds their required
// documents. Every screen is checked with axe-core.
func TestImportDriversHR(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Personální"})

	_, err := page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, page.GetByTestId("import-drivers").Click())
	must(t, waitURL(page, app.URL+"/drivers/import"))
	app.Screenshots(t, page, "import-upload")
	app.CheckA11y(t, page)

	// The templates.
	download := func(testID string) []byte {
		t.Helper()
		dl, err := page.ExpectDownload(func() error { return page.GetByTestId(testID).Click() })
		must(t, err)
		path, err := dl.Path()
		must(t, err)
		data, err := os.ReadFile(path)
		must(t, err)
		return data
	}
	x, err := excelize.OpenReader(bytes.NewReader(download("import-template-xlsx")))
	must(t, err)
	sheet := x.GetSheetList()[0]
	xrows, err := x.GetRows(sheet)
	must(t, err)
	dvs, err := x.GetDataValidations(sheet)
	must(t, err)
	if len(xrows) != 2 || !slices.Contains(xrows[0], "Last name") || len(dvs) < 5 {
		t.Errorf("XLSX template: %d rows, header %v, %d checks", len(xrows), xrows[0], len(dvs))
	}
	_ = x.Close()
	records, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(download("import-template-csv"), []byte("\ufeff")))).ReadAll()
	must(t, err)
	// The template's work location column is left out: the file has its
	// own "Depot" column, which the user matches to the work location.
	header := append(slices.DeleteFunc(records[0], func(h string) bool { return h == "Work location" }), "Depot")
	col := func(name string) int {
		i := slices.Index(header, name)
		if i < 0 {
			t.Fatalf("no column %q in %v", name, header)
		}
		return i
	}
	first, last, email, status, depot := col("First name"), col("Last name"), col("E-mail"), col("Status"), col("Depot")
	licence := col("Driving licence valid until")
	file := func(badEmail bool) []byte {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		must(t, w.Write(header))
		for i := range importRows {
			rec := make([]string, len(header))
			rec[first], rec[last], rec[email], rec[status], rec[depot] = "Karel", fmt.Sprintf("Importovaný%04d", i),
				fmt.Sprintf("karel%04d@acme.test", i), "Active", "Ostrava"
			rec[licence] = "2031-06-30"
			if badEmail && i == 3 {
				rec[email] = "karel-at-acme" // row 5 of the file
			}
			must(t, w.Write(rec))
		}
		w.Flush()
		return buf.Bytes()
	}
	upload := func(data []byte) {
		t.Helper()
		must(t, page.GetByTestId("import-file").SetInputFiles([]playwright.InputFile{{Name: "drivers.csv", MimeType: "text/csv", Buffer: data}}))
		must(t, page.GetByTestId("import-check").Click())
	}
	// The result of a check or run, after its progress.
	result := page.GetByTestId("import-result")
	awaitResult := func(from string) {
		t.Helper()
		must(t, waitURL(page, func(u string) bool { return u != from }))
		must(t, expect.Locator(result).ToBeVisible(playwright.LocatorAssertionsToBeVisibleOptions{Timeout: playwright.Float(120000)}))
	}

	// One bad row: its e-mail cell says what is wrong.
	upload(file(true))
	awaitResult(app.URL + "/drivers/import")
	must(t, expect.Locator(page.GetByTestId("import-count-errors")).ToHaveText("1"))
	must(t, expect.Locator(page.GetByTestId("import-has-errors")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("import-mode-valid")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("import-mode-all")).Not().ToBeChecked())
	badCell := page.GetByTestId(fmt.Sprintf("preview-cell-5-%d", email))
	must(t, expect.Locator(badCell).ToContainText("karel-at-acme"))
	must(t, expect.Locator(badCell.GetByTestId("preview-cell-error")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId(fmt.Sprintf("preview-cell-4-%d", email)).GetByTestId("preview-cell-error")).ToHaveCount(0))
	t.Logf("%s: the check with an error", time.Now().Format(time.TimeOnly))
	app.Screenshots(t, page, "import-errors")
	app.CheckA11y(t, page)

	// The fixed file: no error; "Depot" is not known and is ignored.
	must(t, page.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: "Upload another file"}).Click())
	must(t, waitURL(page, app.URL+"/drivers/import"))
	upload(file(false))
	awaitResult(app.URL + "/drivers/import")
	must(t, expect.Locator(page.GetByTestId("import-count-errors")).ToHaveText("0"))
	depotSelect := page.GetByTestId(fmt.Sprintf("import-field-%d", depot))
	must(t, expect.Locator(depotSelect).ToHaveValue(""))
	_, err = depotSelect.SelectOption(playwright.SelectOptionValues{Values: &[]string{"work_location"}})
	must(t, err)
	checked := page.URL()
	must(t, page.GetByTestId("import-recheck").Click())
	awaitResult(checked)
	must(t, expect.Locator(page.GetByTestId("import-columns-error")).ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId(fmt.Sprintf("import-field-%d", depot))).ToHaveValue("work_location"))
	must(t, expect.Locator(page.GetByTestId("import-count-created")).ToHaveText(fmt.Sprint(importRows)))
	t.Logf("%s: the check after the new match", time.Now().Format(time.TimeOnly))
	app.Screenshots(t, page, "import-checked")
	app.CheckA11y(t, page)

	// Confirmed: the progress bar runs until the import is done.
	must(t, page.GetByTestId("import-confirm").Click())
	must(t, expect.Locator(page.GetByTestId("import-progress-bar")).ToBeVisible())
	app.CheckA11y(t, page)
	must(t, expect.Locator(page.GetByTestId("import-done")).ToBeVisible(playwright.LocatorAssertionsToBeVisibleOptions{Timeout: playwright.Float(180000)}))
	must(t, expect.Locator(page.GetByTestId("import-progress")).ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId("import-count-created")).ToHaveText(fmt.Sprint(importRows)))
	t.Logf("%s: done", time.Now().Format(time.TimeOnly))
	app.Screenshots(t, page, "import-done")
	app.CheckA11y(t, page)

	// The new drivers are in the list, with the matched column's value.
	must(t, page.GetByTestId("import-to-drivers").Click())
	must(t, waitURL(page, app.URL+"/drivers"))
	must(t, page.Locator("#driver-search").Fill("Importovaný0042"))
	must(t, expect.Locator(page.GetByTestId("driver-row")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("driver-row")).ToContainText("karel0042@acme.test"))

	// The compliance report of the list, as the user downloads it: an XLSX
	// with the driver's required documents, its licence valid until a date
	// cell (the licence has no file yet, so its status is "Missing").
	x, err = excelize.OpenReader(bytes.NewReader(download("compliance-report")))
	must(t, err)
	defer x.Close()
	sheet = x.GetSheetList()[0]
	xrows, err = x.GetRows(sheet)
	must(t, err)
	if len(xrows) < 2 || !slices.Equal(xrows[0], []string{"Number", "Last name", "First name", "Driver status", "Document", "Status", "Valid until", "Days left"}) {
		t.Fatalf("compliance report header %v", xrows[:min(1, len(xrows))])
	}
	var mine []int // the rows (1-based) of driver 0042
	for i, r := range xrows {
		if len(r) > 2 && r[1] == "Importovaný0042" {
			mine = append(mine, i+1)
		}
	}
	if len(mine) != 5 { // the five document types required by default
		t.Fatalf("%d report rows of the driver, want 5: %v", len(mine), mine)
	}
	licenceRow := 0
	for _, i := range mine {
		r := xrows[i-1]
		if r[2] != "Karel" || r[3] != "Active" || !strings.HasPrefix(r[0], "DRV-") {
			t.Errorf("report row %d: %v", i, r)
		}
		if r[4] == "Driving licence" {
			licenceRow = i
		}
	}
	if licenceRow == 0 {
		t.Fatalf("no driving licence row among %v", mine)
	}
	if got := xrows[licenceRow-1][5]; got != "Missing" {
		t.Errorf("licence status %q, want Missing", got)
	}
	raw, err := x.GetCellValue(sheet, fmt.Sprintf("G%d", licenceRow), excelize.Options{RawCellValue: true})
	must(t, err)
	if raw != "48029" { // 2031-06-30 as a spreadsheet day number
		t.Errorf("valid until cell %q, want the date 2031-06-30 as a date cell", raw)
	}
	styleID, err := x.GetCellStyle(sheet, fmt.Sprintf("G%d", licenceRow))
	must(t, err)
	style, err := x.GetStyle(styleID)
	must(t, err)
	if style.NumFmt != 14 {
		t.Errorf("valid until cell number format %d, want the short date (14)", style.NumFmt)
	}

	var n int
	var place string
	must(t, app.DB.QueryRow(context.Background(), `SELECT count(*), min(work_location) FROM drivers
		WHERE company_id = $1 AND email LIKE 'karel%@acme.test'`, company).Scan(&n, &place))
	if n != importRows || place != "Ostrava" {
		t.Errorf("%d drivers imported, work location %q", n, place)
	}
}
