package e2e

import (
	"net/http"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

var expect = playwright.NewPlaywrightAssertions(10000)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// rows are the drivers' names in the list's desktop table.
func rows(t *testing.T, page playwright.Page) []string {
	t.Helper()
	names, err := page.Locator("[data-testid=driver-row] td:nth-child(2) a").AllInnerTexts()
	must(t, err)
	return names
}

// companyNow is the time in the test companies' zone (Europe/Prague, the
// companies' default). The pages count days from the company's today, so
// the dates the tests seed and expect do too: from 23:00 to 24:00 UTC it is
// already the next day there.
func companyNow() time.Time {
	prague, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		panic(err)
	}
	return time.Now().In(prague)
}

// dateIn is the date days after the company's today, as a form takes it.
func dateIn(days int) string { return companyNow().AddDate(0, 0, days).Format(time.DateOnly) }

// HR works with the list (filters, live search, back button, sorting),
// creates a driver (first refused, with the message at the field), uploads
// two versions of a document and sees its status colour change, downloads
// version 1, reads it all in Czech and deletes the driver.
func TestHRManagesDriversAndDocuments(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.seedDrivers(t, company, fleet)
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})

	// The list, in the Fleet menu.
	nav := page.GetByRole(*playwright.AriaRoleNavigation, playwright.PageGetByRoleOptions{Name: "Main", Exact: playwright.Bool(true)})
	must(t, nav.Locator("summary", playwright.LocatorLocatorOptions{HasText: "Fleet"}).Click())
	must(t, nav.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Drivers"}).Click())
	must(t, waitURL(page, app.URL+"/drivers"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–10 of 10"))
	app.Screenshots(t, page, "drivers-list")
	app.CheckA11y(t, page)

	// A filter: the results change in place and the address holds it.
	_, err := page.Locator("#filter-status").SelectOption(playwright.SelectOptionValues{Values: &[]string{"on_leave"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers?status=on_leave"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–2 of 2"))
	if got := rows(t, page); len(got) != 2 || got[0] != "Petra Svobodová" || got[1] != "Mihai Ionescu" {
		t.Errorf("on leave: %v", got)
	}
	_, err = page.Locator("#filter-status").SelectOption(playwright.SelectOptionValues{Values: &[]string{""}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers"))

	// Live search as one types, without accents.
	must(t, page.GetByTestId("driver-search").PressSequentially("novak", playwright.LocatorPressSequentiallyOptions{Delay: playwright.Float(40)}))
	must(t, waitURL(page, app.URL+"/drivers?search=novak"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–1 of 1"))
	if got := rows(t, page); len(got) != 1 || got[0] != "Jan Novák" {
		t.Errorf("search: %v", got)
	}
	if focused, _ := page.Locator("#driver-search").Evaluate("el => el === document.activeElement", nil); focused != true {
		t.Error("the search field lost the focus while typing")
	}
	app.Screenshots(t, page, "drivers-search")

	// Back: the list before the search, from its address.
	_, err = page.GoBack()
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–10 of 10"))
	must(t, expect.Locator(page.Locator("#driver-search")).ToHaveValue(""))

	// A shared link with filters opens as it was.
	_, err = page.Goto(app.URL + "/drivers?citizenship=SK&document_status=expired")
	must(t, err)
	if got := rows(t, page); len(got) != 1 || got[0] != "Petra Svobodová" {
		t.Errorf("shared link: %v", got)
	}
	must(t, expect.Locator(page.Locator("#filter-citizenship")).ToHaveValue("SK"))

	// Sorting by name, then the other way round.
	_, err = page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, page.GetByTestId("sort-drivers.col.name").Click())
	must(t, waitURL(page, app.URL+"/drivers?sort_by=last_name"))
	must(t, expect.Locator(page.Locator("[data-testid=driver-row]").First()).ToContainText("Ján Baláž"))
	asc := rows(t, page)
	must(t, page.GetByTestId("sort-drivers.col.name").Click())
	must(t, waitURL(page, app.URL+"/drivers?sort_by=last_name&sort_order=desc"))
	must(t, expect.Locator(page.Locator("[data-testid=driver-row]").Last()).ToContainText("Ján Baláž"))
	desc := rows(t, page)
	for i := range asc {
		if len(desc) != len(asc) || desc[len(desc)-1-i] != asc[i] {
			t.Fatalf("descending %v is not ascending %v reversed", desc, asc)
		}
	}

	// A new driver: refused first, the message at the field.
	must(t, page.GetByTestId("new-driver").Click())
	must(t, waitURL(page, app.URL+"/drivers/new"))
	must(t, page.Locator("#field-first_name").Fill("Eva"))
	must(t, page.Locator("#field-email").Fill("eva.dvorakova@acme.test"))
	_, err = page.Locator("#field-citizenship").SelectOption(playwright.SelectOptionValues{Values: &[]string{"SK"}})
	must(t, err)
	must(t, page.Locator("#field-hire_date").Fill(dateIn(-30)))
	must(t, page.GetByTestId("save-driver").Click())
	must(t, expect.Locator(page.GetByTestId("error-last_name")).ToHaveText("The last name field is required."))
	must(t, expect.Locator(page.Locator("#field-last_name")).ToHaveAttribute("aria-invalid", "true"))
	must(t, expect.Locator(page.Locator("#field-first_name")).ToHaveValue("Eva"))
	app.Screenshots(t, page, "driver-new-invalid")
	app.CheckA11y(t, page)

	must(t, page.Locator("#field-last_name").Fill("Dvořáková"))
	must(t, page.GetByTestId("save-driver").Click())
	must(t, waitURL(page, regexp.MustCompile(`/drivers/[0-9a-f-]{36}$`)))
	driverURL := page.URL()
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToHaveText("Driver Eva Dvořáková was created."))
	must(t, expect.Locator(page.GetByTestId("driver-number")).ToHaveText("DRV-0011"))
	must(t, expect.Locator(page.Locator("[data-testid=document-grid] > li")).ToHaveCount(14))
	app.Screenshots(t, page, "driver-page")
	app.CheckA11y(t, page)

	// A document: upload with a validity date, the status colour changes.
	must(t, page.GetByTestId("document-drivers_license").Click())
	must(t, waitURL(page, regexp.MustCompile(`/documents/`)))
	status := page.Locator("[data-testid=document-status] [data-status]")
	must(t, expect.Locator(status).ToHaveAttribute("data-status", "no_data"))
	grey, _ := status.Evaluate("el => getComputedStyle(el).color", nil)
	v1 := []byte("%PDF-1.7\n% driving licence, version 1\n")
	must(t, page.GetByTestId("upload-file").SetInputFiles([]playwright.InputFile{{Name: "licence-2024.pdf", MimeType: "application/pdf", Buffer: v1}}))
	must(t, expect.Locator(page.GetByTestId("upload-file-name")).ToHaveText("Selected file: licence-2024.pdf"))
	must(t, page.GetByTestId("upload-number").Fill("EK 123456"))
	must(t, page.GetByTestId("upload-valid_until").Fill(dateIn(20)))
	must(t, page.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(page.GetByTestId("upload-notice")).ToHaveText("Version 1 was uploaded."))
	must(t, expect.Locator(status).ToHaveAttribute("data-status", "warning"))
	must(t, expect.Locator(status).ToHaveText("Renew soon"))
	amber, _ := status.Evaluate("el => getComputedStyle(el).color", nil)
	if amber != "rgb(161, 98, 7)" || amber == grey {
		t.Errorf("status colour %v (was %v), want the warning amber rgb(161, 98, 7)", amber, grey)
	}
	must(t, expect.Locator(page.GetByTestId("document-number")).ToHaveText("EK 123456"))

	// A second version: valid for years, green; both in the history.
	v2 := []byte("%PDF-1.7\n% driving licence, renewed\n")
	must(t, page.GetByTestId("upload-file").SetInputFiles([]playwright.InputFile{{Name: "licence-2026.pdf", MimeType: "application/pdf", Buffer: v2}}))
	must(t, page.GetByTestId("upload-valid_until").Fill(dateIn(3650)))
	must(t, page.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(page.GetByTestId("upload-notice")).ToHaveText("Version 2 was uploaded."))
	must(t, expect.Locator(status).ToHaveAttribute("data-status", "valid"))
	green, _ := status.Evaluate("el => getComputedStyle(el).color", nil)
	if green != "rgb(21, 128, 61)" {
		t.Errorf("valid colour %v", green)
	}
	must(t, expect.Locator(page.Locator("[data-testid=history] > li")).ToHaveCount(2))
	must(t, expect.Locator(page.Locator("[data-testid=history] > li").First()).ToContainText("Version 2"))
	must(t, expect.Locator(page.GetByTestId("version-1")).ToContainText("licence-2024.pdf"))
	must(t, expect.Locator(page.GetByTestId("version-1")).ToContainText("Hana Horáková"))
	app.Screenshots(t, page, "document-history")
	app.CheckA11y(t, page)

	// Version 1 downloads with its bytes.
	dl, err := page.ExpectDownload(func() error { return page.GetByTestId("download-1").Click() })
	must(t, err)
	if dl.SuggestedFilename() != "licence-2024.pdf" {
		t.Errorf("download name %q", dl.SuggestedFilename())
	}
	path, err := dl.Path()
	must(t, err)
	got, err := os.ReadFile(path)
	must(t, err)
	if string(got) != string(v1) {
		t.Errorf("version 1 downloaded as %q", got)
	}

	// Czech labels.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.GetByTestId("document-title")).ToHaveText("Řidičský průkaz"))
	must(t, expect.Locator(page.Locator("#history-title")).ToHaveText("Historie verzí"))
	must(t, expect.Locator(status).ToHaveText("Platný"))
	app.Screenshots(t, page, "document-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Řidiči"))
	must(t, expect.Locator(page.GetByTestId("new-driver")).ToHaveText("Nový řidič"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Řidiči 1–11 z 11"))
	app.Screenshots(t, page, "drivers-list-cs")
	app.CheckA11y(t, page)

	// Delete, after a confirmation.
	_, err = page.Goto(driverURL)
	must(t, err)
	must(t, page.GetByTestId("delete-driver").Click())
	must(t, expect.Locator(page.GetByTestId("confirm-delete")).ToBeVisible())
	app.Screenshots(t, page, "driver-delete-cs")
	must(t, page.GetByTestId("confirm-delete-button").Click())
	must(t, waitURL(page, app.URL+"/drivers"))
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToHaveText("Řidič Eva Dvořáková byl smazán."))
	res, err := page.Goto(driverURL)
	must(t, err)
	if res.Status() != http.StatusNotFound {
		t.Errorf("deleted driver: %d", res.Status())
	}
}

// A driver on a phone lands on its own profile, sees what needs doing
// first, cannot open anyone else, edits its phone and uploads a photo of a
// document from the camera button.
func TestDriverOnPhone(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01",
			Docs: map[string]int{"passport": -4, "drivers_license": 8, "tachograph_card": 400, "code_95": 26}},
		{First: "Jan", Last: "Novák", Email: "jan.novak@acme.test", Citizenship: "CZ", Office: "Praha"},
	})
	own := "/drivers/" + ids["petr.maly@acme.test"].String()
	page := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	// Its own profile.
	_, err := page.Goto(app.URL + own)
	must(t, err)

	must(t, expect.Locator(page.GetByTestId("driver-name")).ToHaveText("Petr Malý"))
	attention := page.GetByTestId("attention")
	must(t, expect.Locator(attention).ToBeVisible())
	// Most urgent first: expired, expiring soon, to renew; then how many
	// are missing, and the documents in the same order, valid ones last.
	items, err := attention.Locator("a").AllInnerTexts()
	must(t, err)
	if len(items) != 3 || !regexp.MustCompile(`^Passport`).MatchString(items[0]) || !regexp.MustCompile(`^Driving licence`).MatchString(items[1]) ||
		!regexp.MustCompile(`^Code 95`).MatchString(items[2]) {
		t.Errorf("attention: %q", items)
	}
	must(t, expect.Locator(page.GetByTestId("attention-missing")).ToContainText("Documents without a file: 1."))
	grid := page.Locator("[data-testid=document-grid] > li > a")
	must(t, expect.Locator(grid.First()).ToHaveAttribute("data-status", "expired"))
	must(t, expect.Locator(grid.Nth(3)).ToHaveAttribute("data-status", "no_data"))
	must(t, expect.Locator(grid.Last()).ToHaveAttribute("data-testid", "document-tachograph_card"))
	if n, _ := page.GetByText("Jan Novák").Count(); n != 0 {
		t.Error("the driver sees another driver")
	}
	if n, _ := page.GetByTestId("delete-driver").Count(); n != 0 {
		t.Error("the driver is offered a delete")
	}
	app.Screenshots(t, page, "driver-self")
	app.CheckA11y(t, page)

	res, err := page.Goto(app.URL + "/drivers/" + ids["jan.novak@acme.test"].String())
	must(t, err)
	if res.Status() != http.StatusForbidden {
		t.Errorf("another driver's page: %d", res.Status())
	}
	_, err = page.Goto(app.URL + own)
	must(t, err)

	// Its own details: only phone, addresses and bank.
	must(t, page.GetByTestId("edit-driver").Click())
	must(t, waitURL(page, app.URL+own+"/edit"))
	if n, _ := page.Locator("#field-first_name").Count(); n != 0 {
		t.Error("the driver may edit its name")
	}
	must(t, page.Locator("#field-phone").Fill("+420 777 888 999"))
	app.Screenshots(t, page, "driver-self-edit")
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("save-driver").Click())
	must(t, waitURL(page, app.URL+own))
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToHaveText("The changes were saved."))
	must(t, expect.Locator(page.Locator("main")).ToContainText("+420 777 888 999"))

	// A renewed medical examination, photographed.
	must(t, page.GetByTestId("document-medical_examination").Click())
	must(t, waitURL(page, regexp.MustCompile(`/documents/`)))
	must(t, expect.Locator(page.GetByTestId("upload-camera")).ToBeAttached())
	must(t, expect.Locator(page.Locator("[data-js-only]")).ToBeVisible())
	photo := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"), make([]byte, 64)...)
	must(t, page.GetByTestId("upload-camera").SetInputFiles([]playwright.InputFile{{Name: "IMG_2041.png", MimeType: "image/png", Buffer: photo}}))
	must(t, expect.Locator(page.GetByTestId("upload-file-name")).ToHaveText("Selected file: IMG_2041.png"))
	must(t, page.GetByTestId("upload-valid_until").Fill(dateIn(365)))
	app.Screenshots(t, page, "driver-upload-phone")
	must(t, page.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(page.GetByTestId("upload-notice")).ToHaveText("Version 1 was uploaded."))
	must(t, expect.Locator(page.Locator("[data-testid=document-status] [data-status]")).ToHaveAttribute("data-status", "valid"))
	must(t, expect.Locator(page.GetByTestId("version-1")).ToContainText("IMG_2041.png"))
	app.Screenshots(t, page, "driver-uploaded-phone")
	app.CheckA11y(t, page)
}
