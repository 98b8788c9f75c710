package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// HR lists who is ready and who is not with one choice, and each row's
// "Next expiry" names the next document coming due, the expired ones
// shown apart; in English at 1280 px and in Czech on a 390 px phone, where
// no page is wider than the screen.
func TestHRFiltersReadyDriversAndSeesExpiredApart(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	with := func(extra map[string]int) map[string]int {
		d := ready()
		for k, v := range extra {
			d[k] = v
		}
		return d
	}
	app.seedDrivers(t, company, []seedDriver{
		{First: "Karel", Last: "Beneš", Email: "karel@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"passport": 20})},
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha",
			Docs: with(map[string]int{"medical_examination": -4, "a1_eu": -30, "code_95": 40})},
		{First: "Petra", Last: "Svobodová", Email: "petra@acme.test", Citizenship: "CZ", Office: "Praha", Status: "on_leave", Docs: ready()},
	})
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := page.Goto(app.URL + "/drivers")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–3 of 3"))

	ready := page.Locator("#filter-is_ready")
	_, err = ready.SelectOption(playwright.SelectOptionValues{Values: &[]string{"true"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers?is_ready=true"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–1 of 1"))
	if got := rows(t, page); fmt.Sprint(got) != "[Karel Beneš]" {
		t.Errorf("ready: %v", got)
	}
	if shown, api := shownTotal(t, page), app.apiTotal(t, company, "is_ready=true"); shown != api {
		t.Errorf("the page shows %d ready drivers, the API's total is %d", shown, api)
	}

	_, err = ready.SelectOption(playwright.SelectOptionValues{Values: &[]string{"false"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/drivers?is_ready=false"))
	must(t, expect.Locator(page.GetByTestId("driver-count")).ToHaveText("Drivers 1–2 of 2"))
	if got := rows(t, page); fmt.Sprint(got) != "[Jan Novák Petra Svobodová]" {
		t.Errorf("not ready: %v", got)
	}
	// Jan's next expiry is his Code 95 in 40 days, not an expired document;
	// those are apart: the longest expired named, and one more.
	jan := page.Locator(`[data-testid=driver-row]:has-text("Jan Novák")`)
	must(t, expect.Locator(jan.GetByTestId("next-expiry-type")).ToHaveText("Code 95"))
	must(t, expect.Locator(jan.GetByTestId("next-expiry")).ToContainText("40 days left"))
	must(t, expect.Locator(jan.GetByTestId("expired-docs")).ToHaveText("Expired: A1 certificate (EU) and 1 more"))
	app.Screenshots(t, page, "drivers-not-ready")
	app.CheckA11y(t, page)

	// In Czech on a phone: the cards say the same, and nothing is wider
	// than the screen.
	_, err = page.Goto(app.URL + "/drivers?is_ready=false")
	must(t, err)
	toCzech(t, page, app.URL+"/drivers?is_ready=false")
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	must(t, expect.Locator(ready).ToHaveValue("false"))
	must(t, expect.Locator(page.Locator("#filter-is_ready option:checked")).ToHaveText("Nepřipravení"))
	card := page.Locator(`[data-testid=driver-cards] li:has-text("Jan Novák")`)
	must(t, expect.Locator(card.GetByTestId("next-expiry-type")).ToHaveText("Profesní průkaz (kód 95)"))
	must(t, expect.Locator(card.GetByTestId("expired-docs")).ToHaveText("Prošlé: Formulář A1 (EU) a 1 další"))
	fitsPhone(t, page)
	app.Screenshots(t, page, "drivers-not-ready-cs")
	app.CheckA11y(t, page)
}
