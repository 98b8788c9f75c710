package e2e

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"os"
	"testing"

	"github.com/playwright-community/playwright-go"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
)

// An accountant works through the finance pages: approves three
// transactions at once in the queue and marks them paid, sees the queue's
// summary and the pay period's totals change, is refused deleting a paid
// transaction, and exports a filtered ledger as CSV with exactly its rows.
// Every finance page is photographed and checked with axe-core in English
// and Czech.
func TestFinanceAccountant(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Jan", Last: "Novák", Email: "jan@acme.test", Office: "Praha"},
		{First: "Petra", Last: "Svobodová", Email: "petra@acme.test", Office: "Ostrava"},
	})
	jan, petra := ids["jan@acme.test"].String(), ids["petra@acme.test"].String()
	today := dateIn(0)
	tx := func(driver, typ, amount string) string {
		var out struct {
			ID string `json:"id"`
		}
		app.api(t, company, http.MethodPost, "/api/v0/drivers/"+driver+"/finance",
			map[string]any{"transaction_type": typ, "amount": amount, "transaction_date": today}, http.StatusCreated, &out)
		return out.ID
	}
	salary := tx(jan, "base_salary", "30000.00")
	bonus := tx(jan, "bonus", "2000.00")
	overtime := tx(petra, "overtime", "1500.00")
	deduction := tx(jan, "deduction", "-500.00")
	en := i18n.EN
	money := func(l i18n.Lang, s string) string { return l.Money(decimal.RequireFromString(s), "CZK") }

	page := app.SignIn(t, company, auth.RoleAccountant, Person{Email: "eva@acme.test", FirstName: "Eva", LastName: "Účetní"})
	must(t, navLink(t, page, "Finance").Click())
	must(t, waitURL(page, app.URL+"/finance"))
	must(t, expect.Locator(page.GetByTestId("queue-row")).ToHaveCount(4))
	must(t, expect.Locator(page.GetByTestId("queue-summary-earnings")).ToHaveText(money(en, "33500.00")))
	must(t, expect.Locator(page.GetByTestId("queue-summary-net")).ToHaveText(money(en, "33000.00")))
	app.Screenshots(t, page, "finance-queue")
	app.CheckA11y(t, page)
	fitsPhone(t, page)

	// Three at once: approve.
	sel := func(id string) playwright.Locator {
		return page.Locator(`[data-testid=queue-row][data-id="` + id + `"] [data-testid=select-row]`)
	}
	for _, id := range []string{salary, bonus, overtime} {
		must(t, sel(id).Check())
	}
	must(t, page.GetByTestId("bulk-approve").Click())
	must(t, expect.Locator(page.GetByTestId("bulk-results")).ToContainText("Approved 3 of 3"))
	must(t, expect.Locator(page.Locator(`[data-testid=bulk-result][data-ok=true]`)).ToHaveCount(3))
	// What still waits is the deduction alone: the summary follows.
	must(t, expect.Locator(page.GetByTestId("queue-row")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("queue-summary-earnings")).ToHaveText(money(en, "0.00")))
	must(t, expect.Locator(page.GetByTestId("queue-summary-net")).ToContainText(money(en, "-500.00")))
	app.Screenshots(t, page, "finance-queue-approved")
	app.CheckA11y(t, page)

	// The approved ones, marked paid at once.
	must(t, page.GetByTestId("filter-status-pending").Uncheck())
	must(t, page.GetByTestId("filter-status-approved").Check())
	must(t, page.GetByTestId("apply-filters").Click())
	must(t, expect.Locator(page.GetByTestId("queue-row")).ToHaveCount(3))
	must(t, page.GetByTestId("select-all").Check()) // the three on the page
	for _, id := range []string{salary, bonus, overtime} {
		must(t, expect.Locator(sel(id)).ToBeChecked())
	}
	must(t, page.GetByTestId("bulk-pay").Click())
	must(t, expect.Locator(page.GetByTestId("bulk-results")).ToContainText("Marked paid 3 of 3"))
	must(t, expect.Locator(page.GetByTestId("finance-empty")).ToBeVisible())

	// Jan's ledger: the paid ones in the summary of the filter, the paid
	// one that cannot be deleted says why.
	_, err := page.Goto(app.URL + "/drivers/" + jan + "/finance?status=paid")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ledger-row")).ToHaveCount(2))
	must(t, expect.Locator(page.GetByTestId("ledger-summary-earnings")).ToHaveText(money(en, "32000.00")))
	must(t, expect.Locator(page.GetByTestId("ledger-summary-net")).ToHaveText(money(en, "32000.00")))
	paidRow := page.Locator(`[data-testid=ledger-row][data-id="` + salary + `"]`)
	must(t, expect.Locator(paidRow.GetByTestId("delete-blocked")).ToHaveText(en.T("msg.finance.delete_paid")))
	must(t, expect.Locator(paidRow.GetByTestId("delete-transaction")).ToHaveCount(0))
	// Trying anyway (a link from elsewhere): refused, in words.
	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance/" + salary + "/delete")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("error-403")).ToContainText(en.T("error.403.title")))

	// The periods: totals before and after the accountant cancels the
	// deduction.
	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance/periods")
	must(t, err)
	period := page.GetByTestId("period-row").First()
	must(t, expect.Locator(period.GetByTestId("period-earnings")).ToHaveText(money(en, "32000.00")))
	must(t, expect.Locator(period.GetByTestId("period-deductions")).ToContainText(money(en, "-500.00")))
	must(t, expect.Locator(period.GetByTestId("period-net")).ToHaveText(money(en, "31500.00")))
	must(t, expect.Locator(period.GetByTestId("period-count")).ToHaveText("3"))
	app.Screenshots(t, page, "finance-periods")
	app.CheckA11y(t, page)
	fitsPhone(t, page)

	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ledger-summary-net")).ToHaveText(money(en, "31500.00")))
	must(t, page.Locator(`[data-testid=ledger-row][data-id="`+deduction+`"] [data-testid=tx-cancelled]`).Click())
	must(t, expect.Locator(page.Locator(`[data-testid=ledger-row][data-id="`+deduction+`"]`)).ToHaveAttribute("data-status", "cancelled"))
	must(t, expect.Locator(page.GetByTestId("ledger-summary-net")).ToHaveText(money(en, "32000.00")))
	must(t, expect.Locator(page.GetByTestId("card-mtd-net")).ToHaveText(money(en, "32000.00")))
	app.Screenshots(t, page, "finance-ledger")
	app.CheckA11y(t, page)
	fitsPhone(t, page)

	must(t, page.GetByTestId("periods-link").Click())
	must(t, expect.Locator(period.GetByTestId("period-net")).ToHaveText(money(en, "32000.00")))
	must(t, expect.Locator(period.GetByTestId("period-count")).ToHaveText("2"))
	// This month cannot be closed before it ends: no button, and from when.
	must(t, expect.Locator(period.GetByTestId("close-period")).ToHaveCount(0))
	must(t, expect.Locator(period.GetByTestId("closable-from")).ToBeVisible())
	// Last month's period: closed from its confirmation, which names the
	// pending transaction closed over, then paid.
	var late struct {
		ID       string `json:"id"`
		PeriodID string `json:"period_id"`
	}
	app.api(t, company, http.MethodPost, "/api/v0/drivers/"+jan+"/finance",
		map[string]any{"transaction_type": "bonus", "amount": "700.00", "transaction_date": dateIn(-(companyNow().Day() + 3))}, http.StatusCreated, &late)
	_, err = page.Reload()
	must(t, err)
	last := page.Locator(`[data-testid=period-row][data-id="` + late.PeriodID + `"]`)
	must(t, last.GetByTestId("close-period").Click())
	must(t, expect.Locator(page.GetByTestId("pending-row")).ToHaveCount(1))
	app.Screenshots(t, page, "finance-close-period")
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("confirm-close-button").Click())
	must(t, expect.Locator(last).ToHaveAttribute("data-status", "closed"))
	must(t, last.GetByTestId("pay-period").Click())
	must(t, expect.Locator(last).ToHaveAttribute("data-status", "paid"))
	must(t, expect.Locator(last.GetByTestId("period-net")).ToHaveText(money(en, "700.00")))
	must(t, expect.Locator(period.GetByTestId("period-net")).ToHaveText(money(en, "32000.00")))

	// A filtered ledger exported as CSV holds exactly the filtered rows.
	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance?type=base_salary,deduction")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ledger-row")).ToHaveCount(2))
	dl, err := page.ExpectDownload(func() error { return page.GetByTestId("export-csv").Click() })
	must(t, err)
	path, err := dl.Path()
	must(t, err)
	raw, err := os.ReadFile(path)
	must(t, err)
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(raw, []byte("\ufeff")))).ReadAll()
	must(t, err)
	got := map[string]string{}
	for _, r := range recs[1:] {
		got[r[9]] = r[5] + " " + r[7]
	}
	if len(recs) != 3 || recs[0][0] != "Date" || got[salary] != "30000.00 Paid" || got[deduction] != "-500.00 Cancelled" {
		t.Errorf("export of the filtered ledger: %q", recs)
	}

	// The new transaction form: the service's messages inline.
	_, err = page.Goto(app.URL + "/drivers/" + petra + "/finance/new")
	must(t, err)
	must(t, page.Locator("#field-amount").Fill("12.345"))
	must(t, page.GetByTestId("save-transaction").Click())
	must(t, expect.Locator(page.GetByTestId("error-amount")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("error-transaction_type")).ToBeVisible())
	app.Screenshots(t, page, "finance-new-transaction")
	app.CheckA11y(t, page)

	// The same pages in Czech.
	must(t, page.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(page.Locator("html")).ToHaveAttribute("lang", "cs"))
	cs := i18n.CS
	for _, p := range []struct{ name, path string }{
		{"finance-queue-cs", "/finance?status=all"},
		{"finance-ledger-cs", "/drivers/" + jan + "/finance"},
		{"finance-periods-cs", "/drivers/" + jan + "/finance/periods"},
		{"finance-new-transaction-cs", "/drivers/" + petra + "/finance/new"},
	} {
		_, err = page.Goto(app.URL + p.path)
		must(t, err)
		app.Screenshots(t, page, p.name)
		app.CheckA11y(t, page)
		fitsPhone(t, page)
	}
	// The unfiltered ledger holds every month: last month's paid bonus too.
	_, err = page.Goto(app.URL + "/drivers/" + jan + "/finance")
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("ledger-summary-net")).ToHaveText(money(cs, "32700.00")))
	must(t, expect.Locator(page.Locator(`[data-testid=ledger-row][data-id="`+salary+`"] [data-testid=delete-blocked]`)).
		ToHaveText(cs.T("msg.finance.delete_paid")))

	// HR may delete: the confirmation page, in both languages. Jan's
	// cancelled deduction of this month goes; last month's bonus sits in a
	// paid period: its delete is refused in its row; Petra's new one goes.
	extra := tx(petra, "allowance", "300.00")
	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err = hr.Goto(app.URL + "/drivers/" + jan + "/finance/" + deduction + "/delete")
	must(t, err)
	must(t, expect.Locator(hr.GetByTestId("confirm-delete")).ToBeVisible())
	app.Screenshots(t, hr, "finance-delete")
	app.CheckA11y(t, hr)
	must(t, hr.GetByTestId("confirm-delete-button").Click())
	must(t, waitURL(hr, app.URL+"/drivers/"+jan+"/finance"))
	must(t, expect.Locator(hr.Locator(`[data-testid=ledger-row][data-id="`+deduction+`"]`)).ToHaveCount(0))
	_, err = hr.Goto(app.URL + "/drivers/" + jan + "/finance/" + late.ID + "/delete")
	must(t, err)
	refused := hr.Locator(`[data-testid=ledger-row][data-id="` + late.ID + `"] [data-testid=row-error]`)
	must(t, expect.Locator(refused).ToBeVisible())
	must(t, expect.Locator(hr.GetByTestId("confirm-delete")).ToHaveCount(0))
	app.Screenshots(t, hr, "finance-ledger-refusal")
	_, err = hr.Goto(app.URL + "/drivers/" + petra + "/finance/" + extra + "/delete")
	must(t, err)
	must(t, hr.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	must(t, expect.Locator(hr.GetByTestId("confirm-delete")).ToContainText(cs.T("finance.delete.title")))
	app.Screenshots(t, hr, "finance-delete-cs")
	app.CheckA11y(t, hr)
	must(t, hr.GetByTestId("confirm-delete-button").Click())
	must(t, waitURL(hr, app.URL+"/drivers/"+petra+"/finance"))
	must(t, expect.Locator(hr.Locator(`[data-testid=ledger-row][data-id="`+extra+`"]`)).ToHaveCount(0))
}

// fitsPhone fails when the page is wider than a 390 px phone: its tables
// scroll inside their own box, the page itself never sideways.
func fitsPhone(t *testing.T, page playwright.Page) {
	t.Helper()
	defer restoreViewport(t, page)()
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	w, err := page.Evaluate(`() => document.documentElement.scrollWidth`)
	must(t, err)
	if n, ok := w.(int); !ok || n > phone.Width {
		t.Errorf("%s is %v px wide on a %d px phone", page.URL(), w, phone.Width)
	}
}
