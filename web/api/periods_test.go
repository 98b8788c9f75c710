package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

// pragueMonth is the first day of the month n months before this one in
// the test companies' time zone (0: this month).
func pragueMonth(n int) civil.Date {
	return civil.DateOf(pragueToday()).MonthStart().AddMonths(-n)
}

// periodOf returns the driver's monthly period starting on start.
func (f *financeFixture) periodOf(t *testing.T, start civil.Date) map[string]any {
	t.Helper()
	for _, p := range exactJSON(t, f.acc.Get(f.path(f.driver, "/periods?period_type=monthly")).Expect(http.StatusOK))["data"].([]any) {
		if pm := asObject(t, p); pm["period_start"] == start.String() {
			return pm
		}
	}
	t.Fatalf("no monthly period starting %s", start)
	return nil
}

// periodAudit returns the audit rows of a period, newest first.
func (f *financeFixture) periodAudit(t *testing.T, id string) []map[string]any {
	t.Helper()
	admin := f.env.As(f.company, auth.RoleAdmin)
	var out []map[string]any
	for _, r := range admin.Get("/api/v0/audit-logs?entity_type=finance_period&entity_id=" + id).Expect(http.StatusOK).JSON()["data"].([]any) {
		out = append(out, asObject(t, r))
	}
	return out
}

// TestPeriodCloseRules: a period closes only once its last day has passed
// in the company's time zone, and while it holds pending transactions
// (a disputed penalty's record among them) only with force, which the
// roles that close may use and the audit row records with the pending
// transactions closed over. Every refusal changes nothing.
func TestPeriodCloseRules(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	admin := f.env.As(f.company, auth.RoleAdmin)

	// This month: too early, with or without force.
	f.create(t, "bonus", "10", pragueDay(0))
	current := f.periodOf(t, pragueMonth(0))
	closeCurrent := f.path(f.driver, "/periods/"+current["id"].(string)+"/close")
	for _, body := range []any{nil, map[string]any{"force": true}} {
		msg := f.acc.Post(closeCurrent, body).ExpectError(http.StatusConflict, "Conflict")["message"].(string)
		// The days are written for people ("1 Dec 2026"), not as stored.
		next := i18n.EN.Date(pragueMonth(0).MonthEnd().AddDays(1))
		if !strings.Contains(msg, next) || !strings.Contains(msg, i18n.EN.Date(pragueMonth(0).MonthEnd())) {
			t.Fatalf("too early: message %q does not say it ends on %s and can be closed from %s", msg, pragueMonth(0).MonthEnd(), next)
		}
	}
	if p := f.periodOf(t, pragueMonth(0)); p["status"] != "open" || p["closed_at"] != nil {
		t.Fatalf("a refused close changed the period: %v", p)
	}
	if rows := f.periodAudit(t, current["id"].(string)); len(rows) != 0 {
		t.Fatalf("a refused close wrote audit rows: %v", rows)
	}

	// Last month: a pending bonus, an approved salary and a disputed
	// penalty; the two pending ones keep it from closing without force.
	month := pragueMonth(1)
	pending := f.create(t, "bonus", "20", month.AddDays(2).String())
	salary := f.create(t, "base_salary", "1000", month.AddDays(3).String())
	f.move(t, salary["id"], "approved", http.StatusOK)
	pen := exactJSON(t, f.hr.Post("/api/v0/drivers/"+f.driver.String()+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "300.00", "incident_date": month.AddDays(4).String(), "description": "Radar"}).Expect(http.StatusCreated))
	f.hr.Put("/api/v0/drivers/"+f.driver.String()+"/penalties/"+pen["id"].(string)+"/dispute",
		map[string]any{"dispute_reason": "Not me."}).Expect(http.StatusOK)
	last := f.periodOf(t, month)
	id := last["id"].(string)
	closePath := f.path(f.driver, "/periods/"+id+"/close")
	dispatcher := f.env.As(f.company, auth.RoleDispatcher)
	dispatcher.Get("/api/v0/notifications").Expect(http.StatusOK) // its user row exists before the checksum
	before := f.env.Checksum()
	for _, body := range []any{nil, "", map[string]any{}, map[string]any{"force": false}} {
		msg := f.acc.Post(closePath, body).ExpectError(http.StatusConflict, "Conflict")["message"].(string)
		if !strings.HasPrefix(msg, "2 transactions are still pending") {
			t.Fatalf("pending: message %q does not say 2 transactions are pending", msg)
		}
	}
	// Roles that may not close may not force either.
	f.hr.Post(closePath, map[string]any{"force": true}).ExpectError(http.StatusForbidden, "Forbidden")
	dispatcher.Post(closePath, map[string]any{"force": true}).ExpectError(http.StatusForbidden, "Forbidden")
	f.acc.Post(closePath, map[string]any{"force": "yes"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if f.env.Checksum() != before {
		t.Fatal("a refused close changed data")
	}

	closed := exactJSON(t, f.acc.Post(closePath, map[string]any{"force": true}).Expect(http.StatusOK))
	if closed["status"] != "closed" || closed["closed_by"] != "Test accountant" {
		t.Fatalf("forced close: %v", closed)
	}
	rows := f.periodAudit(t, id)
	if len(rows) != 1 || rows[0]["action"] != "period.closed" {
		t.Fatalf("audit of the close: %v", rows)
	}
	nv := asObject(t, rows[0]["new_values"])
	ids, _ := nv["pending_transaction_ids"].([]any)
	if nv["force"] != true || nv["status"] != "closed" || len(ids) != 2 || ids[0] != pending["id"] || ids[1] != pen["finance_id"] {
		t.Fatalf("audit new_values %v, want force and the pending bonus %s and the disputed penalty's record %s", nv, pending["id"], pen["finance_id"])
	}
	// The pending ones stay as they were.
	for _, tx := range exactJSON(t, f.acc.Get(f.path(f.driver, "?period_id="+id)).Expect(http.StatusOK))["data"].([]any) {
		m := asObject(t, tx)
		want := map[any]string{pending["id"]: "pending", salary["id"]: "approved", pen["finance_id"]: "disputed"}[m["id"]]
		if m["status"] != want {
			t.Fatalf("transaction %v after the forced close, want %s", m, want)
		}
	}

	// Two months ago, nothing pending: closes without force; the audit row
	// says so.
	quiet := f.create(t, "base_salary", "900", pragueMonth(2).AddDays(5).String())
	f.move(t, quiet["id"], "approved", http.StatusOK)
	qid := f.periodOf(t, pragueMonth(2))["id"].(string)
	admin.Post(f.path(f.driver, "/periods/"+qid+"/close"), nil).Expect(http.StatusOK)
	nv = asObject(t, f.periodAudit(t, qid)[0]["new_values"])
	if ids, ok := nv["pending_transaction_ids"].([]any); nv["force"] != false || !ok || len(ids) != 0 {
		t.Fatalf("audit of a close without pending: %v", nv)
	}
}

// TestPeriodReopen: admin and accountant reopen a closed period with a
// reason, audited; a missing reason is 422, an open or paid period 409,
// other roles 403, and a refusal changes nothing.
func TestPeriodReopen(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	admin := f.env.As(f.company, auth.RoleAdmin)
	tx := f.create(t, "bonus", "10", pragueMonth(1).AddDays(1).String())
	id := tx["period_id"].(string)
	reopen := f.path(f.driver, "/periods/"+id+"/reopen")
	f.acc.Post(reopen, map[string]any{"reason": "Late invoice."}).ExpectError(http.StatusConflict, "Conflict") // open
	f.acc.Post(f.path(f.driver, "/periods/"+id+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)

	me := f.env.As(f.company, auth.RoleDriver, f.driverMail)
	me.Get("/api/v0/notifications").Expect(http.StatusOK) // its user row exists before the checksum
	before := f.env.Checksum()
	for _, body := range []any{nil, map[string]any{}, map[string]any{"reason": "  "}, map[string]any{"reason": nil}} {
		errs := f.acc.Post(reopen, body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")["errors"]
		if _, ok := asObject(t, errs)["reason"]; !ok {
			t.Fatalf("reopen without a reason: errors %v", errs)
		}
	}
	f.acc.Post(reopen, map[string]any{"reason": strings.Repeat("x", 1001)}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Post(reopen, map[string]any{"reason": "x"}).ExpectError(http.StatusForbidden, "Forbidden")
	me.Post(reopen, map[string]any{"reason": "x"}).ExpectError(http.StatusForbidden, "Forbidden")
	if f.env.Checksum() != before {
		t.Fatal("a refused reopen changed data")
	}

	opened := exactJSON(t, f.acc.Post(reopen, map[string]any{"reason": "  Late invoice from the client.  "}).Expect(http.StatusOK))
	if opened["status"] != "open" || opened["closed_at"] != nil || opened["closed_by"] != nil {
		t.Fatalf("reopened %v", opened)
	}
	rows := f.periodAudit(t, id)
	if len(rows) != 2 || rows[0]["action"] != "period.reopened" || asObject(t, rows[0]["new_values"])["reason"] != "Late invoice from the client." ||
		asObject(t, rows[0]["old_values"])["status"] != "closed" || asObject(t, rows[0]["new_values"])["status"] != "open" {
		t.Fatalf("audit of the reopen: %v", rows)
	}
	// Open again: its transactions change again.
	f.hr.Put(f.path(f.driver, "/"+tx["id"].(string)), map[string]any{"amount": "11"}).Expect(http.StatusOK)

	// Paid never reopens.
	admin.Post(f.path(f.driver, "/periods/"+id+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	admin.Post(f.path(f.driver, "/periods/"+id+"/pay"), nil).Expect(http.StatusOK)
	before = f.env.Checksum()
	admin.Post(reopen, map[string]any{"reason": "Wrong bank account."}).ExpectError(http.StatusConflict, "Conflict")
	if f.env.Checksum() != before {
		t.Fatal("a refused reopen of a paid period changed data")
	}
}

// TestPeriodConcurrentClose: two closes of one period at the same moment
// close it once: one answers 200, the other 409, and there is one audit row.
func TestPeriodConcurrentClose(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	admin := f.env.As(f.company, auth.RoleAdmin)
	for round := range 3 {
		tx := f.create(t, "bonus", "10", pragueMonth(round+1).AddDays(3).String())
		id := tx["period_id"].(string)
		closePath := f.path(f.driver, "/periods/"+id+"/close")
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, c := range []*webtest.Caller{f.acc, admin} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = c.Post(closePath, map[string]any{"force": true}).Status
			}()
		}
		wg.Wait()
		if !(statuses[0] == http.StatusOK && statuses[1] == http.StatusConflict || statuses[0] == http.StatusConflict && statuses[1] == http.StatusOK) {
			t.Fatalf("round %d: two closes answered %v, want one 200 and one 409", round, statuses)
		}
		var n int
		if err := f.env.DB.QueryRow(context.Background(), `SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action = 'period.closed'`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("round %d: %d audit rows of the close, want 1", round, n)
		}
	}
}
