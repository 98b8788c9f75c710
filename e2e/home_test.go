package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// homeCompany is a company whose drivers fill every home page: Petr (the
// driver who signs in) with an expired passport, a licence expiring soon,
// Code 95 entering its window, no medical examination, a pending penalty
// and pay this month; Jan, ready, with a disputed penalty.
func homeCompany(t *testing.T, app *App) (uuid.UUID, map[string]uuid.UUID) {
	t.Helper()
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01",
			Docs: map[string]int{"passport": -4, "drivers_license": 8, "tachograph_card": 400, "code_95": 26}},
		{First: "Jan", Last: "Novák", Email: "jan.novak@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2022-05-01", Docs: ready()},
	})
	petr, jan := "/api/v0/drivers/"+ids["petr.maly@acme.test"].String(), "/api/v0/drivers/"+ids["jan.novak@acme.test"].String()
	today := dateIn(0)
	var pen struct{ ID uuid.UUID }
	app.api(t, company, http.MethodPost, petr+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "500.00",
		"incident_date": today, "description": "Radar D1 km 12"}, http.StatusCreated, &pen)
	ids["petr-penalty"] = pen.ID
	app.api(t, company, http.MethodPost, jan+"/penalties", map[string]any{"penalty_type": "damage", "amount": "1200.00",
		"incident_date": today, "description": "Mirror"}, http.StatusCreated, &pen)
	app.api(t, company, http.MethodPut, jan+"/penalties/"+pen.ID.String()+"/dispute", map[string]any{"dispute_reason": "The mirror was broken before."},
		http.StatusOK, nil)
	for _, tx := range []map[string]any{
		{"transaction_type": "base_salary", "amount": "30000.00", "transaction_date": today},
		{"transaction_type": "bonus", "amount": "2000.00", "transaction_date": today},
	} {
		app.api(t, company, http.MethodPost, petr+"/finance", tx, http.StatusCreated, nil)
	}
	app.api(t, company, http.MethodPost, jan+"/finance", map[string]any{"transaction_type": "base_salary", "amount": "28000.00",
		"transaction_date": today}, http.StatusCreated, nil)
	return company, ids
}

// toCzech switches the page to Czech with the language switch (on a phone
// inside the menu) and waits for the page to come back.
func toCzech(t *testing.T, page playwright.Page, url string) {
	t.Helper()
	button := page.Locator(`button:visible:has-text("Čeština")`)
	if n, _ := button.Count(); n == 0 {
		must(t, page.GetByText("Menu", playwright.PageGetByTextOptions{Exact: playwright.Bool(true)}).Click())
	}
	must(t, button.First().Click())
	must(t, waitURL(page, url))
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", "cs"))
}

// Each office role's home page, in English and Czech, at 1280 and 390 px.
func TestStaffHomePages(t *testing.T) {
	app := newApp(t)
	company, _ := homeCompany(t, app)
	for _, c := range []struct {
		role  auth.Role
		shown []string
		name  string
	}{
		{auth.RoleHRManager, []string{"home-documents", "not-ready", "home-disputes"}, "home-hr"},
		{auth.RoleAdmin, []string{"board", "home-documents", "home-disputes", "home-finance"}, "home-admin"},
		{auth.RoleAccountant, []string{"home-finance", "home-pending", "home-approved", "month-totals", "periods-to-close"}, "home-accountant"},
		{auth.RoleDispatcher, []string{"board", "home-documents"}, "home-dispatcher"},
	} {
		page := app.SignIn(t, company, c.role)
		for _, id := range c.shown {
			must(t, expect.Locator(page.GetByTestId(id)).ToBeVisible())
		}
		switch c.role {
		case auth.RoleHRManager:
			must(t, expect.Locator(page.Locator(`[data-stage="expired"]`)).ToContainText("Passport"))
			must(t, expect.Locator(page.Locator(`[data-stage="expiring_soon"]`)).ToContainText("Driving licence"))
			must(t, expect.Locator(page.Locator(`[data-stage="lead"]`)).ToContainText("Code 95"))
			must(t, expect.Locator(page.GetByTestId("dispute")).ToContainText("The mirror was broken before."))
			must(t, expect.Locator(page.GetByTestId("not-ready-driver")).ToContainText("Medical examination"))
		case auth.RoleAccountant:
			// Pending: 30 000 + 2 000 + 28 000 and the pending penalty's −500.
			must(t, expect.Locator(page.GetByTestId("home-pending")).ToContainText("4 transactions"))
			must(t, expect.Locator(page.GetByTestId("home-pending")).ToContainText("CZK\u00a059,500.00"))
			// The month: 60 000 earned, 1 700 in penalties (the disputed one counts).
			must(t, expect.Locator(page.GetByTestId("month-totals")).ToContainText("CZK\u00a058,300.00"))
		}
		app.Screenshots(t, page, c.name)
		app.CheckA11y(t, page)
		toCzech(t, page, app.URL+"/")
		app.Screenshots(t, page, c.name+"-cs")
		app.CheckA11y(t, page)
	}
}

// A driver on a phone: the to-dos on its home page lead to the thing to
// do, and the pay page shows this month's net so far.
func TestDriverHomeOnPhone(t *testing.T) {
	app := newApp(t)
	company, ids := homeCompany(t, app)
	own := "/drivers/" + ids["petr.maly@acme.test"].String()
	page := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})

	todo := page.GetByTestId("driver-todo")
	must(t, expect.Locator(todo.GetByTestId("todo-penalty")).ToHaveAttribute("href", own+"/penalties/"+ids["petr-penalty"].String()))
	must(t, expect.Locator(todo.GetByTestId("todo-penalty")).ToContainText("Speeding"))
	must(t, expect.Locator(todo.GetByTestId("todo-penalty")).ToContainText("-CZK\u00a0500.00"))
	docs, err := todo.GetByTestId("todo-document").AllInnerTexts()
	must(t, err)
	joined := strings.Join(docs, "\n")
	for _, want := range []string{"Renew: Passport", "Renew: Driving licence", "Renew: Code 95", "Hand in: Medical examination"} {
		if !strings.Contains(joined, want) {
			t.Errorf("to-dos %q lack %q", docs, want)
		}
	}
	if strings.Index(joined, "Passport") > strings.Index(joined, "Driving licence") {
		t.Errorf("the expired passport is not first: %q", docs)
	}
	if n, _ := page.GetByText("Jan Novák").Count(); n != 0 {
		t.Error("the driver sees another driver")
	}
	must(t, expect.Locator(page.GetByTestId("driver-pay")).ToContainText("CZK\u00a031,500.00"))
	app.Screenshots(t, page, "home-driver")
	app.CheckA11y(t, page)

	// The expired passport: from the to-do to its document page.
	must(t, todo.GetByTestId("todo-document").First().Click())
	must(t, waitURL(page, regexp.MustCompile(regexp.QuoteMeta(own)+`/documents/[0-9a-f-]+$`)))
	must(t, expect.Locator(page.Locator("h1")).ToContainText("Passport"))

	// Pay: from the menu of the home page.
	_, err = page.Goto(app.URL + "/")
	must(t, err)
	must(t, page.GetByTestId("driver-pay").GetByRole(*playwright.AriaRoleLink).Click())
	must(t, waitURL(page, app.URL+own+"/pay"))
	must(t, expect.Locator(page.GetByTestId("pay-net")).ToHaveText("CZK\u00a031,500.00"))
	must(t, expect.Locator(page.GetByTestId("pay-penalty")).ToHaveAttribute("href", own+"/penalties/"+ids["petr-penalty"].String()))
	rows, err := page.GetByTestId("pay-row").Count()
	must(t, err)
	if rows != 3 {
		t.Errorf("this month's transactions: %d rows, want 3", rows)
	}
	app.Screenshots(t, page, "pay-driver")
	app.CheckA11y(t, page)

	toCzech(t, page, app.URL+own+"/pay")
	must(t, expect.Locator(page.GetByTestId("pay-net")).ToHaveText("31\u00a0500,00\u00a0Kč"))
	app.Screenshots(t, page, "pay-driver-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("todo-penalty")).ToContainText("Pokuta: Překročení rychlosti"))
	app.Screenshots(t, page, "home-driver-cs")
	app.CheckA11y(t, page)
}
