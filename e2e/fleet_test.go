package e2e

import (
	"regexp"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// A dispatcher adds a lorry from the form and finds it in the list, in
// English at 1280 px; the list in Czech on a 390 px phone is cards no
// wider than the screen; HR reads the vehicle without edit buttons.
func TestDispatcherAddsALorry(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	page := app.SignIn(t, company, auth.RoleDispatcher, Person{Email: "dana@acme.test", FirstName: "Dana", LastName: "Dvořáková"})
	_, err := page.Goto(app.URL + "/vehicles/new")
	must(t, err)
	must(t, expect.Locator(page.Locator(".fleet-pkv-only")).ToBeHidden())
	must(t, page.Locator("#field-plate_number").Fill("1AB 2345"))
	must(t, page.Locator("#field-make").Fill("Volvo"))
	must(t, page.Locator("#field-model").Fill("FH 500"))
	must(t, page.Locator("#field-tags").Fill("adr"))
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("save-vehicle").Click())
	must(t, waitURL(page, regexp.MustCompile(`/vehicles/[0-9a-f-]{36}$`)))
	vehicle := page.URL()
	must(t, expect.Locator(page.GetByTestId("fleet-plate")).ToHaveText("1AB 2345"))
	must(t, expect.Locator(page.GetByTestId("fleet-number")).ToHaveText("VEH-0001"))
	must(t, expect.Locator(page.GetByTestId("not-ready-reason")).ToHaveText("A required document is missing or expired"))
	app.CheckA11y(t, page)

	_, err = page.Goto(app.URL + "/vehicles")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("fleet-count")).ToHaveText("1–1 of 1"))
	must(t, expect.Locator(page.GetByTestId("fleet-row")).ToContainText("Volvo FH 500"))
	app.CheckA11y(t, page)

	toCzech(t, page, app.URL+"/vehicles")
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	_, err = page.GetByTestId("filter-is_ready").SelectOption(playwright.SelectOptionValues{Values: &[]string{"false"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/vehicles?is_ready=false"))
	must(t, expect.Locator(page.GetByTestId("fleet-row")).ToContainText("Nepřipraveno"))
	fitsPhone(t, page)
	app.Screenshots(t, page, "vehicles-cs")
	app.CheckA11y(t, page)

	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err = hr.Goto(vehicle)
	must(t, err)
	must(t, expect.Locator(hr.GetByTestId("fleet-plate")).ToHaveText("1AB 2345"))
	must(t, expect.Locator(hr.GetByTestId("edit-vehicle")).ToHaveCount(0))
	must(t, expect.Locator(hr.GetByTestId("delete-vehicle")).ToHaveCount(0))
}
