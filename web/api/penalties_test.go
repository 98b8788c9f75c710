package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

func (f *financeFixture) penaltyPath(driver uuid.UUID, rest string) string {
	return "/api/v0/drivers/" + driver.String() + "/penalties" + rest
}

// createPenalty records a penalty as HR and returns it.
func (f *financeFixture) createPenalty(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	full := map[string]any{"penalty_type": "speeding", "amount": "1500", "incident_date": pragueDay(0), "description": "72 km/h in a 50 zone"}
	for k, v := range body {
		full[k] = v
	}
	return exactJSON(t, f.hr.Post(f.penaltyPath(f.driver, ""), full).Expect(http.StatusCreated))
}

// financeRecord returns the penalty's finance record from the finance list.
func (f *financeFixture) financeRecord(t *testing.T, pen map[string]any) map[string]any {
	t.Helper()
	list := exactJSON(t, f.acc.Get(f.path(f.driver, "?type=penalty&per_page=100")).Expect(http.StatusOK))
	for _, item := range list["data"].([]any) {
		if tx := asObject(t, item); tx["id"] == pen["finance_id"] {
			return tx
		}
	}
	t.Fatalf("finance record %v not listed", pen["finance_id"])
	return nil
}

func (f *financeFixture) expectRecord(t *testing.T, pen map[string]any, status, amount string) {
	t.Helper()
	rec := f.financeRecord(t, pen)
	if rec["status"] != status || rec["penalty_id"] != pen["id"] {
		t.Fatalf("finance record %v, want status %s", rec, status)
	}
	expectMoney(t, rec, "amount", amount)
}

// TestPenaltyStateTable walks every row of the penalty state table and
// checks the finance record after each step.
func TestPenaltyStateTable(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	me := f.env.As(f.company, auth.RoleDriver, f.driverMail)

	// create → pending, finance record pending with −amount.
	pen := f.createPenalty(t, map[string]any{"severity": "major", "location": "D1 km 12",
		"evidence": []map[string]string{{"type": "photo", "url": "https://cdn.example.test/radar.jpg"}}})
	if pen["status"] != "pending" || pen["severity"] != "major" || pen["finance_id"] == nil || pen["created_by"] != "Test hr_manager" ||
		pen["finance_status"] != "pending" || len(pen["evidence"].([]any)) != 1 {
		t.Fatalf("created %v", pen)
	}
	expectMoney(t, pen, "amount", "1500.00")
	rec := f.financeRecord(t, pen)
	if rec["transaction_type"] != "penalty" || rec["category"] != "penalty" || rec["transaction_date"] != pragueDay(0) {
		t.Fatalf("finance record %v", rec)
	}
	f.expectRecord(t, pen, "pending", "-1500.00")
	damage := f.createPenalty(t, map[string]any{"penalty_type": "damage", "amount": 200})
	if r := f.financeRecord(t, damage); r["category"] != "damage_fine" {
		t.Fatalf("damage category %v", r["category"])
	}

	// dispute (by the driver) → disputed, finance record disputed.
	d := exactJSON(t, me.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/dispute"), map[string]any{
		"dispute_reason": "The sign was hidden by a tree.",
		"evidence":       []map[string]string{{"type": "video", "url": "http://example.test/dashcam.mp4"}},
	}).Expect(http.StatusOK))
	if d["status"] != "disputed" || d["dispute_reason"] != "The sign was hidden by a tree." || d["dispute_submitted_at"] == nil ||
		len(d["evidence"].([]any)) != 2 || d["message"] == nil || d["finance_status"] != "disputed" {
		t.Fatalf("disputed %v", d)
	}
	f.expectRecord(t, pen, "disputed", "-1500.00")

	resolve := func(pen map[string]any, body map[string]any) map[string]any {
		t.Helper()
		return exactJSON(t, f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/resolve"), body).Expect(http.StatusOK))
	}
	dispute := func(pen map[string]any) {
		t.Helper()
		f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "no"}).Expect(http.StatusOK)
	}

	// resolve reduce → resolved with the new amount, finance record pending with −new_amount.
	r := resolve(pen, map[string]any{"resolution_action": "reduce", "new_amount": "999.99", "resolution": "Partly justified."})
	if r["status"] != "resolved" || r["resolution"] != "Partly justified." || r["resolved_by"] != "Test hr_manager" || r["resolved_at"] == nil {
		t.Fatalf("reduced %v", r)
	}
	expectMoney(t, r, "amount", "999.99")
	f.expectRecord(t, pen, "pending", "-999.99")

	// resolve keep → resolved, amount kept, finance record pending.
	kept := f.createPenalty(t, map[string]any{"amount": "300.50"})
	dispute(kept)
	k := resolve(kept, map[string]any{"resolution_action": "keep"})
	if k["status"] != "resolved" {
		t.Fatalf("kept %v", k)
	}
	expectMoney(t, k, "amount", "300.50")
	f.expectRecord(t, kept, "pending", "-300.50")

	// resolve reduce to 0 is allowed.
	zero := f.createPenalty(t, map[string]any{"amount": "10"})
	dispute(zero)
	expectMoney(t, resolve(zero, map[string]any{"resolution_action": "reduce", "new_amount": 0}), "amount", "0.00")
	f.expectRecord(t, zero, "pending", "0.00")

	// resolve cancel → cancelled, finance record cancelled.
	cancelled := f.createPenalty(t, map[string]any{"amount": "50"})
	dispute(cancelled)
	if c := resolve(cancelled, map[string]any{"resolution_action": "cancel", "resolution": "Wrong driver."}); c["status"] != "cancelled" {
		t.Fatalf("cancelled %v", c)
	}
	f.expectRecord(t, cancelled, "cancelled", "-50.00")

	// accept (by the driver) → accepted, finance record stays pending.
	accepted := f.createPenalty(t, map[string]any{"amount": "75"})
	if a := exactJSON(t, me.Put(f.penaltyPath(f.driver, "/"+accepted["id"].(string)+"/accept"), nil).Expect(http.StatusOK)); a["status"] != "accepted" {
		t.Fatalf("accepted %v", a)
	}
	f.expectRecord(t, accepted, "pending", "-75.00")

	// Every refused move is 409.
	disputed := f.createPenalty(t, nil)
	dispute(disputed)
	pending := f.createPenalty(t, nil)
	byStatus := map[string]map[string]any{"pending": pending, "accepted": accepted, "disputed": disputed, "resolved": kept, "cancelled": cancelled}
	allowed := map[string]bool{"pending>dispute": true, "pending>accept": true, "disputed>resolve": true}
	for status, p := range byStatus {
		for _, op := range []string{"dispute", "accept", "resolve"} {
			if allowed[status+">"+op] {
				continue
			}
			body := map[string]any{"dispute_reason": "again", "resolution_action": "keep"}
			if op == "accept" {
				body = nil
			} else if op == "dispute" {
				delete(body, "resolution_action")
			} else {
				delete(body, "dispute_reason")
			}
			f.hr.Put(f.penaltyPath(f.driver, "/"+p["id"].(string)+"/"+op), body).ExpectError(http.StatusConflict, "Conflict")
		}
	}
	got := exactJSON(t, f.acc.Get(f.penaltyPath(f.driver, "/"+disputed["id"].(string))).Expect(http.StatusOK))
	if got["status"] != "disputed" {
		t.Fatalf("read %v", got)
	}
	f.expectRecord(t, pending, "pending", "-1500.00")
	f.checkPeriodTotals(t)
}

func TestPenaltyPermissions(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	env := f.env
	pen := f.createPenalty(t, nil)
	other := env.Driver(f.company, fixtures.Email("other.driver@example.test"))
	me := env.As(f.company, auth.RoleDriver, f.driverMail)
	otherMe := env.As(f.company, auth.RoleDriver, "other.driver@example.test")
	stranger := env.As(env.Company("Other", "free"), auth.RoleHRManager)
	dispatcher := env.As(f.company, auth.RoleDispatcher)
	penPath := f.penaltyPath(f.driver, "/"+pen["id"].(string))
	body := map[string]any{"penalty_type": "other", "amount": 1, "incident_date": pragueDay(0), "description": "x"}

	// A driver cannot dispute (or accept) another driver's penalty.
	otherMe.Put(penPath+"/dispute", map[string]any{"dispute_reason": "not me"}).ExpectError(http.StatusForbidden, "AccessDenied")
	otherMe.Put(penPath+"/accept", nil).ExpectError(http.StatusForbidden, "AccessDenied")
	otherMe.Get(penPath).ExpectError(http.StatusForbidden, "AccessDenied")
	otherMe.Get(f.penaltyPath(f.driver, "")).ExpectError(http.StatusForbidden, "AccessDenied")
	otherMe.Get(f.penaltyPath(other, "")).Expect(http.StatusOK)
	// An accountant reads but cannot create or resolve.
	f.acc.Get(f.penaltyPath(f.driver, "")).Expect(http.StatusOK)
	f.acc.Post(f.penaltyPath(f.driver, ""), body).ExpectError(http.StatusForbidden, "Forbidden")
	f.acc.Put(penPath+"/resolve", map[string]any{"resolution_action": "keep"}).ExpectError(http.StatusForbidden, "Forbidden")
	f.acc.Put(penPath+"/dispute", map[string]any{"dispute_reason": "x"}).ExpectError(http.StatusForbidden, "Forbidden")
	// Dispatchers see no penalties; drivers create none.
	dispatcher.Get(f.penaltyPath(f.driver, "")).ExpectError(http.StatusForbidden, "Forbidden")
	me.Post(f.penaltyPath(f.driver, ""), body).ExpectError(http.StatusForbidden, "Forbidden")
	me.Put(penPath+"/resolve", map[string]any{"resolution_action": "keep"}).ExpectError(http.StatusForbidden, "Forbidden")
	me.Get(penPath).Expect(http.StatusOK)
	// Another company; another driver's path; unknown ids.
	stranger.Get(penPath).ExpectError(http.StatusForbidden, "AccessDenied")
	stranger.Post(f.penaltyPath(f.driver, ""), body).ExpectError(http.StatusForbidden, "AccessDenied")
	f.hr.Get(f.penaltyPath(other, "/"+pen["id"].(string))).ExpectError(http.StatusNotFound, "NotFound")
	f.hr.Put(f.penaltyPath(other, "/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "x"}).ExpectError(http.StatusNotFound, "NotFound")
	f.hr.Get(f.penaltyPath(f.driver, "/"+uuid.NewString())).ExpectError(http.StatusNotFound, "NotFound")
	f.hr.Get(f.penaltyPath(f.driver, "/not-a-uuid")).ExpectError(http.StatusNotFound, "NotFound")
	f.hr.Get(f.penaltyPath(uuid.New(), "")).ExpectError(http.StatusNotFound, "NotFound")
	// The driver concerned disputes its own.
	me.Put(penPath+"/dispute", map[string]any{"dispute_reason": "I was not driving."}).Expect(http.StatusOK)
}

func TestPenaltyValidation(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	pen := f.createPenalty(t, map[string]any{"amount": "1000"})
	penPath := f.penaltyPath(f.driver, "/"+pen["id"].(string))
	f.hr.Put(penPath+"/dispute", map[string]any{}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Put(penPath+"/dispute", map[string]any{"dispute_reason": "x", "evidence": []map[string]string{{"type": "selfie", "url": "https://x.test/a"}}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Put(penPath+"/dispute", map[string]any{"dispute_reason": "x", "evidence": []map[string]string{{"type": "photo", "url": "ftp://x.test/a"}}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.hr.Put(penPath+"/dispute", map[string]any{"dispute_reason": "it was not me"}).Expect(http.StatusOK)

	for name, tt := range map[string]struct {
		body  map[string]any
		field string
	}{
		"reduce without new_amount": {map[string]any{"resolution_action": "reduce"}, "new_amount"},
		"negative new_amount":       {map[string]any{"resolution_action": "reduce", "new_amount": -1}, "new_amount"},
		"new_amount above current":  {map[string]any{"resolution_action": "reduce", "new_amount": "1000.01"}, "new_amount"},
		"new_amount equal current":  {map[string]any{"resolution_action": "reduce", "new_amount": 1000}, "new_amount"},
		"three decimals":            {map[string]any{"resolution_action": "reduce", "new_amount": "1.005"}, "new_amount"},
		"no action":                 {map[string]any{}, "resolution_action"},
		"unknown action":            {map[string]any{"resolution_action": "forgive"}, "resolution_action"},
	} {
		t.Run(name, func(t *testing.T) {
			m := f.hr.Put(penPath+"/resolve", tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if _, ok := asObject(t, m["errors"])[tt.field]; !ok {
				t.Fatalf("errors %v, want %s", m["errors"], tt.field)
			}
		})
	}
	f.expectRecord(t, pen, "disputed", "-1000.00") // nothing changed

	for name, tt := range map[string]struct {
		body  map[string]any
		field string
	}{
		"missing type":     {map[string]any{"amount": 1, "incident_date": pragueDay(0), "description": "x"}, "penalty_type"},
		"unknown type":     {map[string]any{"penalty_type": "parking", "amount": 1, "incident_date": pragueDay(0), "description": "x"}, "penalty_type"},
		"negative amount":  {map[string]any{"penalty_type": "other", "amount": -1, "incident_date": pragueDay(0), "description": "x"}, "amount"},
		"three decimals":   {map[string]any{"penalty_type": "other", "amount": "1.001", "incident_date": pragueDay(0), "description": "x"}, "amount"},
		"no description":   {map[string]any{"penalty_type": "other", "amount": 1, "incident_date": pragueDay(0)}, "description"},
		"no incident date": {map[string]any{"penalty_type": "other", "amount": 1, "description": "x"}, "incident_date"},
		"bad severity":     {map[string]any{"penalty_type": "other", "amount": 1, "incident_date": pragueDay(0), "description": "x", "severity": "fatal"}, "severity"},
		"relative url":     {map[string]any{"penalty_type": "other", "amount": 1, "incident_date": pragueDay(0), "description": "x", "evidence": []map[string]string{{"type": "photo", "url": "/a.jpg"}}}, "evidence.0.url"},
		"evidence object":  {map[string]any{"penalty_type": "other", "amount": 1, "incident_date": pragueDay(0), "description": "x", "evidence": map[string]string{"type": "photo"}}, "evidence"},
	} {
		t.Run(name, func(t *testing.T) {
			m := f.hr.Post(f.penaltyPath(f.driver, ""), tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if _, ok := asObject(t, m["errors"])[tt.field]; !ok {
				t.Fatalf("errors %v, want %s", m["errors"], tt.field)
			}
		})
	}
	var n int
	if err := f.env.DB.QueryRow(context.Background(), `SELECT count(*) FROM penalties`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("penalties after refused creates: %d, %v", n, err)
	}
}

// penaltyMove sends a penalty move as the caller and returns the penalty.
func (f *financeFixture) penaltyMove(t *testing.T, c *webtest.Caller, pen map[string]any, move string, body any) map[string]any {
	t.Helper()
	return exactJSON(t, c.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/"+move), body).Expect(http.StatusOK))
}

// transaction returns one transaction of the driver from the finance list.
func (f *financeFixture) transaction(t *testing.T, id any) map[string]any {
	t.Helper()
	for _, item := range exactJSON(t, f.acc.Get(f.path(f.driver, "?per_page=100")).Expect(http.StatusOK))["data"].([]any) {
		if tx := asObject(t, item); tx["id"] == id {
			return tx
		}
	}
	t.Fatalf("transaction %v not listed", id)
	return nil
}

// periodTotals are a period's totals as the API writes them.
func periodTotals(p map[string]any) string {
	return fmt.Sprintf("%v/%v/%v/%v", p["total_earnings"], p["total_deductions"], p["net_amount"], p["transactions_count"])
}

// TestPenaltyInsideClosedPeriod: a penalty dated inside a closed period is
// still accepted, disputed and resolved. Its finance record there stays as
// it was; a reduce or cancel posts a correction (adjustment,
// penalty_correction, pending, dated today, new − old, linked both ways)
// into this month's open period. The closed period's totals do not move,
// this month's do, and the MTD and YTD aggregates agree with the sums of
// the transaction list. Creating a penalty dated inside it stays refused.
func TestPenaltyInsideClosedPeriod(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	me := f.env.As(f.company, auth.RoleDriver, f.driverMail)
	month := pragueMonth(1)
	day := func(n int) string { return month.AddDays(n).String() }
	salary := f.create(t, "base_salary", "5000", day(1))
	f.move(t, salary["id"], "approved", http.StatusOK)
	f.create(t, "bonus", "2000", pragueDay(0))
	reduced := f.createPenalty(t, map[string]any{"amount": "1000.00", "incident_date": day(5)})
	cancelled := f.createPenalty(t, map[string]any{"amount": "500.00", "incident_date": day(6)})
	accepted := f.createPenalty(t, map[string]any{"amount": "300.00", "incident_date": day(7)})
	kept := f.createPenalty(t, map[string]any{"amount": "200.00", "incident_date": day(8)})
	open := f.createPenalty(t, map[string]any{"amount": "100.00", "incident_date": day(9)})
	// Disputed before the close: its record is disputed, and counts as pending.
	f.penaltyMove(t, me, cancelled, "dispute", map[string]any{"dispute_reason": "Not me."})
	closedID := salary["period_id"].(string)
	msg := f.acc.Post(f.path(f.driver, "/periods/"+closedID+"/close"), nil).ExpectError(http.StatusConflict, "Conflict")["message"].(string)
	if !strings.HasPrefix(msg, "5 transactions are still pending") {
		t.Fatalf("pending before the close: %q, want the five penalty records", msg)
	}
	f.acc.Post(f.path(f.driver, "/periods/"+closedID+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	closedBefore := periodTotals(f.periodOf(t, month))
	currentID := f.periodOf(t, pragueMonth(0))["id"].(string)

	// The driver accepts and disputes; the records stay as they were.
	if got := f.penaltyMove(t, me, accepted, "accept", nil); got["status"] != "accepted" || got["finance_status"] != "pending" {
		t.Fatalf("accepted in a closed period: %v", got)
	}
	for _, pen := range []map[string]any{reduced, kept, open} {
		got := exactJSON(t, me.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "The radar was wrong."}).Expect(http.StatusOK))
		if got["status"] != "disputed" || got["finance_status"] != "pending" || got["message"] == nil {
			t.Fatalf("disputed in a closed period: %v", got)
		}
		f.expectRecord(t, pen, "pending", "-"+string(pen["amount"].(json.Number)))
	}
	// A new penalty dated inside it is still refused.
	f.hr.Post(f.penaltyPath(f.driver, ""), map[string]any{"penalty_type": "other", "amount": 1, "incident_date": day(10), "description": "x"}).
		ExpectError(http.StatusConflict, "Conflict")

	// Reduce 1000.00 to 400.00: the record stays at -1000.00, +600.00 is
	// posted today in this month's period, linked both ways.
	got := f.penaltyMove(t, f.hr, reduced, "resolve", map[string]any{"resolution_action": "reduce", "new_amount": "400.00", "resolution": "Partly."})
	if got["status"] != "resolved" || got["correction_id"] == nil {
		t.Fatalf("reduced: %v", got)
	}
	expectMoney(t, got, "amount", "400.00")
	f.expectRecord(t, reduced, "pending", "-1000.00")
	corr := f.transaction(t, got["correction_id"])
	meta := asObject(t, corr["metadata"])
	if corr["transaction_type"] != "adjustment" || corr["category"] != "penalty_correction" || corr["status"] != "pending" ||
		corr["transaction_date"] != pragueDay(0) || corr["period_id"] != currentID || corr["penalty_id"] != reduced["id"] ||
		meta["penalty_id"] != reduced["id"] || meta["corrects"] != reduced["finance_id"] {
		t.Fatalf("correction %v", corr)
	}
	expectMoney(t, corr, "amount", "600.00")
	rows := f.env.As(f.company, auth.RoleAdmin).Get("/api/v0/audit-logs?entity_type=penalty&entity_id=" + reduced["id"].(string)).Expect(http.StatusOK).JSON()["data"].([]any)
	if nv := asObject(t, asObject(t, rows[0])["new_values"]); rows == nil || nv["correction_id"] != got["correction_id"] {
		t.Fatalf("audit of the resolution: %v", rows[0])
	}

	// Cancel: +500.00, the record stays disputed at -500.00.
	got = f.penaltyMove(t, f.hr, cancelled, "resolve", map[string]any{"resolution_action": "cancel"})
	if got["status"] != "cancelled" || got["correction_id"] == nil {
		t.Fatalf("cancelled: %v", got)
	}
	f.expectRecord(t, cancelled, "disputed", "-500.00")
	cancelCorr := f.transaction(t, got["correction_id"])
	expectMoney(t, cancelCorr, "amount", "500.00")
	// Keep changes no money: no correction.
	if got = f.penaltyMove(t, f.hr, kept, "resolve", map[string]any{"resolution_action": "keep"}); got["status"] != "resolved" || got["correction_id"] != nil {
		t.Fatalf("kept: %v", got)
	}
	f.expectRecord(t, kept, "pending", "-200.00")

	// Totals: the closed period did not move, this month's did.
	if after := periodTotals(f.periodOf(t, month)); after != closedBefore {
		t.Fatalf("closed period totals moved: %s → %s", closedBefore, after)
	}
	current := f.periodOf(t, pragueMonth(0))
	expectMoney(t, current, "total_earnings", "3100.00")
	if current["transactions_count"] != json.Number("3") {
		t.Fatalf("this month's period %v", current)
	}
	f.checkPeriodTotals(t)
	f.checkAggregatesAgree(t)

	// The correction is approved and paid like any transaction, but keeps
	// what it corrects.
	cpath := f.path(f.driver, "/"+corr["id"].(string))
	f.acc.Put(cpath, map[string]any{"amount": "700"}).ExpectError(http.StatusConflict, "Conflict")
	f.acc.Put(cpath, map[string]any{"metadata": map[string]any{}}).ExpectError(http.StatusConflict, "Conflict")
	f.acc.Put(cpath, map[string]any{"status": "cancelled"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Delete(cpath).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "adjustment", "amount": "5", "transaction_date": pragueDay(0)}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.acc.Put(cpath, map[string]any{"status": "approved", "description": "Radar, reduced"}).Expect(http.StatusOK)
	if l := exactJSON(t, f.acc.Get(f.path(f.driver, "?type=adjustment")).Expect(http.StatusOK)); l["total"] != json.Number("2") {
		t.Fatalf("adjustments listed: %v", l["total"])
	}

	// Reopened, the period's penalty records take their penalty's state
	// again; the corrections stand.
	f.acc.Post(f.path(f.driver, "/periods/"+closedID+"/reopen"), map[string]any{"reason": "Disputes settled."}).Expect(http.StatusOK)
	f.expectRecord(t, cancelled, "pending", "-500.00") // its penalty is cancelled, its correction nets it
	f.expectRecord(t, open, "disputed", "-100.00")     // still disputed
	f.expectRecord(t, reduced, "pending", "-1000.00")
	f.move(t, cancelled["finance_id"], "approved", http.StatusOK)
	f.move(t, open["finance_id"], "approved", http.StatusConflict)
	f.checkPeriodTotals(t)
	f.checkAggregatesAgree(t)
}

// TestPenaltyInsidePaidPeriod: a paid period too: the dispute works and a
// cancel posts a correction of the full amount.
func TestPenaltyInsidePaidPeriod(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	me := f.env.As(f.company, auth.RoleDriver, f.driverMail)
	pen := f.createPenalty(t, map[string]any{"amount": "750.50", "incident_date": pragueMonth(2).AddDays(3).String()})
	rec := f.financeRecord(t, pen)
	f.acc.Post(f.path(f.driver, "/periods/"+rec["period_id"].(string)+"/close"), map[string]any{"force": true}).Expect(http.StatusOK)
	f.acc.Post(f.path(f.driver, "/periods/"+rec["period_id"].(string)+"/pay"), nil).Expect(http.StatusOK)
	f.penaltyMove(t, me, pen, "dispute", map[string]any{"dispute_reason": "I was not driving."})
	got := f.penaltyMove(t, f.hr, pen, "resolve", map[string]any{"resolution_action": "cancel"})
	f.expectRecord(t, pen, "pending", "-750.50")
	corr := f.transaction(t, got["correction_id"])
	expectMoney(t, corr, "amount", "750.50")
	if corr["transaction_date"] != pragueDay(0) || corr["category"] != "penalty_correction" {
		t.Fatalf("correction %v", corr)
	}
	f.checkPeriodTotals(t)
	f.checkAggregatesAgree(t)
}

// TestPenaltyRecordThroughFinance: the finance endpoints cannot break a
// penalty's record.
func TestPenaltyRecordThroughFinance(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	pen := f.createPenalty(t, nil)
	recPath := f.path(f.driver, "/"+pen["finance_id"].(string))
	f.acc.Put(recPath, map[string]any{"status": "approved"}).ExpectError(http.StatusConflict, "Conflict") // penalty pending
	f.acc.Put(recPath, map[string]any{"amount": "-1"}).ExpectError(http.StatusConflict, "Conflict")
	f.acc.Put(recPath, map[string]any{"status": "cancelled"}).ExpectError(http.StatusConflict, "Conflict")
	f.hr.Delete(recPath).ExpectError(http.StatusConflict, "Conflict")
	f.acc.Put(recPath, map[string]any{"description": "Radar D1"}).Expect(http.StatusOK)

	f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "x"}).Expect(http.StatusOK)
	f.acc.Put(recPath, map[string]any{"status": "approved"}).ExpectError(http.StatusConflict, "Conflict") // disputed
	f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/resolve"), map[string]any{"resolution_action": "keep"}).Expect(http.StatusOK)
	// Resolved: the record goes through approval and payment like any other.
	f.acc.Put(recPath, map[string]any{"status": "approved"}).Expect(http.StatusOK)
	f.acc.Put(recPath, map[string]any{"status": "paid"}).Expect(http.StatusOK)
	f.expectRecord(t, pen, "paid", "-1500.00")
}

func TestPenaltyListSummaryAndAudit(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	a := f.createPenalty(t, map[string]any{"amount": "100.10", "severity": "minor", "incident_date": "2026-04-01"})
	b := f.createPenalty(t, map[string]any{"amount": "200.20", "penalty_type": "damage", "severity": "critical", "incident_date": "2026-04-02"})
	c := f.createPenalty(t, map[string]any{"amount": "300.30", "incident_date": "2026-03-31"})
	f.createPenalty(t, map[string]any{"amount": "5", "currency": "EUR", "incident_date": "2026-04-03"})
	f.hr.Put(f.penaltyPath(f.driver, "/"+b["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "x"}).Expect(http.StatusOK)
	f.hr.Put(f.penaltyPath(f.driver, "/"+c["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "x"}).Expect(http.StatusOK)
	f.hr.Put(f.penaltyPath(f.driver, "/"+c["id"].(string)+"/resolve"), map[string]any{"resolution_action": "cancel"}).Expect(http.StatusOK)

	list := exactJSON(t, f.acc.Get(f.penaltyPath(f.driver, "?per_page=2")).Expect(http.StatusOK))
	sum := asObject(t, list["summary"])
	expectMoney(t, sum, "total_penalties", "300.30") // CZK, cancelled left out
	if sum["currency"] != "CZK" || sum["pending_count"] != json.Number("2") || sum["disputed_count"] != json.Number("1") ||
		sum["resolved_count"] != json.Number("0") || sum["cancelled_count"] != json.Number("1") || list["total"] != json.Number("4") {
		t.Fatalf("summary %v total %v", sum, list["total"])
	}
	if totals := list["totals"].([]any); len(totals) != 2 || asObject(t, totals[1])["currency"] != "EUR" {
		t.Fatalf("totals %v", totals)
	}
	data := list["data"].([]any)
	if len(data) != 2 || asObject(t, data[0])["incident_date"] != "2026-04-03" || asObject(t, data[1])["id"] != b["id"] {
		t.Fatalf("order %v", data)
	}
	filtered := exactJSON(t, f.acc.Get(f.penaltyPath(f.driver, "?type=damage,speeding&severity=critical,minor&status=pending,disputed")).Expect(http.StatusOK))
	if filtered["total"] != json.Number("3") {
		t.Fatalf("filtered total %v", filtered["total"])
	}
	expectMoney(t, asObject(t, filtered["summary"]), "total_penalties", "300.30")
	f.acc.Get(f.penaltyPath(f.driver, "?severity=fatal")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	// Aggregates count the penalties with an incident in the window, not cancelled.
	agg := exactJSON(t, f.acc.Get(f.path(f.driver, "/aggregates?reference_date=2026-04-30")).Expect(http.StatusOK))
	if asObject(t, agg["mtd"])["penalties_count"] != json.Number("2") || asObject(t, agg["ytd"])["penalties_count"] != json.Number("2") {
		t.Fatalf("penalties_count mtd %v ytd %v", asObject(t, agg["mtd"])["penalties_count"], asObject(t, agg["ytd"])["penalties_count"])
	}
	expectMoney(t, asObject(t, agg["mtd"]), "total_penalties", "300.30")

	actions := func(id any) []string {
		rows := f.hr.Get("/api/v0/audit-logs?entity_id=" + id.(string)).Expect(http.StatusOK).JSON()["data"].([]any)
		var out []string
		for _, r := range rows {
			out = append(out, asObject(t, r)["action"].(string))
		}
		return out
	}
	if got := actions(c["id"]); len(got) != 3 || got[0] != "penalty.resolved" || got[1] != "penalty.disputed" || got[2] != "penalty.created" {
		t.Fatalf("penalty audit %v", got)
	}
	if got := actions(c["finance_id"]); len(got) != 3 || got[0] != "updated" || got[2] != "created" {
		t.Fatalf("finance record audit %v", got)
	}
	f.env.As(f.company, auth.RoleDriver, f.driverMail).Put(f.penaltyPath(f.driver, "/"+a["id"].(string)+"/accept"), nil).Expect(http.StatusOK)
	if got := actions(a["id"]); len(got) != 2 || got[0] != "penalty.accepted" {
		t.Fatalf("accept audit %v", got)
	}
}

// TestPenaltyConcurrentMoves: penalties and transactions created, disputed
// and resolved at once in one period keep the period's totals exact and
// never deadlock for good (a deadlock PostgreSQL breaks is retried).
func TestPenaltyConcurrentMoves(t *testing.T) {
	t.Parallel()
	f := newFinanceFixture(t)
	date := pragueDay(0)
	pens := make([]map[string]any, 10)
	for i := range pens {
		pens[i] = f.createPenalty(t, map[string]any{"amount": fmt.Sprintf("%d.25", 10+i)})
	}
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	run := func(fn func() *webtest.Response, want int) {
		defer wg.Done()
		if r := fn(); r.Status != want {
			errs <- fmt.Sprintf("%d (want %d): %s", r.Status, want, r.Body)
		}
	}
	for i, pen := range pens {
		wg.Add(3)
		go run(func() *webtest.Response {
			return f.hr.Post(f.path(f.driver, ""), map[string]any{"transaction_type": "bonus", "amount": fmt.Sprintf("%d.10", i), "transaction_date": date})
		}, http.StatusCreated)
		go run(func() *webtest.Response {
			return f.hr.Post(f.penaltyPath(f.driver, ""), map[string]any{"penalty_type": "other", "amount": "1.01", "incident_date": date, "description": "x"})
		}, http.StatusCreated)
		go run(func() *webtest.Response {
			return f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "x"})
		}, http.StatusOK)
	}
	wg.Wait()
	for i, pen := range pens {
		wg.Add(1)
		action := map[string]any{"resolution_action": "reduce", "new_amount": "1.00"}
		if i%2 == 0 {
			action = map[string]any{"resolution_action": "cancel"}
		}
		go run(func() *webtest.Response {
			return f.hr.Put(f.penaltyPath(f.driver, "/"+pen["id"].(string)+"/resolve"), action)
		}, http.StatusOK)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	f.checkPeriodTotals(t)
	sum := asObject(t, exactJSON(t, f.acc.Get(f.penaltyPath(f.driver, "")).Expect(http.StatusOK))["summary"])
	expectMoney(t, sum, "total_penalties", "15.10") // 10 × 1.01 + 5 reduced to 1.00
}

// checkAggregatesAgree fails unless the MTD and YTD aggregates and the
// list's summary equal the sums of the transaction list over the same
// dates, added up here row by row: earnings (positive, not penalties),
// deductions (negative, not penalties), penalties, net; cancelled left out.
func (f *financeFixture) checkAggregatesAgree(t *testing.T) {
	t.Helper()
	today := civil.DateOf(pragueToday())
	aggs := exactJSON(t, f.acc.Get(f.path(f.driver, "/aggregates")).Expect(http.StatusOK))
	for typ, from := range map[string]civil.Date{"mtd": today.MonthStart(), "ytd": civil.NewDate(today.Year(), 1, 1)} {
		list := exactJSON(t, f.acc.Get(f.path(f.driver, "?per_page=100&from_date="+from.String()+"&to_date="+today.String())).Expect(http.StatusOK))
		if list["total"] != json.Number(fmt.Sprint(len(list["data"].([]any)))) {
			t.Fatalf("%s: more transactions than a page", typ)
		}
		var earnings, deductions, penalties decimal.Decimal
		for _, item := range list["data"].([]any) {
			tx := asObject(t, item)
			if tx["status"] == "cancelled" {
				continue
			}
			a := decimal.RequireFromString(string(tx["amount"].(json.Number)))
			switch {
			case tx["transaction_type"] == "penalty":
				penalties = penalties.Sub(a)
			case a.IsPositive():
				earnings = earnings.Add(a)
			default:
				deductions = deductions.Sub(a)
			}
		}
		want := map[string]string{"total_earnings": earnings.StringFixed(2), "total_deductions": deductions.StringFixed(2),
			"total_penalties": penalties.StringFixed(2), "net_amount": earnings.Sub(deductions).Sub(penalties).StringFixed(2)}
		agg, summary := asObject(t, aggs[typ]), asObject(t, list["summary"])
		for k, v := range want {
			expectMoney(t, agg, k, v)
			expectMoney(t, summary, k, v)
		}
	}
}
