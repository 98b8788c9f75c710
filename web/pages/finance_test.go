package pages_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

// financeWorld is a company with two drivers and an HR caller of the API
// to record transactions.
type financeWorld struct {
	env        *webtest.Env
	company    uuid.UUID
	api        *webtest.Caller
	jan, petra uuid.UUID
}

func newFinanceWorld(t *testing.T) *financeWorld {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	return &financeWorld{
		env: env, company: company, api: env.As(company, auth.RoleHRManager),
		jan: env.Driver(company, fixtures.Name("Jan", "Novák")),
		petra: env.Driver(company, fixtures.Name("Petra", "Svobodová"),
			fixtures.InOffice(fixtures.Office(t, env.DB, company, "Ostrava", fixtures.City("Ostrava", "CZ")))),
	}
}

// tx records a transaction through the API and returns its id.
func (w *financeWorld) tx(t *testing.T, driver uuid.UUID, typ, amount string, daysAgo int) string {
	t.Helper()
	day := time.Now().In(pragueZone).AddDate(0, 0, -daysAgo).Format(time.DateOnly)
	r := w.api.Post("/api/v0/drivers/"+driver.String()+"/finance",
		fmt.Sprintf(`{"transaction_type": %q, "amount": %s, "transaction_date": %q}`, typ, amount, day)).Expect(http.StatusCreated)
	return r.JSON()["id"].(string)
}

func (w *financeWorld) move(t *testing.T, driver uuid.UUID, id, status string) {
	t.Helper()
	w.api.Put("/api/v0/drivers/"+driver.String()+"/finance/"+id, map[string]any{"status": status}).Expect(http.StatusOK)
}

func (w *financeWorld) count(t *testing.T, driver uuid.UUID) int {
	t.Helper()
	return int(w.api.Get("/api/v0/drivers/" + driver.String() + "/finance").Expect(http.StatusOK).JSON()["total"].(float64))
}

var pragueZone, _ = time.LoadLocation("Europe/Prague")

func czk(lang i18n.Lang, s string) string { return lang.Money(decimal.RequireFromString(s), "CZK") }

// html-escaped text as the page writes it.
func esc(s string) string { return html.EscapeString(s) }

func TestFinanceQueue(t *testing.T) {
	w := newFinanceWorld(t)
	salary := w.tx(t, w.jan, "base_salary", "30000.00", 2)
	bonus := w.tx(t, w.petra, "bonus", "1500.50", 1)
	ded := w.tx(t, w.jan, "deduction", "-250.00", 1)
	old := w.tx(t, w.petra, "overtime", "100.00", 3)
	w.move(t, w.petra, old, "approved") // not pending: not in the default queue
	other := w.env.Company("Other", "free")
	foreign := w.env.As(other, auth.RoleHRManager).Post("/api/v0/drivers/"+w.env.Driver(other).String()+"/finance",
		`{"transaction_type": "bonus", "amount": 5, "transaction_date": "2026-01-05"}`).Expect(http.StatusCreated).JSON()["id"].(string)

	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "cs")
	cs := i18n.CS
	page := acc.get("/finance").expect(t, http.StatusOK)
	page.contains(t, `href="/finance"`, "Jan Novák", "Petra Svobodová", `data-id="`+salary+`"`, `data-id="`+bonus+`"`, `data-id="`+ded+`"`,
		"Čeká na schválení", "1–3 z 3",
		czk(cs, "31500.50"), czk(cs, "-250.00"), czk(cs, "31250.50"), `data-negative="true"`, "(srážka)")
	page.lacks(t, `data-id="`+old+`"`, foreign)
	// What static/live.js fetches again when a transaction changes: the
	// totals and rows alone, at the queue's address.
	acc.htmx("finance-queue").get("/finance?driver=novak").expect(t, http.StatusOK).
		contains(t, `id="finance-queue"`, `hx-get="/finance?driver=novak"`, `data-id="`+salary+`"`).lacks(t, "<html", `data-id="`+bonus+`"`)
	acc.plain()

	// Filters: a driver by name without accents, a status, a sort.
	acc.get("/finance?driver=novak").expect(t, http.StatusOK).contains(t, `data-id="`+salary+`"`).lacks(t, `data-id="`+bonus+`"`)
	page = acc.get("/finance").expect(t, http.StatusOK)
	office := regexp.MustCompile(`<option value="([0-9a-f-]{36})"[^>]*>Ostrava</option>`).FindStringSubmatch(page.Body)
	if office == nil {
		t.Fatalf("no office choice: %s", truncate(page.Body))
	}
	acc.get("/finance?office_id="+office[1]).expect(t, http.StatusOK).contains(t, `data-id="`+bonus+`"`).lacks(t, `data-id="`+salary+`"`)
	acc.get("/finance?status=approved").expect(t, http.StatusOK).contains(t, `data-id="`+old+`"`).lacks(t, `data-id="`+salary+`"`)
	page = acc.get("/finance?sort_by=amount&sort_order=asc").expect(t, http.StatusOK)
	if i, j := strings.Index(page.Body, `data-id="`+ded+`"`), strings.Index(page.Body, `data-id="`+salary+`"`); i < 0 || j < 0 || i > j {
		t.Errorf("amount ascending: the deduction must come before the salary")
	}
	// A refused filter is named and left out; the list still shows.
	acc.get("/finance?status=lost&sort_by=colour").expect(t, http.StatusOK).
		contains(t, `data-testid="filter-problem"`, `data-id="`+salary+`"`)

	// Bulk approve: each row's result; another company's id is refused as
	// not found and changes nothing.
	page = acc.post("/finance", url.Values{"action": {"approve"}, "id": {salary, bonus, foreign}, "back": {"/finance"}}).expect(t, http.StatusOK)
	page.contains(t, "Schváleno 2 z 3", esc(cs.T("msg.common.not_found.transaction")))
	if n := strings.Count(page.Body, `data-testid="bulk-result" data-ok="true"`); n != 2 {
		t.Errorf("%d rows done, want 2", n)
	}
	page.lacks(t, `data-testid="queue-row" data-id="`+salary+`"`) // no longer pending
	// Mark paid: the still pending deduction is refused with the reason.
	page = acc.post("/finance", url.Values{"action": {"pay"}, "id": {salary, ded}, "back": {"/finance?status=approved,pending"}}).expect(t, http.StatusOK)
	page.contains(t, "Vyplaceno 1 z 2", esc(cs.T("msg.finance.move", "from", "pending", "to", "paid")))
	// The refused row stays selected for another try.
	page.contains(t, `value="`+ded+`" id="sel-`+ded+`" checked`)
	acc.post("/finance", url.Values{"action": {"pay"}, "back": {"/finance"}}).expect(t, http.StatusUnprocessableEntity).
		contains(t, esc(cs.T("finance.bulk.none_selected")))

	// A dispatcher may not read finance; HR may read but the nav is there.
	disp := signIn(t, w.env, w.company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get("/finance").expect(t, http.StatusForbidden)
	disp.get("/").expect(t, http.StatusOK).lacks(t, `href="/finance"`)
	disp.post("/finance", url.Values{"action": {"approve"}, "id": {bonus}}).expect(t, http.StatusForbidden)
}

func TestFinanceLedgerPage(t *testing.T) {
	w := newFinanceWorld(t)
	ledger := "/drivers/" + w.jan.String() + "/finance"
	salary := w.tx(t, w.jan, "base_salary", "30000.00", 2)
	ded := w.tx(t, w.jan, "deduction", "-250.00", 1)
	paid := w.tx(t, w.jan, "bonus", "1000.00", 3)
	w.move(t, w.jan, paid, "approved")
	w.move(t, w.jan, paid, "paid")

	hr := signIn(t, w.env, w.company, auth.RoleHRManager, "hr@acme.test", "cs")
	cs := i18n.CS
	page := hr.get(ledger).expect(t, http.StatusOK)
	page.contains(t, "Finance – Jan Novák", `data-testid="card-mtd"`, `data-testid="card-ytd"`, `data-testid="card-lifetime"`,
		czk(cs, "31000.00"), czk(cs, "-250.00"), czk(cs, "30750.00"),
		esc(cs.T("msg.finance.delete_paid")), // the paid row says why it cannot be deleted
		ledger+"/export?format=csv", ledger+"/"+salary+"/delete")
	page.lacks(t, ledger+"/"+paid+"/delete")
	hr.get("/drivers/"+w.jan.String()).expect(t, http.StatusOK).contains(t, `href="`+ledger+`"`)
	// The summary follows the filters.
	hr.get(ledger+"?type=deduction").expect(t, http.StatusOK).contains(t, "1–1 z 1").lacks(t, `data-id="`+salary+`"`)

	// The form: the currency chosen from a list, the company's first; each
	// label says the word its messages quote ("Typ platby", not "Druh").
	hr.get(ledger+"/new").expect(t, http.StatusOK).
		contains(t, `<select id="field-currency" name="currency"`, `<option value="CZK" selected>CZK</option>`, `<option value="EUR">EUR</option>`,
			`<option value="PLN">PLN</option>`, `for="field-transaction_type" class="field-label">Typ platby</label>`,
			`for="field-transaction_date" class="field-label">Datum platby</label>`).
		lacks(t, `name="currency" value=`)
	refused := hr.post(ledger+"/new", url.Values{"transaction_type": {"bonus"}, "amount": {"5"}, "currency": {"XYZ"},
		"transaction_date": {time.Now().In(pragueZone).Format(time.DateOnly)}, "form_token": {uuid.NewString()}}).
		expect(t, http.StatusUnprocessableEntity)
	refused.contains(t, `data-testid="error-currency"`, esc(cs.T("msg.common.currency", "value", "XYZ")), "Neznámá měna: XYZ")

	// Create: the service's validation inline, the form alone for htmx.
	token := uuid.NewString()
	form := url.Values{"transaction_type": {"bonus"}, "amount": {"12,345"}, "transaction_date": {"2026-13-01"}, "form_token": {token}}
	page = hr.post(ledger+"/new", form).expect(t, http.StatusUnprocessableEntity)
	page.contains(t, `data-testid="error-amount"`, `data-testid="error-transaction_date"`, `aria-invalid="true"`, `value="12,345"`)
	hx := hr.htmx("transaction-form").post(ledger+"/new", form).expect(t, http.StatusUnprocessableEntity)
	hr.plain()
	if !strings.HasPrefix(strings.TrimSpace(hx.Body), `<form id="transaction-form"`) {
		t.Errorf("htmx answer is not the form alone: %s", truncate(hx.Body))
	}
	// The corrected form, sent twice (a double click): one transaction.
	before := w.count(t, w.jan)
	form.Set("amount", "1 250,50")
	form.Set("transaction_date", time.Now().In(pragueZone).Format(time.DateOnly))
	hr.post(ledger+"/new", form).expect(t, http.StatusSeeOther)
	again := hr.post(ledger+"/new", form).expect(t, http.StatusSeeOther)
	if loc := again.Header.Get("Location"); loc != ledger {
		t.Errorf("the repeat goes to %q, want %q", loc, ledger)
	}
	if n := w.count(t, w.jan); n != before+1 {
		t.Fatalf("%d transactions after a double submit, want %d", n, before+1)
	}
	hr.get(ledger).expect(t, http.StatusOK).contains(t, czk(cs, "1250.50"), esc(cs.T("finance.flash.already_saved")))

	// Row moves: approve, then approving again is refused in the row.
	hr.post(ledger+"/"+salary+"/status", url.Values{"status": {"approved"}, "back": {ledger}}).expect(t, http.StatusSeeOther)
	page = hr.post(ledger+"/"+salary+"/status", url.Values{"status": {"approved"}, "back": {ledger}}).expect(t, http.StatusConflict)
	if i := strings.Index(page.Body, `id="tx-`+salary+`"`); i < 0 || !strings.Contains(page.Body[i:], `data-testid="row-error"`) ||
		!strings.Contains(page.Body[i:], esc(cs.T("msg.finance.move", "from", "approved", "to", "approved"))) {
		t.Errorf("the refusal is not in the row: %s", truncate(page.Body))
	}
	// Editing an approved transaction's amount: refused above the form.
	hr.post(ledger+"/"+salary+"/edit", url.Values{"amount": {"1"}}).expect(t, http.StatusConflict).
		contains(t, esc(cs.T("msg.finance.approved_fixed")))
	hr.post(ledger+"/"+ded+"/edit", url.Values{"description": {"Pokuta za parkování"}}).expect(t, http.StatusSeeOther)

	// Delete: HR deletes a pending one; a paid one is refused with why.
	hr.get(ledger+"/"+paid+"/delete").expect(t, http.StatusConflict).contains(t, esc(cs.T("msg.finance.delete_paid")), `data-testid="row-error"`)
	hr.post(ledger+"/"+paid+"/delete", nil).expect(t, http.StatusConflict).contains(t, esc(cs.T("msg.finance.delete_paid")))
	hr.get(ledger+"/"+ded+"/delete").expect(t, http.StatusOK).contains(t, `data-testid="confirm-delete"`)
	hr.post(ledger+"/"+ded+"/delete", nil).expect(t, http.StatusSeeOther)
	// Approving it from a page shown before the delete: the ledger says so.
	hr.post(ledger+"/"+ded+"/status", url.Values{"status": {"approved"}, "back": {ledger}}).expect(t, http.StatusNotFound).
		contains(t, `data-testid="ledger-problem"`, esc(cs.T("msg.common.not_found.transaction")))
	// An accountant may not delete at all: the 403 page in its language.
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "cs")
	acc.get(ledger+"/"+paid+"/delete").expect(t, http.StatusForbidden).contains(t, `data-testid="error-403"`, cs.T("error.403.title"))
	acc.get(ledger).expect(t, http.StatusOK).lacks(t, `data-testid="delete-transaction"`).contains(t, esc(cs.T("msg.finance.delete_paid")))

	// The export button serves the filtered rows.
	exp := hr.get(ledger+"/export?status=paid&format=csv").expect(t, http.StatusOK)
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix([]byte(exp.Body), []byte("\ufeff")))).ReadAll()
	if err != nil || len(recs) != 2 || recs[1][9] != paid || recs[0][0] != "Datum" {
		t.Errorf("export %v %v", recs, err)
	}
	hr.get(ledger+"/export?format=pdf").expect(t, http.StatusUnprocessableEntity)
}

// TestFinancePeriodsPage: a period is closed from a confirmation that
// lists what is still pending and offers to close anyway; before its last
// day has passed it offers no close and says from when; a closed period is
// reopened with a reason; its transactions are offered no action and the
// ledger says why; HR sees none of it.
func TestFinancePeriodsPage(t *testing.T) {
	w := newFinanceWorld(t)
	ledger := "/drivers/" + w.jan.String() + "/finance"
	today := time.Now().In(pragueZone)
	w.tx(t, w.jan, "bonus", "100.00", 0)
	lastMonth := today.Day() + 3 // days ago: a day of last month
	a := w.tx(t, w.jan, "base_salary", "30000.00", lastMonth)
	ded := w.tx(t, w.jan, "deduction", "-250.00", lastMonth)
	w.move(t, w.jan, a, "approved")
	periodOf := func(start time.Time) string {
		var id string
		if err := w.env.DB.QueryRow(context.Background(), `SELECT id FROM finance_periods WHERE driver_id = $1 AND period_start = $2`,
			w.jan, start.Format(time.DateOnly)).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	thisStart := time.Date(today.Year(), today.Month(), 1, 0, 0, 0, 0, time.UTC)
	current, period := periodOf(thisStart), periodOf(thisStart.AddDate(0, -1, 0))
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en")
	en := i18n.EN
	closeURL, reopenURL := ledger+"/periods/"+period+"/close", ledger+"/periods/"+period+"/reopen"

	page := acc.get(ledger+"/periods").expect(t, http.StatusOK)
	page.contains(t, `data-id="`+period+`" data-status="open"`, czk(en, "30000.00"), czk(en, "-250.00"), czk(en, "29750.00"),
		`href="`+closeURL+`"`, ledger+"?period_id="+period,
		// This month cannot be closed before its end: no button, and why.
		`data-testid="closable-from"`, esc(en.T("finance.close.from", "date", en.Date(civilDate(thisStart.AddDate(0, 1, 0))))))
	page.lacks(t, "/periods/"+period+"/pay\"", `href="`+ledger+"/periods/"+current+`/close"`, `data-testid="reopen-form"`)
	acc.post(ledger+"/periods/"+period+"/pay", nil).expect(t, http.StatusConflict).contains(t, `data-testid="row-error"`)

	// The confirmation lists the pending deduction (not the approved
	// salary) and offers to close anyway.
	conf := acc.get(closeURL).expect(t, http.StatusOK)
	conf.contains(t, `data-testid="confirm-close"`, `data-testid="pending-row" data-id="`+ded+`"`, `name="force" value="true"`,
		esc(en.T("finance.close.pending", "count", "1")), en.T("finance.close.anyway"), ledger+"?period_id="+period+"&amp;status=pending%2Cdisputed")
	conf.lacks(t, `data-id="`+a+`"`)
	// A close without force (a form from before the deduction arrived):
	// the confirmation again, with the refusal.
	acc.post(closeURL, url.Values{}).expect(t, http.StatusConflict).
		contains(t, `data-testid="confirm-close"`, `data-testid="close-problem"`, esc(en.T("msg.finance.close_pending", "count", 1)),
			`data-testid="pending-row" data-id="`+ded+`"`)
	// This month has no confirmation, and closing it is refused in its row.
	if loc := acc.get(ledger+"/periods/"+current+"/close").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != ledger+"/periods" {
		t.Errorf("the confirmation of this month goes to %q", loc)
	}
	acc.post(ledger+"/periods/"+current+"/close", url.Values{"force": {"true"}}).expect(t, http.StatusConflict).
		contains(t, `data-testid="row-error"`, "it can be closed from")

	acc.post(closeURL, url.Values{"force": {"true"}}).expect(t, http.StatusSeeOther)
	page = acc.get(ledger+"/periods").expect(t, http.StatusOK)
	page.contains(t, `data-id="`+period+`" data-status="closed"`, `data-testid="reopen-form"`, ledger+"/periods/"+period+"/pay")
	page.lacks(t, `href="`+closeURL+`"`)
	acc.get(closeURL).expect(t, http.StatusSeeOther) // closed: no confirmation

	// Its transactions: no approve, edit or cancel, and the ledger says why.
	lp := acc.get(ledger+"?period_id="+period+"&status=all").expect(t, http.StatusOK)
	lp.contains(t, `data-testid="period-locked"`, esc(en.T("finance.locked.banner.closed")), `data-testid="row-locked"`, esc(en.T("finance.locked.closed")))
	lp.lacks(t, `data-testid="tx-approved"`, `data-testid="tx-cancelled"`, `data-testid="tx-paid"`, `data-testid="edit-transaction"`)
	// This month's bonus, in the whole ledger, still offers them.
	all := acc.get(ledger).expect(t, http.StatusOK)
	if n := strings.Count(all.Body, `data-testid="tx-approved"`); n != 1 {
		t.Errorf("%d approve buttons in the ledger, want 1 (this month's bonus)", n)
	}
	if n := strings.Count(all.Body, `data-testid="row-locked"`); n != 2 {
		t.Errorf("%d locked rows in the ledger, want 2", n)
	}

	// Reopen: a reason is required, said in the row.
	acc.post(reopenURL, url.Values{"reason": {"  "}}).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="row-error"`, esc(en.T("msg.common.required", "field", i18n.M("field.finance.reason"))))
	acc.post(reopenURL, url.Values{"reason": {"The deduction was wrong."}}).expect(t, http.StatusSeeOther)
	acc.get(ledger+"/periods").expect(t, http.StatusOK).
		contains(t, `data-id="`+period+`" data-status="open"`, `href="`+closeURL+`"`, esc(en.T("finance.reopen.done"))).lacks(t, `data-testid="reopen-form"`)
	acc.post(ledger+"/"+ded+"/status", url.Values{"status": {"cancelled"}, "back": {ledger}}).expect(t, http.StatusSeeOther)
	acc.get(closeURL).expect(t, http.StatusOK).contains(t, `data-testid="close-nothing-pending"`).lacks(t, `name="force"`)
	acc.post(closeURL, url.Values{}).expect(t, http.StatusSeeOther)

	// Paid: no reopen.
	acc.post(ledger+"/periods/"+period+"/pay", nil).expect(t, http.StatusSeeOther)
	acc.get(ledger+"/periods").expect(t, http.StatusOK).contains(t, `data-status="paid"`, "Paid ", czk(en, "30000.00")).lacks(t, `data-testid="reopen-form"`)
	acc.post(reopenURL, url.Values{"reason": {"Wrong account."}}).expect(t, http.StatusConflict).contains(t, esc(en.T("msg.finance.reopen_paid")))
	acc.get(ledger+"?status=paid").expect(t, http.StatusOK).contains(t, `data-id="`+a+`"`)
	acc.get(ledger+"?period_id="+period).expect(t, http.StatusOK).contains(t, esc(en.T("finance.locked.banner.paid")))

	// HR reads periods but may not close or reopen them: no buttons, and a 403.
	hr := signIn(t, w.env, w.company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get(ledger+"/periods").expect(t, http.StatusOK).lacks(t, "/close\"", "/pay\"", `data-testid="reopen-form"`, `data-testid="closable-from"`)
	hr.get(ledger+"/periods/"+current+"/close").expect(t, http.StatusForbidden)
	hr.post(ledger+"/periods/"+current+"/close", url.Values{"force": {"true"}}).expect(t, http.StatusForbidden)
	hr.post(reopenURL, url.Values{"reason": {"x"}}).expect(t, http.StatusForbidden)

	// Nor is a transaction of the paid period offered a delete or an edit
	// by its address: the ledger, with the refusal in its row (409).
	lock := esc(en.T("msg.finance.period_closed", "type", i18n.M("state.period_type.monthly"), "start", civilDate(thisStart.AddDate(0, -1, 0)),
		"end", civilDate(thisStart.AddDate(0, 0, -1)), "currency", "CZK", "status", i18n.M("state.period.paid")))
	hr.get(ledger+"/"+ded+"/delete").expect(t, http.StatusConflict).
		contains(t, `data-testid="row-error"`, lock).lacks(t, `data-testid="confirm-delete"`)
	acc.get(ledger+"/"+a+"/edit").expect(t, http.StatusConflict).
		contains(t, `data-testid="row-error"`, lock).lacks(t, `data-testid="save-transaction"`)
}

// civilDate is the calendar day of t.
func civilDate(t time.Time) civil.Date { return civil.DateOf(t) }
