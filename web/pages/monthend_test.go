package pages_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

// monthEndWorld is the finance world with money last month: Jan's
// approved salary and pending deduction, Petra's (office Ostrava) pending
// bonus.
type monthEndWorld struct {
	*financeWorld
	month              time.Time // last month's first day
	janPeriod, petraPd string
}

func newMonthEndWorld(t *testing.T) *monthEndWorld {
	w := &monthEndWorld{financeWorld: newFinanceWorld(t)}
	now := time.Now().In(pragueZone)
	w.month = time.Date(now.Year(), now.Month()-1, 1, 0, 0, 0, 0, time.UTC)
	day := w.month.AddDate(0, 0, 9).Format(time.DateOnly)
	post := func(driver uuid.UUID, typ, amount string) string {
		r := w.api.Post("/api/v0/drivers/"+driver.String()+"/finance",
			fmt.Sprintf(`{"transaction_type": %q, "amount": %s, "transaction_date": %q}`, typ, amount, day)).Expect(http.StatusCreated)
		return r.JSON()["id"].(string)
	}
	w.move(t, w.jan, post(w.jan, "base_salary", "30000.00"), "approved")
	post(w.jan, "deduction", "-250.00")
	post(w.petra, "bonus", "1500.50")
	for driver, into := range map[uuid.UUID]*string{w.jan: &w.janPeriod, w.petra: &w.petraPd} {
		if err := w.env.DB.QueryRow(context.Background(), `SELECT id FROM finance_periods WHERE driver_id = $1`, driver).Scan(into); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w *monthEndWorld) status(t *testing.T, period string) string {
	t.Helper()
	return webtest.Value[string](t, w.env, `SELECT status FROM finance_periods WHERE id = $1`, period)
}

func TestMonthEndPage(t *testing.T) {
	w := newMonthEndWorld(t)
	cs := i18n.CS
	month := w.month.Format("2006-01")
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "cs")

	// Last month by default: every driver's period, the pending counts,
	// the bulk buttons, the payroll links, the link to each driver's
	// periods.
	page := acc.get("/finance/month-end").expect(t, http.StatusOK)
	page.contains(t, `value="`+month+`"`, "Jan Novák", "Petra Svobodová",
		`data-id="`+w.janPeriod+`" data-driver="`+w.jan.String()+`" data-status="open"`, `data-id="`+w.petraPd+`"`,
		czk(cs, "30000.00"), czk(cs, "-250.00"), czk(cs, "29750.00"), czk(cs, "1500.50"),
		`name="period_id" value="`+w.janPeriod+`"`, `data-testid="bulk-close"`, `data-testid="bulk-pay"`, `name="all" value="1"`,
		`data-select-all="period_id"`,
		esc("/finance/payroll?period_start="+month+"-01&format=csv"), esc("/finance/payroll?period_start="+month+"-01&format=xlsx"),
		"/drivers/"+w.jan.String()+"/finance/periods#period-"+w.janPeriod,
		esc(cs.T("monthend.summary.pending", "count", "2", "periods", "2")),
		`href="/finance/month-end"`) // the navigation
	if n := strings.Count(page.Body, `data-testid="row-pending"`); n != 2 {
		t.Errorf("%d rows, want 2", n)
	}
	// Filters: an office; a month without periods; a month that cannot be
	// read (named, and last month shown).
	page = acc.get("/finance/month-end?month="+month+"&office_id="+w.office(t, page.Body)).expect(t, http.StatusOK)
	page.contains(t, "Petra Svobodová").lacks(t, `data-driver="`+w.jan.String()+`"`)
	acc.get("/finance/month-end?month=2001-01").expect(t, http.StatusOK).contains(t, `data-testid="monthend-empty"`)
	acc.get("/finance/month-end?month=jaro").expect(t, http.StatusOK).contains(t, `data-testid="monthend-problem"`, "Jan Novák")

	// Close Jan's period: first the confirmation, naming the pending
	// transaction a forced close closes over; nothing changes yet.
	form := url.Values{"action": {"close"}, "month": {month}, "period_id": {w.janPeriod}}
	page = acc.post("/finance/month-end", form).expect(t, http.StatusOK)
	page.contains(t, `data-testid="monthend-confirm" data-action="close"`,
		esc(cs.T("monthend.confirm.pending", "count", "1", "periods", "1")), `name="force" value="1"`,
		`name="confirmed" value="1"`, `name="period_id" value="`+w.janPeriod+`"`, `data-testid="confirm-submit"`)
	if s := w.status(t, w.janPeriod); s != "open" {
		t.Fatalf("the confirmation closed the period (%s)", s)
	}
	// Confirmed: the result per period, in words.
	form.Set("confirmed", "1")
	form.Set("force", "1")
	page = acc.post("/finance/month-end", form).expect(t, http.StatusOK)
	page.contains(t, `data-testid="monthend-results"`, esc(cs.T("monthend.results.close", "done", "1", "total", "1")), esc(cs.T("monthend.result.closed")))
	if s := w.status(t, w.janPeriod); s != "closed" {
		t.Fatalf("Jan's period is %s, want closed", s)
	}

	// All matching the filter, on every page: Jan's is skipped with the
	// reason in words, Petra's closes. The confirmation says one is
	// skipped.
	all := url.Values{"action": {"close"}, "month": {month}, "all": {"1"}}
	acc.post("/finance/month-end", all).expect(t, http.StatusOK).
		contains(t, esc(cs.T("monthend.confirm.skip.close", "count", "1", "selected", "2")), esc(cs.T("monthend.confirm.do.close", "count", "1")))
	all.Set("confirmed", "1")
	all.Set("force", "1")
	page = acc.post("/finance/month-end", all).expect(t, http.StatusOK)
	page.contains(t, esc(cs.T("monthend.results.close", "done", "1", "total", "2")), `data-testid="monthend-refusal"`)
	if n := strings.Count(page.Body, `data-testid="monthend-result" data-ok="false"`); n != 1 {
		t.Errorf("%d refused rows, want 1 (Jan's, already closed)", n)
	}
	// The reason names the periods' states in Czech words, not codes.
	page.contains(t, esc(cs.T("msg.finance.period_move", "status", cs.T("state.period.closed"),
		"from", cs.T("state.period.open"), "to", cs.T("state.period.closed")))).
		lacks(t, "ve stavu closed")
	if s := w.status(t, w.petraPd); s != "closed" {
		t.Errorf("Petra's period is %s, want closed", s)
	}

	// Mark paid: every closed period.
	pay := url.Values{"action": {"pay"}, "month": {month}, "all": {"1"}}
	acc.post("/finance/month-end", pay).expect(t, http.StatusOK).
		contains(t, `data-action="pay"`, esc(cs.T("monthend.confirm.movable.pay", "count", "2", "month", monthText(cs, w.month)))).lacks(t, `name="force"`)
	pay.Set("confirmed", "1")
	acc.post("/finance/month-end", pay).expect(t, http.StatusOK).contains(t, esc(cs.T("monthend.results.pay", "done", "2", "total", "2")))
	if s := w.status(t, w.janPeriod); s != "paid" {
		t.Errorf("Jan's period is %s, want paid", s)
	}

	// Nothing selected, or another company's period: refused or nothing
	// done, and the other company's period stays open.
	acc.post("/finance/month-end", url.Values{"action": {"close"}, "month": {month}}).expect(t, http.StatusUnprocessableEntity).
		contains(t, esc(cs.T("monthend.none_selected")))
	other := w.env.Company("Other", "free")
	otherDriver := w.env.Driver(other)
	w.env.As(other, auth.RoleHRManager).Post("/api/v0/drivers/"+otherDriver.String()+"/finance",
		fmt.Sprintf(`{"transaction_type": "bonus", "amount": 5, "transaction_date": %q}`, w.month.AddDate(0, 0, 2).Format(time.DateOnly))).Expect(http.StatusCreated)
	var foreign string
	if err := w.env.DB.QueryRow(context.Background(), `SELECT id FROM finance_periods WHERE driver_id = $1`, otherDriver).Scan(&foreign); err != nil {
		t.Fatal(err)
	}
	acc.post("/finance/month-end", url.Values{"action": {"close"}, "month": {month}, "period_id": {foreign}, "confirmed": {"1"}, "force": {"1"}}).
		expect(t, http.StatusOK).contains(t, esc(cs.T("monthend.results.close", "done", "0", "total", "0")))
	if s := w.status(t, foreign); s != "open" {
		t.Errorf("another company's period is %s", s)
	}

	// HR reads the month without the buttons and may not post; a
	// dispatcher may not open the page.
	hr := signIn(t, w.env, w.company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get("/finance/month-end?month="+month).expect(t, http.StatusOK).contains(t, "Jan Novák", esc(i18n.EN.T("monthend.intro.read"))).
		lacks(t, `data-testid="bulk-close"`, `name="period_id"`)
	hr.post("/finance/month-end", all).expect(t, http.StatusForbidden)
	disp := signIn(t, w.env, w.company, auth.RoleDispatcher, "disp@acme.test", "en")
	disp.get("/finance/month-end").expect(t, http.StatusForbidden)
	disp.get("/").expect(t, http.StatusOK).lacks(t, `href="/finance/month-end"`)
}

// The payroll download of the page: the month's file in the page's
// language.
func TestMonthEndPayrollDownload(t *testing.T) {
	w := newMonthEndWorld(t)
	month := w.month.Format("2006-01")
	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "cs")
	res := acc.get("/finance/payroll?period_start="+month+"-01&format=csv").expect(t, http.StatusOK)
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="payroll-`+month+`.csv"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	res.contains(t, "Osobní číslo,Jméno", "Jan Novák", "29750.00", "Petra Svobodová", "1500.50")
	acc.get("/finance/payroll?period_start="+month+"-15").expect(t, http.StatusUnprocessableEntity)

	// The ledger's export is named after the driver, not its id, in plain
	// ASCII (docs/finance.md, "Export").
	res = acc.get("/drivers/"+w.jan.String()+"/finance/export?format=csv").expect(t, http.StatusOK)
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="finance-DRV-0001-Jan-Novak-`) ||
		strings.Contains(cd, w.jan.String()) {
		t.Errorf("ledger export Content-Disposition %q", cd)
	}
}

// office finds the Ostrava office's id in the filter's choices.
func (w *monthEndWorld) office(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, ">Ostrava</option>")
	if i < 0 {
		t.Fatal("no office choice")
	}
	j := strings.LastIndex(body[:i], `value="`)
	return body[j+len(`value="`) : j+len(`value="`)+36]
}

// monthText is a month in words, as the page names it.
func monthText(lang i18n.Lang, m time.Time) string {
	return lang.T(fmt.Sprintf("rating.month.%d", int(m.Month())), "year", fmt.Sprint(m.Year()))
}
