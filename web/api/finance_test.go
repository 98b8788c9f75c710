package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// numbers decodes a response body keeping numbers as written, so amounts
// can be compared digit for digit ("1250.00", never a float).
func exactJSON(t *testing.T, r *webtest.Response) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
	return m
}

// expectMoney checks that m[key] is the JSON number written exactly as want.
func expectMoney(t *testing.T, m map[string]any, key, want string) {
	t.Helper()
	got, ok := m[key].(json.Number)
	if !ok || string(got) != want {
		t.Fatalf("%s = %v (%T), want %s; in %v", key, m[key], m[key], want, m)
	}
}

func asObject(t *testing.T, v any) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %#v", v)
	}
	return m
}

// financeFixture is a company with an HR manager, an accountant and a driver.
type financeFixture struct {
	env        *webtest.Env
	company    uuid.UUID
	hr, acc    *webtest.Caller
	driver     uuid.UUID
	driverMail string
}

func newFinanceFixture(t *testing.T) *financeFixture {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	mail := "jan.novak@example.test"
	return &financeFixture{
		env: env, company: company,
		hr:     env.As(company, auth.RoleHRManager),
		acc:    env.As(company, auth.RoleAccountant),
		driver: env.Driver(company, fixtures.Email(mail), fixtures.HireDate("2025-10-20")), driverMail: mail,
	}
}

func (f *financeFixture) path(driver uuid.UUID, rest string) string {
	return "/api/v0/drivers/" + driver.String() + "/finance" + rest
}

// create records a transaction and returns its body.
func (f *financeFixture) create(t *testing.T, typ, amount, date string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"transaction_type": %q, "amount": %s, "transaction_date": %q}`, typ, amount, date)
	return exactJSON(t, f.hr.Post(f.path(f.driver, ""), body).Expect(http.StatusCreated))
}

func (f *financeFixture) move(t *testing.T, id any, status string, want int) map[string]any {
	t.Helper()
	r := f.acc.Put(f.path(f.driver, "/"+id.(string)), map[string]any{"status": status})
	if want != http.StatusOK {
		r.ExpectError(want, "Conflict")
		return nil
	}
	return exactJSON(t, r.Expect(http.StatusOK))
}

// checkPeriodTotals fails unless every period's stored totals equal the sums
// of the live, not cancelled transactions dated inside it.
func (f *financeFixture) checkPeriodTotals(t *testing.T) {
	t.Helper()
	rows, err := f.env.DB.Query(context.Background(), `
		SELECT p.period_start::text, p.total_earnings::text, p.total_deductions::text, p.net_amount::text, p.transactions_count,
			s.e::numeric(12,2)::text, s.d::numeric(12,2)::text, (s.e - s.d)::numeric(12,2)::text, s.n
		FROM finance_periods p, LATERAL (
			SELECT COALESCE(sum(amount) FILTER (WHERE amount > 0), 0) AS e, COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0) AS d, count(*) AS n
			FROM finance_transactions t
			WHERE t.driver_id = p.driver_id AND t.currency = p.currency AND t.transaction_date BETWEEN p.period_start AND p.period_end
				AND t.deleted_at IS NULL AND t.status <> 'cancelled') s`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var start, e, d, net, we, wd, wnet string
		var n, wn int
		if err := rows.Scan(&start, &e, &d, &net, &n, &we, &wd, &wnet, &wn); err != nil {
			t.Fatal(err)
		}
		if e != we || d != wd || net != wnet || n != wn {
			t.Fatalf("period %s: stored %s/%s/%s/%d, rows say %s/%s/%s/%d", start, e, d, net, n, we, wd, wnet, wn)
		}
	}
}

// prague is the test companies' time zone, in which "today" is taken.
var prague, _ = time.LoadLocation("Europe/Prague")

func pragueToday() time.Time { return time.Now().In(prague) }

func pragueDay(offset int) string { return pragueToday().AddDate(0, 0, offset).Format(time.DateOnly) }

func TestFinanceCreateAndExactSums(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	date := pragueDay(0)
	a := f.create(t, "overtime", `0.10`, date)
	f.create(t, "overtime", `"0.20"`, date) // a numeric string
	if a["status"] != "pending" || a["created_by"] != "Test hr_manager" || a["period_id"] == nil || a["penalty_id"] != nil {
		t.Fatalf("created %v", a)
	}
	expectMoney(t, a, "amount", "0.10")
	if a["currency"] != "CZK" || a["transaction_date"] != date {
		t.Fatalf("currency/date %v %v", a["currency"], a["transaction_date"])
	}
	big := exactJSON(t, f.hr.Post(f.path(f.driver, ""), map[string]any{
		"transaction_type": "base_salary", "category": "salary", "amount": "99999999.99", "currency": "czk",
		"transaction_date": date, "description": "March salary", "reference": "PAY-1", "metadata": map[string]any{"k": "v"},
	}).Expect(http.StatusCreated))
	expectMoney(t, big, "amount", "99999999.99")
	if big["currency"] != "CZK" || big["reference"] != "PAY-1" || asObject(t, big["metadata"])["k"] != "v" {
		t.Fatalf("created %v", big)
	}
	f.create(t, "deduction", `-0.05`, date)

	list := exactJSON(t, f.acc.Get(f.path(f.driver, "?type=overtime")).Expect(http.StatusOK))
	sum := asObject(t, list["summary"])
	expectMoney(t, sum, "total_earnings", "0.30")
	expectMoney(t, sum, "net_amount", "0.30")
	if list["total"] != json.Number("2") || sum["currency"] != "CZK" {
		t.Fatalf("list %v", list)
	}
	// The summary covers the whole filtered set, not the page.
	list = exactJSON(t, f.acc.Get(f.path(f.driver, "?per_page=1")).Expect(http.StatusOK))
	sum = asObject(t, list["summary"])
	expectMoney(t, sum, "total_earnings", "100000000.29")
	expectMoney(t, sum, "total_deductions", "0.05")
	expectMoney(t, sum, "total_penalties", "0.00")
	expectMoney(t, sum, "net_amount", "100000000.24")
	if len(list["data"].([]any)) != 1 || list["total"] != json.Number("4") || list["last_page"] != json.Number("4") {
		t.Fatalf("page %v", list)
	}
	periods := exactJSON(t, f.acc.Get(f.path(f.driver, "/periods")).Expect(http.StatusOK))["data"].([]any)
	if len(periods) != 1 {
		t.Fatalf("periods %v", periods)
	}
	p := asObject(t, periods[0])
	expectMoney(t, p, "total_earnings", "100000000.29")
	expectMoney(t, p, "total_deductions", "0.05")
	expectMoney(t, p, "net_amount", "100000000.24")
	if p["transactions_count"] != json.Number("4") || p["period_type"] != "monthly" || p["status"] != "open" ||
		p["period_start"] != pragueToday().Format("2006-01")+"-01" {
		t.Fatalf("period %v", p)
	}
}

func TestFinanceValidation(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	date := pragueDay(0)
	tests := []struct {
		name, body, field string
	}{
		{"empty", `{}`, "amount"},
		{"no type", `{"amount": 1, "transaction_date": "` + date + `"}`, "transaction_type"},
		{"no date", `{"transaction_type": "bonus", "amount": 1}`, "transaction_date"},
		{"three decimals", `{"transaction_type": "bonus", "amount": 12.345, "transaction_date": "` + date + `"}`, "amount"},
		{"three decimals string", `{"transaction_type": "bonus", "amount": "12.345", "transaction_date": "` + date + `"}`, "amount"},
		{"too large", `{"transaction_type": "bonus", "amount": 100000000, "transaction_date": "` + date + `"}`, "amount"},
		{"too small", `{"transaction_type": "deduction", "amount": "-100000000.00", "transaction_date": "` + date + `"}`, "amount"},
		{"not a number", `{"transaction_type": "bonus", "amount": "12,50", "transaction_date": "` + date + `"}`, "amount"},
		{"bool amount", `{"transaction_type": "bonus", "amount": true, "transaction_date": "` + date + `"}`, "amount"},
		{"negative earning", `{"transaction_type": "bonus", "amount": -5, "transaction_date": "` + date + `"}`, "amount"},
		{"positive deduction", `{"transaction_type": "deduction", "amount": 5, "transaction_date": "` + date + `"}`, "amount"},
		{"unknown type", `{"transaction_type": "gift", "amount": 5, "transaction_date": "` + date + `"}`, "transaction_type"},
		{"bad date", `{"transaction_type": "bonus", "amount": 5, "transaction_date": "2026-02-30"}`, "transaction_date"},
		{"bad currency", `{"transaction_type": "bonus", "amount": 5, "currency": "KC", "transaction_date": "` + date + `"}`, "currency"},
		{"metadata array", `{"transaction_type": "bonus", "amount": 5, "metadata": [], "transaction_date": "` + date + `"}`, "metadata"},
		{"long reference", `{"transaction_type": "bonus", "amount": 5, "reference": "` + string(bytes.Repeat([]byte("x"), 101)) + `", "transaction_date": "` + date + `"}`, "reference"},
		{"unknown order", `{"transaction_type": "bonus", "amount": 5, "order_id": "` + uuid.NewString() + `", "transaction_date": "` + date + `"}`, "order_id"},
		{"status on create", `{"transaction_type": "bonus", "amount": 5, "status": "paid", "transaction_date": "` + date + `"}`, "status"},
		{"wrong type", `{"transaction_type": 5, "amount": 5, "transaction_date": "` + date + `"}`, "transaction_type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := f.hr.Post(f.path(f.driver, ""), tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if _, ok := asObject(t, m["errors"])[tt.field]; !ok {
				t.Fatalf("errors %v, want a message for %s", m["errors"], tt.field)
			}
		})
	}
	// An unknown currency is refused in words; the list's filter too.
	m := f.hr.Post(f.path(f.driver, ""), `{"transaction_type": "bonus", "amount": 5, "currency": "XYZ", "transaction_date": "`+date+`"}`).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if got := asObject(t, m["errors"])["currency"]; fmt.Sprint(got) != "[Unknown currency: XYZ; use a three-letter code such as EUR.]" {
		t.Errorf("currency XYZ: %v", got)
	}
	m = f.hr.Get(f.path(f.driver, "?currency=ABC")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if got := asObject(t, m["errors"])["currency"]; fmt.Sprint(got) != "[Unknown currency: ABC; use a three-letter code such as EUR.]" {
		t.Errorf("filter currency ABC: %v", got)
	}
	f.hr.Post(f.path(f.driver, ""), `{"transaction_type": "bonus",`).ExpectError(http.StatusBadRequest, "BadRequest")
	f.hr.Get(f.path(f.driver, "?from_date=yesterday")).ExpectError(http.StatusBadRequest, "BadRequest")
	f.hr.Get(f.path(f.driver, "?status=open")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Get(f.path(f.driver, "?period_id="+uuid.NewString())).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Get(f.path(f.driver, "/aggregates?type=weekly")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Get(f.path(f.driver, "/periods?year=abc")).ExpectError(http.StatusBadRequest, "BadRequest")
	// Nothing was written by the refused requests.
	var n int
	if err := f.env.DB.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM finance_transactions) + (SELECT count(*) FROM finance_periods)`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after refused requests: %d, %v", n, err)
	}
}

func TestFinancePermissions(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	env := f.env
	tx := f.create(t, "bonus", "10", pragueDay(0))
	txPath := f.path(f.driver, "/"+tx["id"].(string))
	other := env.Driver(f.company, fixtures.Email("other@example.test"))
	me := env.As(f.company, auth.RoleDriver, f.driverMail)
	dispatcher := env.As(f.company, auth.RoleDispatcher)
	admin := env.As(f.company, auth.RoleAdmin)
	stranger := env.As(env.Company("Other", "free"), auth.RoleAdmin)
	body := map[string]any{"transaction_type": "bonus", "amount": 1, "transaction_date": pragueDay(0)}

	// Reads: admin, HR, accountant, a driver its own.
	for _, c := range []*webtest.Caller{admin, f.hr, f.acc, me} {
		for _, p := range []string{"", "/periods", "/aggregates"} {
			c.Get(f.path(f.driver, p)).Expect(http.StatusOK)
		}
	}
	dispatcher.Get(f.path(f.driver, "")).ExpectError(http.StatusForbidden, "Forbidden")
	me.Get(f.path(other, "")).ExpectError(http.StatusForbidden, "AccessDenied")
	me.Get(f.path(other, "/aggregates")).ExpectError(http.StatusForbidden, "AccessDenied")
	stranger.Get(f.path(f.driver, "")).ExpectError(http.StatusForbidden, "AccessDenied")
	admin.Get(f.path(uuid.New(), "")).ExpectError(http.StatusNotFound, "NotFound")
	admin.Get("/api/v0/drivers/not-a-uuid/finance").ExpectError(http.StatusNotFound, "NotFound")
	// Role before existence: a dispatcher gets 403 even for an unknown driver.
	dispatcher.Get(f.path(uuid.New(), "")).ExpectError(http.StatusForbidden, "Forbidden")

	// Writes: admin, HR, accountant create and update; only admin and HR delete.
	me.Post(f.path(f.driver, ""), body).ExpectError(http.StatusForbidden, "Forbidden")
	dispatcher.Post(f.path(f.driver, ""), body).ExpectError(http.StatusForbidden, "Forbidden")
	stranger.Post(f.path(f.driver, ""), body).ExpectError(http.StatusForbidden, "AccessDenied")
	admin.Post(f.path(f.driver, ""), body).Expect(http.StatusCreated)
	f.acc.Post(f.path(f.driver, ""), body).Expect(http.StatusCreated)
	me.Put(txPath, map[string]any{"description": "x"}).ExpectError(http.StatusForbidden, "Forbidden")
	f.acc.Put(txPath, map[string]any{"description": "x"}).Expect(http.StatusOK)
	f.acc.Delete(txPath).ExpectError(http.StatusForbidden, "Forbidden")
	stranger.Delete(txPath).ExpectError(http.StatusForbidden, "AccessDenied")
	// A transaction id under another driver is 404.
	admin.Put(f.path(other, "/"+tx["id"].(string)), map[string]any{"description": "x"}).ExpectError(http.StatusNotFound, "NotFound")
	admin.Delete(f.path(other, "/"+tx["id"].(string))).ExpectError(http.StatusNotFound, "NotFound")
	admin.Delete(f.path(f.driver, "/"+uuid.NewString())).ExpectError(http.StatusNotFound, "NotFound")
	f.hr.Delete(txPath).Expect(http.StatusNoContent)
	f.hr.Delete(txPath).ExpectError(http.StatusNotFound, "NotFound")

	// Periods: close and pay for admin and accountant only (a past month:
	// this one cannot be closed yet).
	period := map[string]any{"id": f.create(t, "bonus", "10", pragueMonth(1).String())["period_id"]}
	closePath := f.path(f.driver, "/periods/"+period["id"].(string)+"/close")
	f.hr.Post(closePath, nil).ExpectError(http.StatusForbidden, "Forbidden")
	me.Post(closePath, nil).ExpectError(http.StatusForbidden, "Forbidden")
	stranger.Post(closePath, nil).ExpectError(http.StatusForbidden, "AccessDenied")
	admin.Post(f.path(other, "/periods/"+period["id"].(string)+"/close"), nil).ExpectError(http.StatusNotFound, "NotFound")
	admin.Post(closePath, map[string]any{"force": true}).Expect(http.StatusOK)
}

// TestFinanceStatusTable walks every (status, requested status) pair of the
// workflow: the allowed moves answer 200 with who/when recorded, every other
// one 409.
func TestFinanceStatusTable(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	// How to reach each starting status from pending.
	paths := map[string][]string{
		"pending":   nil,
		"approved":  {"approved"},
		"paid":      {"approved", "paid"},
		"cancelled": {"cancelled"},
	}
	allowed := map[string]bool{
		"pending>approved": true, "pending>cancelled": true,
		"approved>paid": true, "approved>cancelled": true,
	}
	for from, steps := range paths {
		for _, to := range []string{"pending", "approved", "paid", "cancelled", "disputed"} {
			t.Run(from+">"+to, func(t *testing.T) {
				tx := f.create(t, "bonus", "10", pragueDay(0))
				for _, s := range steps {
					f.move(t, tx["id"], s, http.StatusOK)
				}
				if !allowed[from+">"+to] {
					f.move(t, tx["id"], to, http.StatusConflict)
					return
				}
				got := f.move(t, tx["id"], to, http.StatusOK)
				if got["status"] != to {
					t.Fatalf("status %v, want %s", got["status"], to)
				}
				switch to {
				case "approved":
					if got["approved_by"] != "Test accountant" || got["approved_at"] == nil || got["paid_at"] != nil {
						t.Fatalf("approved %v", got)
					}
				case "paid":
					if got["paid_by"] != "Test accountant" || got["paid_at"] == nil || got["payment_date"] != pragueDay(0) || got["approved_by"] == nil {
						t.Fatalf("paid %v", got)
					}
				case "cancelled":
					if got["paid_at"] != nil || got["payment_date"] != nil {
						t.Fatalf("cancelled %v", got)
					}
				}
			})
		}
	}

	t.Run("payment date given", func(t *testing.T) {
		tx := f.create(t, "bonus", "10", pragueDay(0))
		f.move(t, tx["id"], "approved", http.StatusOK)
		got := exactJSON(t, f.acc.Put(f.path(f.driver, "/"+tx["id"].(string)), map[string]any{"status": "paid", "payment_date": "2026-01-31"}).Expect(http.StatusOK))
		if got["payment_date"] != "2026-01-31" {
			t.Fatalf("payment_date %v", got["payment_date"])
		}
		// payment_date without the move to paid is an input error.
		tx = f.create(t, "bonus", "10", pragueDay(0))
		f.acc.Put(f.path(f.driver, "/"+tx["id"].(string)), map[string]any{"payment_date": "2026-01-31"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	})

	t.Run("edits by status", func(t *testing.T) {
		tx := f.create(t, "bonus", "10", pragueDay(0))
		p := f.path(f.driver, "/"+tx["id"].(string))
		got := exactJSON(t, f.acc.Put(p, map[string]any{"amount": "12.5", "description": "fixed"}).Expect(http.StatusOK))
		expectMoney(t, got, "amount", "12.50")
		f.move(t, tx["id"], "approved", http.StatusOK)
		f.acc.Put(p, map[string]any{"amount": "13"}).ExpectError(http.StatusConflict, "Conflict")
		f.acc.Put(p, map[string]any{"description": "still fine"}).Expect(http.StatusOK)
		f.move(t, tx["id"], "paid", http.StatusOK)
		f.acc.Put(p, map[string]any{"description": "too late"}).ExpectError(http.StatusConflict, "Conflict")
		// Input errors come before state rules.
		f.acc.Put(p, map[string]any{"amount": "1.234"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		f.acc.Put(p, map[string]any{"status": "done"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	})
}

func TestFinanceDeleteRules(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	old := f.create(t, "bonus", "10", pragueDay(-91))
	recent := f.create(t, "bonus", "20", pragueDay(-89))
	paid := f.create(t, "bonus", "30", pragueDay(0))
	f.move(t, paid["id"], "approved", http.StatusOK)
	f.move(t, paid["id"], "paid", http.StatusOK)
	cancelled := f.create(t, "bonus", "40", pragueDay(0))
	f.move(t, cancelled["id"], "cancelled", http.StatusOK)

	f.hr.Delete(f.path(f.driver, "/"+old["id"].(string))).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Delete(f.path(f.driver, "/"+paid["id"].(string))).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Delete(f.path(f.driver, "/"+recent["id"].(string))).Expect(http.StatusNoContent)
	f.hr.Delete(f.path(f.driver, "/"+cancelled["id"].(string))).Expect(http.StatusNoContent)

	list := exactJSON(t, f.hr.Get(f.path(f.driver, "")).Expect(http.StatusOK))
	if list["total"] != json.Number("2") {
		t.Fatalf("total %v after deletes", list["total"])
	}
	// The deleted transactions no longer count in their periods.
	f.checkPeriodTotals(t)
	var action string
	if err := f.env.DB.QueryRow(context.Background(), `SELECT action FROM audit_logs WHERE entity_id = $1 ORDER BY created_at DESC LIMIT 1`,
		recent["id"]).Scan(&action); err != nil || action != "deleted" {
		t.Fatalf("audit action %q, %v", action, err)
	}
}

// TestFinanceConcurrentCreates: 50 creates into one period at once; the
// period's totals must equal the sums of its rows (no lost update).
func TestFinanceConcurrentCreates(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	date := pragueDay(0)
	var wg sync.WaitGroup
	errs := make(chan string, 50)
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			typ, amount := "bonus", fmt.Sprintf("%d.%02d", i+1, i)
			if i%5 == 0 {
				typ, amount = "deduction", fmt.Sprintf("-%d.01", i)
			}
			body := fmt.Sprintf(`{"transaction_type": %q, "amount": %q, "transaction_date": %q}`, typ, amount, date)
			r := f.hr.Post(f.path(f.driver, ""), body)
			if r.Status != http.StatusCreated {
				errs <- fmt.Sprintf("%d: %s", r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	var earnings, deductions decimal.Decimal
	var n int
	if err := f.env.DB.QueryRow(context.Background(), `
		SELECT COALESCE(sum(amount) FILTER (WHERE amount > 0), 0)::text, COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0)::text, count(*)
		FROM finance_transactions WHERE driver_id = $1`, f.driver).Scan(&earnings, &deductions, &n); err != nil {
		t.Fatal(err)
	}
	periods := exactJSON(t, f.hr.Get(f.path(f.driver, "/periods")).Expect(http.StatusOK))["data"].([]any)
	if len(periods) != 1 || n != 50 {
		t.Fatalf("%d periods, %d rows", len(periods), n)
	}
	p := asObject(t, periods[0])
	expectMoney(t, p, "total_earnings", earnings.StringFixed(2))
	expectMoney(t, p, "total_deductions", deductions.StringFixed(2))
	expectMoney(t, p, "net_amount", earnings.Sub(deductions).StringFixed(2))
	if p["transactions_count"] != json.Number("50") {
		t.Fatalf("transactions_count %v", p["transactions_count"])
	}
}

func TestFinanceClosedAndPaidPeriods(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	admin := f.env.As(f.company, auth.RoleAdmin)
	pending := f.create(t, "bonus", "10", "2026-01-10")
	approved := f.create(t, "base_salary", "1000", "2026-01-20")
	f.move(t, approved["id"], "approved", http.StatusOK)
	elsewhere := f.create(t, "bonus", "5", "2026-02-10")
	period := asObject(t, exactJSON(t, f.acc.Get(f.path(f.driver, "/periods?year=2026&status=open&period_type=monthly")).Expect(http.StatusOK))["data"].([]any)[1])
	if period["period_start"] != "2026-01-01" || period["period_end"] != "2026-01-31" {
		t.Fatalf("period %v", period)
	}
	pid := period["id"].(string)

	f.acc.Post(f.path(f.driver, "/periods/"+pid+"/pay"), nil).ExpectError(http.StatusConflict, "Conflict")   // open: close first
	f.acc.Post(f.path(f.driver, "/periods/"+pid+"/close"), nil).ExpectError(http.StatusConflict, "Conflict") // pending inside
	closed := exactJSON(t, f.acc.Post(f.path(f.driver, "/periods/"+pid+"/close"), map[string]any{"force": true}).Expect(http.StatusOK))
	if closed["status"] != "closed" || closed["closed_by"] != "Test accountant" || closed["closed_at"] == nil {
		t.Fatalf("closed %v", closed)
	}
	f.acc.Post(f.path(f.driver, "/periods/"+pid+"/close"), nil).ExpectError(http.StatusConflict, "Conflict")

	// Nothing dated inside it may be created, changed, deleted, or moved in or out.
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": 1, "transaction_date": "2026-01-31"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Put(f.path(f.driver, "/"+pending["id"].(string)), map[string]any{"description": "x"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Put(f.path(f.driver, "/"+pending["id"].(string)), map[string]any{"status": "approved"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Put(f.path(f.driver, "/"+pending["id"].(string)), map[string]any{"transaction_date": "2026-02-01"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Put(f.path(f.driver, "/"+elsewhere["id"].(string)), map[string]any{"transaction_date": "2026-01-15"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Delete(f.path(f.driver, "/"+pending["id"].(string))).ExpectError(http.StatusConflict, "Conflict")
	// Another month and another currency are unaffected.
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": 1, "currency": "EUR", "transaction_date": "2026-01-31"}).Expect(http.StatusCreated)
	f.hr.Put(f.path(f.driver, "/"+elsewhere["id"].(string)), map[string]any{"amount": "6"}).Expect(http.StatusOK)

	paid := exactJSON(t, admin.Post(f.path(f.driver, "/periods/"+pid+"/pay"), map[string]any{"payment_date": "2026-02-05"}).Expect(http.StatusOK))
	if paid["status"] != "paid" || paid["paid_by"] != "Test admin" || paid["paid_at"] == nil {
		t.Fatalf("paid %v", paid)
	}
	expectMoney(t, paid, "total_earnings", "1010.00")
	f.acc.Post(f.path(f.driver, "/periods/"+pid+"/pay"), nil).ExpectError(http.StatusConflict, "Conflict")
	f.acc.Post(f.path(f.driver, "/periods/"+pid+"/close"), nil).ExpectError(http.StatusConflict, "Conflict")

	list := exactJSON(t, f.acc.Get(f.path(f.driver, "?period_id="+pid)).Expect(http.StatusOK))
	for _, item := range list["data"].([]any) {
		tx := asObject(t, item)
		switch tx["id"] {
		case approved["id"]:
			if tx["status"] != "paid" || tx["payment_date"] != "2026-02-05" || tx["paid_by"] != "Test admin" {
				t.Fatalf("approved transaction after pay: %v", tx)
			}
		case pending["id"]:
			if tx["status"] != "pending" {
				t.Fatalf("pending transaction after pay: %v", tx)
			}
		default:
			t.Fatalf("unexpected transaction in period: %v", tx)
		}
	}
	if list["total"] != json.Number("2") {
		t.Fatalf("period list total %v", list["total"])
	}
	f.acc.Post(f.path(f.driver, "/periods/"+uuid.NewString()+"/close"), nil).ExpectError(http.StatusNotFound, "NotFound")
	f.checkPeriodTotals(t)
}

func TestFinanceMoveBetweenPeriods(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	tx := f.create(t, "bonus", "10.50", "2026-03-31")
	f.create(t, "bonus", "1", "2026-03-01")
	moved := exactJSON(t, f.hr.Put(f.path(f.driver, "/"+tx["id"].(string)), map[string]any{"transaction_date": "2026-04-01", "amount": 11}).Expect(http.StatusOK))
	if moved["period_id"] == tx["period_id"] {
		t.Fatal("period_id did not change with the month")
	}
	totals := map[string]string{}
	counts := map[string]any{}
	for _, p := range exactJSON(t, f.hr.Get(f.path(f.driver, "/periods")).Expect(http.StatusOK))["data"].([]any) {
		pm := asObject(t, p)
		totals[pm["period_start"].(string)] = string(pm["total_earnings"].(json.Number))
		counts[pm["period_start"].(string)] = pm["transactions_count"]
	}
	if totals["2026-03-01"] != "1.00" || totals["2026-04-01"] != "11.00" || counts["2026-03-01"] != json.Number("1") {
		t.Fatalf("totals %v counts %v", totals, counts)
	}
	f.checkPeriodTotals(t)
}

func TestFinanceCurrencies(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": "100", "currency": "EUR", "transaction_date": "2026-05-05"}).Expect(http.StatusCreated)
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "deduction", "amount": "-20", "currency": "EUR", "transaction_date": "2026-05-06"}).Expect(http.StatusCreated)
	// Only EUR so far: the summary is in EUR.
	sum := asObject(t, exactJSON(t, f.hr.Get(f.path(f.driver, "")).Expect(http.StatusOK))["summary"])
	if sum["currency"] != "EUR" {
		t.Fatalf("summary %v", sum)
	}
	f.create(t, "base_salary", "30000", "2026-05-05")
	list := exactJSON(t, f.hr.Get(f.path(f.driver, "")).Expect(http.StatusOK))
	sum = asObject(t, list["summary"])
	if sum["currency"] != "CZK" {
		t.Fatalf("summary %v", sum)
	}
	expectMoney(t, sum, "net_amount", "30000.00")
	sums := list["summaries"].([]any)
	if len(sums) != 2 || asObject(t, sums[0])["currency"] != "CZK" || asObject(t, sums[1])["currency"] != "EUR" {
		t.Fatalf("summaries %v", sums)
	}
	expectMoney(t, asObject(t, sums[1]), "net_amount", "80.00")
	eur := asObject(t, exactJSON(t, f.hr.Get(f.path(f.driver, "?currency=eur")).Expect(http.StatusOK))["summary"])
	expectMoney(t, eur, "total_deductions", "20.00")
	// One monthly period per currency.
	periods := exactJSON(t, f.hr.Get(f.path(f.driver, "/periods")).Expect(http.StatusOK))["data"].([]any)
	if len(periods) != 2 {
		t.Fatalf("periods %v", periods)
	}
	agg := exactJSON(t, f.hr.Get(f.path(f.driver, "/aggregates?type=lifetime&reference_date=2026-05-31&currency=EUR")).Expect(http.StatusOK))
	expectMoney(t, asObject(t, agg["lifetime"]), "net_amount", "80.00")
}

// TestFinanceAggregates checks the aggregates against a hand-computed
// fixture that crosses a month and a year boundary, and against the list.
func TestFinanceAggregates(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)                           // hire_date 2025-10-20
	f.create(t, "base_salary", "1000.00", "2025-11-10") // lifetime only
	f.create(t, "bonus", "200.50", "2025-12-31")        // year boundary: lifetime only
	f.create(t, "deduction", "-50.25", "2025-12-31")
	f.create(t, "base_salary", "3000.00", "2026-01-01") // ytd
	f.create(t, "deduction", "-100.00", "2026-01-20")
	f.create(t, "penalty", "-75.00", "2026-01-31") // month boundary: ytd, not mtd
	f.create(t, "overtime", "0.10", "2026-02-01")  // mtd
	f.create(t, "overtime", "0.20", "2026-02-10")  // mtd, on the reference date
	f.create(t, "bonus", "999.00", "2026-02-11")   // after the reference date
	cancelled := f.create(t, "bonus", "500.00", "2026-02-05")
	f.move(t, cancelled["id"], "cancelled", http.StatusOK)

	agg := exactJSON(t, f.acc.Get(f.path(f.driver, "/aggregates?reference_date=2026-02-10")).Expect(http.StatusOK))
	want := map[string]map[string]string{
		"mtd":      {"total_earnings": "0.30", "total_deductions": "0.00", "total_penalties": "0.00", "net_amount": "0.30", "avg_monthly_earnings": "0.30"},
		"ytd":      {"total_earnings": "3000.30", "total_deductions": "100.00", "total_penalties": "75.00", "net_amount": "2825.30", "avg_monthly_earnings": "1500.15"},
		"lifetime": {"total_earnings": "4200.80", "total_deductions": "150.25", "total_penalties": "75.00", "net_amount": "3975.55", "avg_monthly_earnings": "1400.27"},
	}
	for typ, fields := range want {
		a := asObject(t, agg[typ])
		if a["agg_type"] != typ || a["reference_date"] != "2026-02-10" || a["currency"] != "CZK" || a["penalties_count"] != json.Number("0") {
			t.Fatalf("%s: %v", typ, a)
		}
		for k, v := range fields {
			expectMoney(t, a, k, v)
		}
	}
	ytd := asObject(t, asObject(t, agg["ytd"])["metadata"])
	if ytd["months_worked"] != json.Number("2") {
		t.Fatalf("ytd metadata %v", ytd)
	}
	hi, lo := asObject(t, ytd["highest_month"]), asObject(t, ytd["lowest_month"])
	if hi["month"] != "2026-01" || lo["month"] != "2026-02" {
		t.Fatalf("highest %v lowest %v", hi, lo)
	}
	expectMoney(t, hi, "amount", "2825.00")
	expectMoney(t, lo, "amount", "0.30")
	life := asObject(t, asObject(t, agg["lifetime"])["metadata"])
	// From hire_date 2025-10-20 (earlier than the first transaction) to 2026-02-10: 3 whole months.
	if life["employment_months"] != json.Number("3") || life["first_transaction"] != "2025-11-10" {
		t.Fatalf("lifetime metadata %v", life)
	}

	// The aggregates agree with the list over the same window.
	for _, w := range []struct{ typ, from string }{{"mtd", "2026-02-01"}, {"ytd", "2026-01-01"}, {"lifetime", "2000-01-01"}} {
		sum := asObject(t, exactJSON(t, f.acc.Get(f.path(f.driver, "?from_date="+w.from+"&to_date=2026-02-10")).Expect(http.StatusOK))["summary"])
		for _, k := range []string{"total_earnings", "total_deductions", "total_penalties", "net_amount"} {
			if sum[k] != asObject(t, agg[w.typ])[k] {
				t.Fatalf("%s %s: list %v, aggregate %v", w.typ, k, sum[k], asObject(t, agg[w.typ])[k])
			}
		}
	}

	// A subset, and a driver with nothing yet.
	only := exactJSON(t, f.acc.Get(f.path(f.driver, "/aggregates?type=mtd&reference_date=2026-02-10")).Expect(http.StatusOK))
	if _, ok := only["ytd"]; ok || only["mtd"] == nil {
		t.Fatalf("type=mtd gave %v", only)
	}
	empty := f.env.Driver(f.company)
	none := exactJSON(t, f.acc.Get(f.path(empty, "/aggregates")).Expect(http.StatusOK))
	if m := asObject(t, asObject(t, none["ytd"])["metadata"]); m["highest_month"] != nil || m["months_worked"] != json.Number("0") {
		t.Fatalf("empty ytd %v", m)
	}
	if m := asObject(t, asObject(t, none["lifetime"])["metadata"]); m["employment_months"] != json.Number("1") || m["first_transaction"] != nil {
		t.Fatalf("empty lifetime %v", m)
	}
}

func TestFinanceAuditRows(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	tx := f.create(t, "bonus", "10", pragueDay(0))
	f.move(t, tx["id"], "approved", http.StatusOK)
	rows := f.hr.Get("/api/v0/audit-logs?entity_type=finance_transaction&entity_id=" + tx["id"].(string)).Expect(http.StatusOK).JSON()["data"].([]any)
	if len(rows) != 2 {
		t.Fatalf("audit rows %v", rows)
	}
	upd := asObject(t, rows[0])
	if upd["action"] != "updated" || asObject(t, upd["old_values"])["status"] != "pending" || asObject(t, upd["new_values"])["status"] != "approved" {
		t.Fatalf("update row %v", upd)
	}
	if asObject(t, rows[1])["action"] != "created" {
		t.Fatalf("create row %v", rows[1])
	}
}

// TestFinanceWeeklyPeriod: a weekly period (not created by the API, here
// inserted) gets its totals from the transactions dated inside it, and once
// closed it blocks changes dated inside it.
func TestFinanceWeeklyPeriod(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	var weekID string
	if err := f.env.DB.QueryRow(context.Background(), `
		INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
		VALUES ($1, $2, 'weekly', '2026-06-01', '2026-06-07', 'CZK') RETURNING id::text`, f.company, f.driver).Scan(&weekID); err != nil {
		t.Fatal(err)
	}
	f.create(t, "bonus", "100", "2026-06-03")
	f.create(t, "bonus", "7", "2026-06-08")
	weeks := exactJSON(t, f.acc.Get(f.path(f.driver, "/periods?period_type=weekly")).Expect(http.StatusOK))["data"].([]any)
	if len(weeks) != 1 || asObject(t, weeks[0])["transactions_count"] != json.Number("1") {
		t.Fatalf("weekly periods %v", weeks)
	}
	expectMoney(t, asObject(t, weeks[0]), "total_earnings", "100.00")
	if l := exactJSON(t, f.acc.Get(f.path(f.driver, "?period_id="+weekID)).Expect(http.StatusOK)); l["total"] != json.Number("1") {
		t.Fatalf("list of the week %v", l)
	}
	f.acc.Post(f.path(f.driver, "/periods/"+weekID+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": 1, "transaction_date": "2026-06-07"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": 1, "transaction_date": "2026-06-09"}).Expect(http.StatusCreated)
	f.checkPeriodTotals(t)
}

func TestFinanceEmptyUpdate(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	tx := f.create(t, "bonus", "10", "2026-02-02")
	p := f.path(f.driver, "/"+tx["id"].(string))
	got := exactJSON(t, f.acc.Put(p, `{}`).Expect(http.StatusOK))
	if got["updated_at"] != tx["updated_at"] {
		t.Fatalf("an empty update changed updated_at: %v → %v", tx["updated_at"], got["updated_at"])
	}
	f.acc.Post(f.path(f.driver, "/periods/"+tx["period_id"].(string)+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	f.acc.Put(p, map[string]any{"amount": "10.00", "description": nil}).Expect(http.StatusOK) // same values: no change
	f.acc.Put(p, map[string]any{"amount": "10.01"}).ExpectError(http.StatusConflict, "Conflict")
	rows := f.hr.Get("/api/v0/audit-logs?entity_id=" + tx["id"].(string)).Expect(http.StatusOK).JSON()["data"].([]any)
	if len(rows) != 1 {
		t.Fatalf("audit rows %v", rows)
	}
}
