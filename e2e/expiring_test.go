package e2e

import (
	"fmt"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// expiringRows names the documents list's rows, "driver · document", in
// their order (the table on a laptop).
func expiringRows(t *testing.T, page playwright.Page) []string {
	t.Helper()
	must(t, page.Locator("[data-testid=expiring-results]").WaitFor())
	n, err := page.Locator("[data-testid=expiring-row]").Count()
	must(t, err)
	out := make([]string, n)
	for i := range n {
		row := page.Locator("[data-testid=expiring-row]").Nth(i)
		driver, err := row.Locator("td").First().Locator("a").TextContent()
		must(t, err)
		doc, err := row.GetByTestId("expiring-type").TextContent()
		must(t, err)
		out[i] = driver + " · " + doc
	}
	return out
}

// HR opens the document-level list from the home page, asks for the
// documents ending within 30 days and sees each with its days left, the
// one capped by another document with that document named; in Czech on a
// phone the same list is cards no wider than the screen.
func TestHRListsDocumentsExpiring(t *testing.T) {
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
		{First: "Jana", Last: "Dvořáková", Email: "jana@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"passport": 12})},
		// The work permit ends in 25 days, but its residence permit in 6:
		// the permit is "expiring soon" because of it.
		{First: "Ivan", Last: "Kovalenko", Email: "ivan@acme.test", Citizenship: "UA", Office: "Ostrava",
			Docs: with(map[string]int{"work_permit": 25, "residence_permit": 6})},
		{First: "Ana", Last: "Popescu", Email: "ana@acme.test", Citizenship: "RO", Office: "Ostrava", Docs: with(map[string]int{"medical_examination": 45})},
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha", Docs: with(map[string]int{"passport": -4})},
		{First: "Karel", Last: "Beneš", Email: "karel@acme.test", Citizenship: "SK", Office: "Praha", Status: "inactive",
			Docs: with(map[string]int{"code_95": 3})},
	})
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})

	// From the home page's count of documents expiring soon.
	must(t, page.Locator("[data-stage=expiring_soon] [data-testid=stage-list]").Click())
	must(t, waitURL(page, app.URL+"/documents?status=expiring_soon"))
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Documents expiring"))
	if got := expiringRows(t, page); fmt.Sprint(got) != "[Ivan Kovalenko · Residence permit Jana Dvořáková · Passport Ivan Kovalenko · Work permit]" {
		t.Errorf("expiring soon: %v", got)
	}

	// Within 30 days, whatever the status: the expired passport is late,
	// not due; the inactive driver's document is not listed.
	must(t, page.GetByTestId("status-expiring_soon").Uncheck())
	must(t, waitURL(page, app.URL+"/documents?expiring_within=any"))
	_, err := page.Locator("#filter-expiring_within").SelectOption(playwright.SelectOptionValues{Values: &[]string{"30"}})
	must(t, err)
	must(t, waitURL(page, app.URL+"/documents"))
	must(t, expect.Locator(page.GetByTestId("expiring-count")).ToHaveText("Documents 1–3 of 3"))
	if got := expiringRows(t, page); fmt.Sprint(got) != "[Ivan Kovalenko · Residence permit Jana Dvořáková · Passport Ivan Kovalenko · Work permit]" {
		t.Errorf("within 30 days: %v", got)
	}
	passport := page.Locator(`[data-testid=expiring-row]:has-text("Passport")`)
	must(t, expect.Locator(passport.GetByTestId("expiring-days")).ToHaveText("12 days left"))
	must(t, expect.Locator(passport.Locator("[data-status]")).ToHaveAttribute("data-status", "expiring_soon"))
	permit := page.Locator(`[data-testid=expiring-row]:has-text("Work permit")`)
	must(t, expect.Locator(permit.GetByTestId("expiring-days")).ToHaveText("25 days left"))
	must(t, expect.Locator(permit.Locator("[data-status]")).ToHaveText("Expiring soon"))
	must(t, expect.Locator(permit.GetByTestId("expiring-limited-by")).ToHaveText("Limited by Residence permit"))
	if overflow, _ := page.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`); overflow == true {
		t.Errorf("at 1280px the page scrolls sideways")
	}
	app.Screenshots(t, page, "documents-expiring-30")
	app.CheckA11y(t, page)

	// In Czech on a phone: cards, nothing wider than the screen.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("h1")).ToHaveText("Končící doklady"))
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	must(t, expect.Locator(page.GetByTestId("expiring-card")).ToHaveCount(3))
	card := page.Locator(`[data-testid=expiring-card]:has-text("Pracovní povolení")`)
	must(t, expect.Locator(card.GetByTestId("expiring-limited-by")).ToContainText("Omezeno dokladem"))
	wide, err := page.Evaluate(`() => [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5 && e.getClientRects().length).map(e => e.tagName + '.' + e.className).slice(0, 5)`)
	must(t, err)
	if list, _ := wide.([]any); len(list) > 0 || func() bool {
		o, _ := page.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`)
		return o == true
	}() {
		t.Errorf("at 390px wider than the screen: %v", wide)
	}
	app.Screenshots(t, page, "documents-expiring-cs-390")
	app.CheckA11y(t, page)
}
