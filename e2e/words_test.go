package e2e

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Office staff read words, not codes: the ledger names categories and
// writes amounts as money, the audit log names every action and field,
// folds the technical details away and filters by what happened, with an
// export of what it shows; in English on a desktop and in Czech on a
// phone, where neither page is wider than the screen.
func TestWordsInLedgerAndAuditLog(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{{First: "Jan", Last: "Novák", Email: "jan@acme.test", Citizenship: "CZ", Office: "Praha"}})
	jan := ids["jan@acme.test"].String()
	day := time.Now().UTC().Format(time.DateOnly)
	for _, body := range []map[string]any{
		{"transaction_type": "bonus", "category": "performance_bonus", "amount": "1500", "transaction_date": day},
		{"transaction_type": "business_trip", "category": "business_trip", "amount": "800.50", "transaction_date": day},
		{"transaction_type": "deduction", "category": "Stravné", "amount": "-2000", "transaction_date": day},
	} {
		app.api(t, company, http.MethodPost, "/api/v0/drivers/"+jan+"/finance", body, http.StatusCreated, nil)
	}
	app.api(t, company, http.MethodPost, "/api/v0/drivers/"+jan+"/penalties", map[string]any{"penalty_type": "damage", "amount": "2000",
		"incident_date": day, "description": "Mirror"}, http.StatusCreated, nil)
	en, cs := i18n.EN, i18n.CS
	money := func(l i18n.Lang, s string) string { return l.Money(decimal.RequireFromString(s), "CZK") }

	// English, desktop: the ledger.
	page := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := page.Goto(app.URL + "/drivers/" + jan + "/finance")
	must(t, err)
	table := page.GetByTestId("ledger-table")
	for _, want := range []string{"Performance bonus", "Business trip", "Stravné", en.T("finance.category.damage_fine"), money(en, "-2000.00")} {
		must(t, expect.Locator(table).ToContainText(want))
	}
	must(t, expect.Locator(table).Not().ToContainText("performance_bonus"))
	app.Screenshots(t, page, "words-ledger")
	app.CheckA11y(t, page)

	// The audit log: actions in words, the technical details folded.
	_, err = page.Goto(app.URL + "/audit")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("audit-table")).ToContainText(en.T("audit.action.penalty.created")))
	if n, _ := page.Locator(`[data-testid=audit-changes]:text-matches("[a-z]+_[a-z_]+")`).Count(); n != 0 {
		t.Errorf("%d rows show field codes", n)
	}
	technical := page.GetByTestId("audit-technical").First()
	must(t, expect.Locator(technical.Locator("dl")).Not().ToBeVisible())
	// Filtered to one action, chosen by its words.
	_, err = page.Locator("#audit-action").SelectOption(playwright.SelectOptionValues{Labels: &[]string{en.T("audit.action.penalty.created")}})
	must(t, err)
	must(t, page.GetByTestId("audit-apply").Click())
	must(t, waitURL(page, app.URL+"/audit?action=penalty.created"))
	must(t, expect.Locator(page.GetByTestId("audit-total")).ToHaveText("Entries: 1"))
	must(t, expect.Locator(page.GetByTestId("audit-changes")).ToContainText(money(en, "2000.00")))
	must(t, expect.Locator(page.GetByTestId("audit-export-csv")).ToHaveAttribute("href", "/audit/export?action=penalty.created&format=csv"))
	app.Screenshots(t, page, "words-audit")
	app.CheckA11y(t, page)

	// Czech, phone: the same pages in Czech words, none wider than the phone.
	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance")
	must(t, err)
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", "cs"))
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	must(t, expect.Locator(page.GetByTestId("ledger-table")).ToContainText("Prémie za výkon"))
	must(t, expect.Locator(page.GetByTestId("ledger-table")).ToContainText(money(cs, "-2000.00")))
	fitsPhone(t, page)
	app.Screenshots(t, page, "words-ledger-cs")
	app.CheckA11y(t, page)
	_, err = page.Goto(app.URL + "/audit?action=penalty.created")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("audit-action")).ToHaveText(cs.T("audit.action.penalty.created")))
	must(t, expect.Locator(page.GetByTestId("audit-changes")).ToContainText(regexp.MustCompile(`Druh pokuty:\s*Poškození`)))
	fitsPhone(t, page)
	app.Screenshots(t, page, "words-audit-cs")
	app.CheckA11y(t, page)
}
