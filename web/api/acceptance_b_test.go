package api_test

// Black-box checks of the rating, finance, period and penalty rules of the
// specification and docs/ (permissions, errors, lists, finance, rating, audit), written rule by
// rule from those documents (not from the code).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// accB is a company with a caller of every role, the driver "own" (linked to
// the driver caller), a second driver "other" of the same company and a
// driver of another company.
type accB struct {
	env                       *webtest.Env
	company, otherCompany     uuid.UUID
	admin, hr, acc, disp, drv *webtest.Caller
	own, other, foreign       uuid.UUID
	ownMail                   string
	roles                     map[string]*webtest.Caller
	foreignHR                 *webtest.Caller
}

func newAccB(t *testing.T) *accB {
	t.Helper()
	env := webtest.New(t)
	a := &accB{env: env, ownMail: "own.driver@example.test"}
	a.company = env.Company("Acme", "enterprise")
	a.otherCompany = env.Company("Other", "enterprise")
	a.own = env.Driver(a.company, fixtures.Email(a.ownMail), fixtures.HireDate("2024-03-15"))
	a.other = env.Driver(a.company)
	a.foreign = env.Driver(a.otherCompany)
	a.admin = env.As(a.company, auth.RoleAdmin)
	a.hr = env.As(a.company, auth.RoleHRManager)
	a.acc = env.As(a.company, auth.RoleAccountant)
	a.disp = env.As(a.company, auth.RoleDispatcher)
	a.drv = env.As(a.company, auth.RoleDriver, a.ownMail)
	a.foreignHR = env.As(a.otherCompany, auth.RoleHRManager)
	a.roles = map[string]*webtest.Caller{"admin": a.admin, "hr_manager": a.hr, "accountant": a.acc, "dispatcher": a.disp, "driver": a.drv}
	return a
}

func drv(id uuid.UUID, rest string) string { return "/api/v0/drivers/" + id.String() + rest }

// hrOf is an HR manager of the driver's company.
func (a *accB) hrOf(driver uuid.UUID) *webtest.Caller {
	if driver == a.foreign {
		return a.foreignHR
	}
	return a.hr
}

func (a *accB) companyOf(driver uuid.UUID) uuid.UUID {
	if driver == a.foreign {
		return a.otherCompany
	}
	return a.company
}

// tx creates a transaction of the driver as HR and returns its body.
func (a *accB) tx(t *testing.T, driver uuid.UUID, typ, amount, date string) map[string]any {
	t.Helper()
	body := fmt.Sprintf(`{"transaction_type": %q, "amount": %s, "transaction_date": %q}`, typ, amount, date)
	return exactJSON(t, a.hrOf(driver).Post(drv(driver, "/finance"), body).Expect(http.StatusCreated))
}

// periodIn makes the driver a monthly period of the month of date in the
// given status and returns its id.
func (a *accB) periodIn(t *testing.T, driver uuid.UUID, date, status string) string {
	t.Helper()
	_, err := a.env.DB.Exec(context.Background(), `
		INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency, status)
		VALUES ($1, $2, 'monthly', date_trunc('month', $3::date)::date, (date_trunc('month', $3::date) + interval '1 month - 1 day')::date, 'CZK', $4)`,
		a.companyOf(driver), driver, date, status)
	if err != nil {
		t.Fatal(err)
	}
	return a.period(t, driver, date)
}

// penalty creates a penalty of the driver as HR.
func (a *accB) penalty(t *testing.T, driver uuid.UUID, fields map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"penalty_type": "speeding", "amount": 1000, "incident_date": pragueDay(0), "description": "Too fast"}
	for k, v := range fields {
		body[k] = v
	}
	return exactJSON(t, a.hrOf(driver).Post(drv(driver, "/penalties"), body).Expect(http.StatusCreated))
}

func (a *accB) dispute(t *testing.T, driver uuid.UUID, pen map[string]any) {
	t.Helper()
	a.hrOf(driver).Put(drv(driver, "/penalties/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "Not me"}).Expect(http.StatusOK)
}

// period returns the id of the driver's monthly period holding date.
func (a *accB) period(t *testing.T, driver uuid.UUID, date string) string {
	t.Helper()
	var id uuid.UUID
	err := a.env.DB.QueryRow(context.Background(), `SELECT id FROM finance_periods WHERE driver_id = $1 AND period_type = 'monthly'
		AND $2::date BETWEEN period_start AND period_end`, driver, date).Scan(&id)
	if err != nil {
		t.Fatalf("period of %s: %v", date, err)
	}
	return id.String()
}

// want checks an error answer without stopping the test.
func want(t *testing.T, r *webtest.Response, status int, name string) {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &body)
	if r.Status != status || body.Error != name {
		t.Errorf("%d %s, want %d %s", r.Status, r.Body, status, name)
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// hasKeys fails unless m holds every key.
func hasKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: missing field %q; has %v", what, k, keys(m))
		}
	}
}

// TestAccBPermissionMatrix walks docs/permissions.md for rating, finance, periods
// and penalties: every role against every endpoint.
func TestAccBPermissionMatrix(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	today := pragueDay(0)
	year := 1990
	type endpoint struct {
		name string
		// allowed roles → status; a role not listed must get 403 Forbidden.
		allowed map[string]int
		// run performs the call for the caller on the driver (own or other).
		run func(t *testing.T, c *webtest.Caller, driver uuid.UUID) *webtest.Response
		// ownOnly: for a driver caller, another driver is 403 AccessDenied.
		ownOnly bool
	}
	read := func(path string) func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
		return func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response { return c.Get(drv(d, path)) }
	}
	all := map[string]int{"admin": 200, "hr_manager": 200, "accountant": 200, "dispatcher": 200, "driver": 200}
	financeRead := map[string]int{"admin": 200, "hr_manager": 200, "accountant": 200, "driver": 200}
	endpoints := []endpoint{
		{name: "rating read", allowed: all, run: read("/rating"), ownOnly: true},
		{name: "rating history", allowed: all, run: read("/rating/history"), ownOnly: true},
		{name: "rating recalculate", allowed: map[string]int{"admin": 200, "hr_manager": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				return c.Post(drv(d, "/rating/calculate"), map[string]any{"period": month(0).String()})
			}},
		{name: "rating config update", allowed: map[string]int{"admin": 200, "hr_manager": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				return c.Put(configPath(a.company), map[string]any{"metrics": []any{map[string]any{"metric_name": "activity", "weight": 10}}})
			}},
		{name: "finance list", allowed: financeRead, run: read("/finance"), ownOnly: true},
		{name: "finance periods", allowed: financeRead, run: read("/finance/periods"), ownOnly: true},
		{name: "finance aggregates", allowed: financeRead, run: read("/finance/aggregates"), ownOnly: true},
		{name: "finance create", allowed: map[string]int{"admin": 201, "hr_manager": 201, "accountant": 201},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				return c.Post(drv(d, "/finance"), map[string]any{"transaction_type": "bonus", "amount": 100, "transaction_date": today})
			}},
		{name: "finance update", allowed: map[string]int{"admin": 200, "hr_manager": 200, "accountant": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				tx := a.tx(t, d, "bonus", "100", today)
				return c.Put(drv(d, "/finance/"+tx["id"].(string)), map[string]any{"status": "approved"})
			}},
		{name: "finance delete", allowed: map[string]int{"admin": 204, "hr_manager": 204},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				tx := a.tx(t, d, "bonus", "100", today)
				return c.Delete(drv(d, "/finance/"+tx["id"].(string)))
			}},
		{name: "period close", allowed: map[string]int{"admin": 200, "accountant": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				year++
				return c.Post(drv(d, "/finance/periods/"+a.periodIn(t, d, fmt.Sprintf("%d-01-15", year), "open")+"/close"), nil)
			}},
		{name: "period pay", allowed: map[string]int{"admin": 200, "accountant": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				year++
				return c.Post(drv(d, "/finance/periods/"+a.periodIn(t, d, fmt.Sprintf("%d-02-15", year), "closed")+"/pay"), nil)
			}},
		{name: "penalties list", allowed: financeRead, run: read("/penalties"), ownOnly: true},
		{name: "penalty create", allowed: map[string]int{"admin": 201, "hr_manager": 201},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				return c.Post(drv(d, "/penalties"), map[string]any{"penalty_type": "other", "amount": 10, "incident_date": today, "description": "x"})
			}},
		{name: "penalty dispute", allowed: map[string]int{"admin": 200, "hr_manager": 200, "driver": 200}, ownOnly: true,
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				pen := a.penalty(t, d, nil)
				return c.Put(drv(d, "/penalties/"+pen["id"].(string)+"/dispute"), map[string]any{"dispute_reason": "Not me"})
			}},
		{name: "penalty accept", allowed: map[string]int{"admin": 200, "hr_manager": 200, "driver": 200}, ownOnly: true,
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				pen := a.penalty(t, d, nil)
				return c.Put(drv(d, "/penalties/"+pen["id"].(string)+"/accept"), nil)
			}},
		{name: "penalty resolve", allowed: map[string]int{"admin": 200, "hr_manager": 200},
			run: func(t *testing.T, c *webtest.Caller, d uuid.UUID) *webtest.Response {
				pen := a.penalty(t, d, nil)
				a.dispute(t, d, pen)
				return c.Put(drv(d, "/penalties/"+pen["id"].(string)+"/resolve"), map[string]any{"resolution_action": "keep", "resolution": "ok"})
			}},
	}
	for _, e := range endpoints {
		t.Run(strings.ReplaceAll(e.name, " ", "_"), func(t *testing.T) {
			for _, role := range []string{"admin", "hr_manager", "accountant", "dispatcher", "driver"} {
				c := a.roles[role]
				r := e.run(t, c, a.own)
				if status, ok := e.allowed[role]; ok {
					if r.Status != status {
						t.Errorf("%s as %s: %d %s, want %d", e.name, role, r.Status, r.Body, status)
					}
				} else {
					want(t, r, http.StatusForbidden, "Forbidden")
				}
				// Every allowed role is refused another company's driver.
				if _, ok := e.allowed[role]; ok && e.name != "rating config update" && role != "driver" {
					want(t, e.run(t, c, a.foreign), http.StatusForbidden, "AccessDenied")
				}
			}
			if e.ownOnly {
				want(t, e.run(t, a.drv, a.other), http.StatusForbidden, "AccessDenied")
			}
		})
	}
	// Rating configuration of another company: 403 AccessDenied.
	want(t, a.hr.Put(configPath(a.otherCompany), map[string]any{"metrics": []any{map[string]any{"metric_name": "activity", "weight": 10}}}), http.StatusForbidden, "AccessDenied")
}

// TestAccBErrorOrder checks docs/errors.md on every finance, penalty and
// rating endpoint: token → role (403 Forbidden) → record (404) → company or
// own record (403 AccessDenied) → input (400/422) → state (409). A broken
// body or query value is input: it never hides an earlier answer.
func TestAccBErrorOrder(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	today := pragueDay(0)
	tx := a.tx(t, a.own, "bonus", "100", today)
	txOther := a.tx(t, a.other, "bonus", "100", today)
	pen := a.penalty(t, a.own, nil)
	penOther := a.penalty(t, a.other, nil)
	penForeign := a.penalty(t, a.foreign, nil)
	txForeign := a.tx(t, a.foreign, "bonus", "100", today)
	per := a.periodIn(t, a.own, "2019-05-10", "open")
	perForeign := a.period(t, a.foreign, today)
	missing := uuid.New()
	const broken = `{"status": `

	type call struct {
		method string
		// path for a driver and a sub-record id ("" when none)
		path func(d uuid.UUID, sub string) string
		sub  map[uuid.UUID]string // the driver's existing sub-record
		// forbidden is a role that may not do this at all; allowed one that may.
		forbidden, allowed *webtest.Caller
		query              bool // input comes in the query (page=0), not the body
		noBody             bool // the operation reads no body
	}
	subPath := func(prefix, suffix string) func(d uuid.UUID, sub string) string {
		return func(d uuid.UUID, sub string) string { return drv(d, prefix+sub+suffix) }
	}
	plain := func(p string) func(d uuid.UUID, sub string) string {
		return func(d uuid.UUID, _ string) string { return drv(d, p) }
	}
	txs := map[uuid.UUID]string{a.own: tx["id"].(string), a.other: txOther["id"].(string), a.foreign: txForeign["id"].(string)}
	pens := map[uuid.UUID]string{a.own: pen["id"].(string), a.other: penOther["id"].(string), a.foreign: penForeign["id"].(string)}
	pers := map[uuid.UUID]string{a.own: per, a.foreign: perForeign}
	calls := map[string]call{
		"create transaction": {method: "POST", path: plain("/finance"), forbidden: a.disp, allowed: a.acc},
		"update transaction": {method: "PUT", path: subPath("/finance/", ""), sub: txs, forbidden: a.disp, allowed: a.acc},
		"close period":       {method: "POST", path: subPath("/finance/periods/", "/close"), sub: pers, forbidden: a.hr, allowed: a.acc},
		"reopen period":      {method: "POST", path: subPath("/finance/periods/", "/reopen"), sub: pers, forbidden: a.hr, allowed: a.acc},
		"pay period":         {method: "POST", path: subPath("/finance/periods/", "/pay"), sub: pers, forbidden: a.hr, allowed: a.acc},
		"create penalty":     {method: "POST", path: plain("/penalties"), forbidden: a.acc, allowed: a.hr},
		"dispute penalty":    {method: "PUT", path: subPath("/penalties/", "/dispute"), sub: pens, forbidden: a.acc, allowed: a.hr},
		"resolve penalty":    {method: "PUT", path: subPath("/penalties/", "/resolve"), sub: pens, forbidden: a.acc, allowed: a.hr},
		"recalculate":        {method: "POST", path: plain("/rating/calculate"), forbidden: a.acc, allowed: a.hr},
		"list transactions":  {method: "GET", path: plain("/finance?page=0"), forbidden: a.disp, allowed: a.acc, query: true},
		"list penalties":     {method: "GET", path: plain("/penalties?page=0"), forbidden: a.disp, allowed: a.acc, query: true},
		"periods":            {method: "GET", path: plain("/finance/periods?year=abc"), forbidden: a.disp, allowed: a.acc, query: true},
		"aggregates":         {method: "GET", path: plain("/finance/aggregates?reference_date=2026-02-31"), forbidden: a.disp, allowed: a.acc, query: true},
		"rating history":     {method: "GET", path: plain("/rating/history?page=0"), forbidden: nil, allowed: a.hr, query: true},
		"rating":             {method: "GET", path: plain("/rating?period=2026-13"), forbidden: nil, allowed: a.hr, query: true},
	}
	send := func(c *webtest.Caller, method, path string, body any) *webtest.Response {
		if method == "GET" {
			return c.Get(path)
		}
		return c.Do(method, path, body)
	}
	for name, cl := range calls {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			var body any = broken
			if cl.query {
				body = nil
			}
			sub := func(d uuid.UUID) string { return cl.sub[d] }
			if cl.forbidden != nil {
				// Role first: before the 404 of a missing driver or record, a
				// non-UUID id, another company and a broken body.
				want(t, send(cl.forbidden, cl.method, cl.path(missing, sub(a.own)), body), http.StatusForbidden, "Forbidden")
				want(t, send(cl.forbidden, cl.method, strings.Replace(cl.path(a.own, sub(a.own)), a.own.String(), "not-a-uuid", 1), body), http.StatusForbidden, "Forbidden")
				want(t, send(cl.forbidden, cl.method, cl.path(a.foreign, sub(a.foreign)), body), http.StatusForbidden, "Forbidden")
				want(t, send(cl.forbidden, cl.method, cl.path(a.own, sub(a.own)), body), http.StatusForbidden, "Forbidden")
				if cl.sub != nil {
					want(t, send(cl.forbidden, cl.method, cl.path(a.own, missing.String()), body), http.StatusForbidden, "Forbidden")
					want(t, send(cl.forbidden, cl.method, cl.path(a.own, "42"), body), http.StatusForbidden, "Forbidden")
				}
			}
			// Then the record: 404 before the company check and the body.
			want(t, send(cl.allowed, cl.method, cl.path(missing, sub(a.own)), body), http.StatusNotFound, "NotFound")
			want(t, send(cl.allowed, cl.method, strings.Replace(cl.path(a.own, sub(a.own)), a.own.String(), "not-a-uuid", 1), body), http.StatusNotFound, "NotFound")
			if cl.sub != nil {
				want(t, send(cl.allowed, cl.method, cl.path(a.own, missing.String()), body), http.StatusNotFound, "NotFound")
				want(t, send(cl.allowed, cl.method, cl.path(a.own, "42"), body), http.StatusNotFound, "NotFound")
			}
			// Then the company: 403 AccessDenied before the body.
			want(t, send(cl.allowed, cl.method, cl.path(a.foreign, sub(a.foreign)), body), http.StatusForbidden, "AccessDenied")
			// A driver caller on another driver's record, where drivers may act.
			if name == "dispute penalty" || name == "list transactions" || name == "list penalties" || name == "periods" ||
				name == "aggregates" || name == "rating history" || name == "rating" {
				want(t, send(a.drv, cl.method, cl.path(a.other, sub(a.other)), body), http.StatusForbidden, "AccessDenied")
			}
			if cl.noBody {
				return
			}
			// Finally the input: 400.
			want(t, send(cl.allowed, cl.method, cl.path(a.own, sub(a.own)), body), http.StatusBadRequest, "BadRequest")
			if !cl.query {
				h := http.Header{"Content-Type": []string{"text/plain"}}
				if cl.forbidden != nil {
					want(t, cl.forbidden.Send(cl.method, cl.path(a.own, sub(a.own)), strings.NewReader(`{}`), h), http.StatusForbidden, "Forbidden")
				}
				want(t, cl.allowed.Send(cl.method, cl.path(a.own, sub(a.own)), strings.NewReader(`{}`), h), http.StatusBadRequest, "BadRequest")
			}
		})
	}

	// Rating configuration: role, then company (an unknown one is 404),
	// then the body.
	cfg := configPath(a.company)
	want(t, a.acc.Put(configPath(missing), broken), http.StatusForbidden, "Forbidden")
	want(t, a.acc.Put("/api/v0/companies/42/rating-config", broken), http.StatusForbidden, "Forbidden")
	want(t, a.acc.Put(cfg, broken), http.StatusForbidden, "Forbidden")
	want(t, a.hr.Put("/api/v0/companies/42/rating-config", broken), http.StatusNotFound, "NotFound")
	want(t, a.hr.Put(configPath(missing), broken), http.StatusNotFound, "NotFound")
	want(t, a.hr.Put(configPath(a.otherCompany), broken), http.StatusForbidden, "AccessDenied")
	want(t, a.hr.Put(cfg, broken), http.StatusBadRequest, "BadRequest")

	// Input (422) comes before state (409): resolving a pending penalty with
	// a bad action, disputing a resolved one without a reason.
	want(t, a.hr.Put(drv(a.own, "/penalties/"+pens[a.own]+"/resolve"), map[string]any{"resolution_action": "forgive"}), http.StatusUnprocessableEntity, "ValidationError")
	want(t, a.hr.Put(drv(a.own, "/penalties/"+pens[a.own]+"/resolve"), map[string]any{"resolution_action": "keep"}), http.StatusConflict, "Conflict")
	paid := a.tx(t, a.own, "bonus", "100", pragueDay(-40))
	a.acc.Put(drv(a.own, "/finance/"+paid["id"].(string)), map[string]any{"status": "approved"}).Expect(http.StatusOK)
	a.acc.Put(drv(a.own, "/finance/"+paid["id"].(string)), map[string]any{"status": "paid"}).Expect(http.StatusOK)
	want(t, a.acc.Put(drv(a.own, "/finance/"+paid["id"].(string)), map[string]any{"status": "nonsense"}), http.StatusUnprocessableEntity, "ValidationError")
	want(t, a.acc.Put(drv(a.own, "/finance/"+paid["id"].(string)), map[string]any{"status": "cancelled"}), http.StatusConflict, "Conflict")
	want(t, a.hr.Delete(drv(a.own, "/finance/"+paid["id"].(string))), http.StatusConflict, "Conflict")
	want(t, a.acc.Delete(drv(a.own, "/finance/"+missing.String())), http.StatusForbidden, "Forbidden")
	want(t, a.hr.Delete(drv(a.own, "/finance/"+missing.String())), http.StatusNotFound, "NotFound")
	want(t, a.hr.Delete(drv(a.foreign, "/finance/"+txs[a.foreign])), http.StatusForbidden, "AccessDenied")
}

// TestAccBLists checks docs/lists.md on the transaction, penalty and history
// lists: the envelope, per_page clamping, bad page values and the default
// orders with id as the final tie-break.
func TestAccBLists(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	// Transactions: two on the same date (created one after the other), one
	// older, one newer.
	d0, dOld, dNew := pragueDay(-10), pragueDay(-20), pragueDay(-5)
	first := a.tx(t, a.own, "bonus", "1", d0)
	second := a.tx(t, a.own, "bonus", "2", d0)
	old := a.tx(t, a.own, "bonus", "3", dOld)
	newer := a.tx(t, a.own, "bonus", "4", dNew)
	list := exactJSON(t, a.acc.Get(drv(a.own, "/finance")).Expect(http.StatusOK))
	hasKeys(t, "finance list", list, "current_page", "data", "first_page_url", "last_page", "last_page_url", "next_page_url",
		"per_page", "prev_page_url", "total", "from", "to", "summary")
	hasKeys(t, "finance summary", asObject(t, list["summary"]), "total_earnings", "total_deductions", "total_penalties", "net_amount", "currency")
	var order []string
	for _, it := range list["data"].([]any) {
		order = append(order, asObject(t, it)["id"].(string))
	}
	wantOrder := []string{newer["id"].(string), second["id"].(string), first["id"].(string), old["id"].(string)}
	if strings.Join(order, ",") != strings.Join(wantOrder, ",") {
		t.Errorf("transaction order %v, want %v (transaction_date desc, created_at desc)", order, wantOrder)
	}
	if list["per_page"] != json.Number("20") || list["current_page"] != json.Number("1") || list["total"] != json.Number("4") ||
		list["last_page"] != json.Number("1") || list["prev_page_url"] != nil || list["next_page_url"] != nil {
		t.Errorf("envelope %v", list)
	}
	page := exactJSON(t, a.acc.Get(drv(a.own, "/finance?per_page=1000")).Expect(http.StatusOK))
	if page["per_page"] != json.Number("100") {
		t.Errorf("per_page 1000 gives %v, want 100", page["per_page"])
	}
	page = exactJSON(t, a.acc.Get(drv(a.own, "/finance?per_page=3&page=2")).Expect(http.StatusOK))
	if page["current_page"] != json.Number("2") || page["last_page"] != json.Number("2") || len(page["data"].([]any)) != 1 ||
		page["prev_page_url"] == nil || page["next_page_url"] != nil || page["from"] != json.Number("4") || page["to"] != json.Number("4") {
		t.Errorf("second page %v", page)
	}
	// Summary of the whole filtered set, not the page: 1+2+3+4.
	expectMoney(t, asObject(t, page["summary"]), "total_earnings", "10.00")
	for _, q := range []string{"page=0", "page=-1", "page=abc", "page=1.5", "per_page=abc"} {
		want(t, a.acc.Get(drv(a.own, "/finance?"+q)), http.StatusBadRequest, "BadRequest")
		want(t, a.acc.Get(drv(a.own, "/penalties?"+q)), http.StatusBadRequest, "BadRequest")
		want(t, a.hr.Get(drv(a.own, "/rating/history?"+q)), http.StatusBadRequest, "BadRequest")
	}

	// Penalties: newest incident first; equal dates in id order.
	p1 := a.penalty(t, a.own, map[string]any{"incident_date": pragueDay(-3)})
	p2 := a.penalty(t, a.own, map[string]any{"incident_date": pragueDay(-1)})
	p3 := a.penalty(t, a.own, map[string]any{"incident_date": pragueDay(-3)})
	pl := exactJSON(t, a.acc.Get(drv(a.own, "/penalties?per_page=500")).Expect(http.StatusOK))
	hasKeys(t, "penalty list", pl, "current_page", "data", "first_page_url", "last_page", "last_page_url", "next_page_url",
		"per_page", "prev_page_url", "total", "summary")
	hasKeys(t, "penalty summary", asObject(t, pl["summary"]), "total_penalties", "pending_count", "disputed_count", "resolved_count")
	if pl["per_page"] != json.Number("100") {
		t.Errorf("penalties per_page 500 gives %v", pl["per_page"])
	}
	var got []string
	for _, it := range pl["data"].([]any) {
		got = append(got, asObject(t, it)["id"].(string))
	}
	same := []string{p1["id"].(string), p3["id"].(string)}
	sort.Strings(same)
	if len(got) != 3 || got[0] != p2["id"] || !((got[1] == same[0] && got[2] == same[1]) || (got[1] == same[1] && got[2] == same[0])) {
		t.Errorf("penalty order %v", got)
	}
	// The same request twice gives the same order (id breaks the tie).
	pl2 := exactJSON(t, a.acc.Get(drv(a.own, "/penalties")).Expect(http.StatusOK))
	for i, it := range pl2["data"].([]any) {
		if asObject(t, it)["id"] != got[i] {
			t.Errorf("penalty order not stable")
		}
	}

	// Rating history: per_page default 12, maximum 24.
	h := exactJSON(t, a.hr.Get(drv(a.own, "/rating/history")).Expect(http.StatusOK))
	if h["per_page"] != json.Number("12") {
		t.Errorf("history per_page default %v", h["per_page"])
	}
	h = exactJSON(t, a.hr.Get(drv(a.own, "/rating/history?per_page=100")).Expect(http.StatusOK))
	if h["per_page"] != json.Number("24") {
		t.Errorf("history per_page 100 gives %v", h["per_page"])
	}
	hasKeys(t, "history", h, "data", "summary")
	hasKeys(t, "history summary", asObject(t, h["summary"]), "highest_score", "highest_period", "lowest_score", "lowest_period", "average_score", "trend")
}

// TestAccBTransactions checks the finance transaction rules of the spec and
// docs/finance.md: the create and update answers, amounts, the status moves,
// the delete rules and the audit rows.
func TestAccBTransactions(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	today := pragueDay(0)

	// Create: 201, pending, created_by, amounts with two decimals; a numeric
	// string is read exactly.
	created := exactJSON(t, a.acc.Post(drv(a.own, "/finance"), map[string]any{
		"transaction_type": "base_salary", "category": "salary", "amount": "25000.5", "currency": "CZK",
		"transaction_date": today, "description": "Salary", "reference": "REF-1", "metadata": map[string]any{"k": "v"},
	}).Expect(http.StatusCreated))
	hasKeys(t, "created transaction", created, "id", "company_id", "driver_id", "period_id", "transaction_type", "category",
		"amount", "currency", "status", "transaction_date", "payment_date", "description", "reference", "order_id",
		"approved_by", "approved_at", "paid_by", "paid_at", "created_by", "metadata", "created_at", "updated_at")
	expectMoney(t, created, "amount", "25000.50")
	if created["status"] != "pending" || created["created_by"] == nil || created["period_id"] == nil || created["currency"] != "CZK" {
		t.Errorf("created %v", created)
	}
	for _, amount := range []any{"12.345", 12.345, json.Number("0.001"), "abc", "1e3x"} {
		want(t, a.acc.Post(drv(a.own, "/finance"), map[string]any{"transaction_type": "bonus", "amount": amount, "transaction_date": today}),
			http.StatusUnprocessableEntity, "ValidationError")
	}
	for _, missing := range []string{"transaction_type", "amount", "transaction_date"} {
		body := map[string]any{"transaction_type": "bonus", "amount": 10, "transaction_date": today}
		delete(body, missing)
		r := a.acc.Post(drv(a.own, "/finance"), body)
		want(t, r, http.StatusUnprocessableEntity, "ValidationError")
		if errs, _ := r.JSON()["errors"].(map[string]any); errs[missing] == nil {
			t.Errorf("no message for missing %s: %s", missing, r.Body)
		}
	}
	// A JSON number with many digits is not rounded through a float.
	exact := exactJSON(t, a.acc.Post(drv(a.own, "/finance"), `{"transaction_type": "bonus", "amount": 12345678.91, "transaction_date": "`+today+`"}`).Expect(http.StatusCreated))
	expectMoney(t, exact, "amount", "12345678.91")

	id := created["id"].(string)
	path := drv(a.own, "/finance/"+id)
	// Update answer: id, status, payment_date, approved_by, approved_at, updated_at.
	upd := exactJSON(t, a.acc.Put(path, map[string]any{"description": "Salary November"}).Expect(http.StatusOK))
	hasKeys(t, "update answer", upd, "id", "status", "payment_date", "approved_by", "approved_at", "updated_at")
	if upd["description"] != "Salary November" || upd["status"] != "pending" {
		t.Errorf("update of a pending transaction: %v", upd)
	}
	appr := exactJSON(t, a.acc.Put(path, map[string]any{"status": "approved"}).Expect(http.StatusOK))
	if appr["status"] != "approved" || appr["approved_by"] == nil || appr["approved_at"] == nil || appr["payment_date"] != nil {
		t.Errorf("approved %v", appr)
	}
	paid := exactJSON(t, a.acc.Put(path, map[string]any{"status": "paid"}).Expect(http.StatusOK))
	if paid["status"] != "paid" || paid["paid_by"] == nil || paid["paid_at"] == nil || paid["payment_date"] != today {
		t.Errorf("paid %v (payment_date should default to today %s)", paid, today)
	}
	// An explicit payment date is kept.
	t2 := a.tx(t, a.own, "bonus", "50", today)
	p2 := drv(a.own, "/finance/"+t2["id"].(string))
	a.acc.Put(p2, map[string]any{"status": "approved"}).Expect(http.StatusOK)
	if r := exactJSON(t, a.acc.Put(p2, map[string]any{"status": "paid", "payment_date": pragueDay(-1)}).Expect(http.StatusOK)); r["payment_date"] != pragueDay(-1) {
		t.Errorf("explicit payment_date: %v", r)
	}

	// Every move not in the table is 409.
	moves := []struct{ from, to string }{
		{"pending", "paid"}, {"approved", "pending"}, {"paid", "approved"}, {"paid", "cancelled"}, {"paid", "pending"},
		{"cancelled", "pending"}, {"cancelled", "approved"}, {"cancelled", "paid"}, {"pending", "disputed"}, {"approved", "disputed"},
	}
	reach := func(status string) string {
		x := a.tx(t, a.own, "bonus", "10", today)
		p := drv(a.own, "/finance/"+x["id"].(string))
		switch status {
		case "approved":
			a.acc.Put(p, map[string]any{"status": "approved"}).Expect(http.StatusOK)
		case "paid":
			a.acc.Put(p, map[string]any{"status": "approved"}).Expect(http.StatusOK)
			a.acc.Put(p, map[string]any{"status": "paid"}).Expect(http.StatusOK)
		case "cancelled":
			a.acc.Put(p, map[string]any{"status": "cancelled"}).Expect(http.StatusOK)
		}
		return p
	}
	for _, m := range moves {
		want(t, a.acc.Put(reach(m.from), map[string]any{"status": m.to}), http.StatusConflict, "Conflict")
	}
	for _, from := range []string{"pending", "approved"} {
		if r := exactJSON(t, a.acc.Put(reach(from), map[string]any{"status": "cancelled"}).Expect(http.StatusOK)); r["status"] != "cancelled" {
			t.Errorf("%s → cancelled: %v", from, r)
		}
	}

	// Delete: every status but paid, within 90 days of transaction_date.
	for _, status := range []string{"pending", "approved", "cancelled"} {
		p := reach(status)
		a.hr.Delete(p).Expect(http.StatusNoContent)
		want(t, a.acc.Put(p, map[string]any{"description": "x"}), http.StatusNotFound, "NotFound")
		want(t, a.hr.Delete(p), http.StatusNotFound, "NotFound")
	}
	want(t, a.hr.Delete(reach("paid")), http.StatusConflict, "Conflict")
	old := a.tx(t, a.own, "bonus", "10", pragueDay(-91))
	want(t, a.hr.Delete(drv(a.own, "/finance/"+old["id"].(string))), http.StatusConflict, "Conflict")
	edge := a.tx(t, a.own, "bonus", "10", pragueDay(-90))
	a.hr.Delete(drv(a.own, "/finance/"+edge["id"].(string))).Expect(http.StatusNoContent)
	// Deleted transactions leave the list.
	list := exactJSON(t, a.acc.Get(drv(a.own, "/finance?per_page=100")).Expect(http.StatusOK))
	for _, it := range list["data"].([]any) {
		if asObject(t, it)["id"] == edge["id"] {
			t.Errorf("deleted transaction listed")
		}
	}

	// Audit rows: created, updated (with only the changed fields), deleted.
	logs := a.hr.Get("/api/v0/audit-logs?entity_type=finance_transaction&entity_id=" + id).Expect(http.StatusOK).JSON()
	actions := map[string]int{}
	for _, it := range logs["data"].([]any) {
		row := it.(map[string]any)
		actions[row["action"].(string)]++
		if row["action"] == "updated" {
			nv := row["new_values"].(map[string]any)
			if _, ok := nv["amount"]; ok {
				t.Errorf("update audit row lists an unchanged amount: %v", row)
			}
		}
	}
	if actions["created"] != 1 || actions["updated"] != 3 {
		t.Errorf("audit actions %v, want created 1, updated 3", actions)
	}
	dl := a.hr.Get("/api/v0/audit-logs?entity_type=finance_transaction&entity_id=" + edge["id"].(string)).Expect(http.StatusOK).JSON()
	found := false
	for _, it := range dl["data"].([]any) {
		found = found || it.(map[string]any)["action"] == "deleted"
	}
	if !found {
		t.Errorf("no deleted audit row: %v", dl)
	}
}

// TestAccBPeriodsSummaryAggregates checks the formulas of docs/finance.md on
// one data set: period totals, the list summary, the penalty summary and the
// mtd/ytd/lifetime aggregates with their metadata, then closing and paying a
// period.
func TestAccBPeriodsSummaryAggregates(t *testing.T) {
	t.Parallel()
	a := newAccB(t) // own driver hired 2024-03-15
	move := func(tx map[string]any, status string) {
		a.acc.Put(drv(a.own, "/finance/"+tx["id"].(string)), map[string]any{"status": status}).Expect(http.StatusOK)
	}
	a.tx(t, a.own, "base_salary", "28000", "2024-11-05")
	a.tx(t, a.own, "base_salary", "30000", "2025-01-10")
	move(a.tx(t, a.own, "bonus", "2000", "2025-01-20"), "approved")
	a.tx(t, a.own, "deduction", "-500", "2025-01-25")
	a.tx(t, a.own, "base_salary", "30000", "2025-02-10")
	a.penalty(t, a.own, map[string]any{"amount": "1200", "incident_date": "2025-02-15", "penalty_type": "damage"})
	move(a.tx(t, a.own, "overtime", "1500", "2025-03-05"), "cancelled")
	a.tx(t, a.own, "base_salary", "31000", "2025-03-10")
	disputed := a.penalty(t, a.own, map[string]any{"amount": 800, "incident_date": "2025-03-12"})
	a.dispute(t, a.own, disputed)
	cancelled := a.penalty(t, a.own, map[string]any{"amount": 300, "incident_date": "2025-03-14"})
	a.dispute(t, a.own, cancelled)
	a.hr.Put(drv(a.own, "/penalties/"+cancelled["id"].(string)+"/resolve"), map[string]any{"resolution_action": "cancel", "resolution": "Camera fault"}).Expect(http.StatusOK)
	a.tx(t, a.own, "bonus", "999", "2025-04-02")

	// Periods: earnings, deductions (deductions and penalties), net, count;
	// cancelled rows left out, disputed ones in.
	periods := exactJSON(t, a.acc.Get(drv(a.own, "/finance/periods?year=2025")).Expect(http.StatusOK))
	if len(periods) != 1 {
		t.Errorf("periods answer has more than data: %v", keys(periods))
	}
	byStart := map[string]map[string]any{}
	for _, it := range periods["data"].([]any) {
		p := asObject(t, it)
		hasKeys(t, "period", p, "id", "driver_id", "company_id", "period_type", "period_start", "period_end", "status",
			"total_earnings", "total_deductions", "net_amount", "currency", "transactions_count", "closed_at", "paid_at", "closed_by")
		byStart[p["period_start"].(string)] = p
	}
	if len(byStart) != 4 {
		t.Fatalf("2025 periods %v", len(byStart))
	}
	for start, w := range map[string][4]string{
		"2025-01-01": {"32000.00", "500.00", "31500.00", "3"},
		"2025-02-01": {"30000.00", "1200.00", "28800.00", "2"},
		"2025-03-01": {"31000.00", "800.00", "30200.00", "2"},
		"2025-04-01": {"999.00", "0.00", "999.00", "1"},
	} {
		p := byStart[start]
		expectMoney(t, p, "total_earnings", w[0])
		expectMoney(t, p, "total_deductions", w[1])
		expectMoney(t, p, "net_amount", w[2])
		if p["transactions_count"] != json.Number(w[3]) || p["period_end"] == nil || p["status"] != "open" || p["period_type"] != "monthly" {
			t.Errorf("period %s: %v", start, p)
		}
	}
	if n := len(exactJSON(t, a.acc.Get(drv(a.own, "/finance/periods?year=2024")).Expect(http.StatusOK))["data"].([]any)); n != 1 {
		t.Errorf("2024 periods: %d", n)
	}
	if n := len(exactJSON(t, a.acc.Get(drv(a.own, "/finance/periods?status=closed")).Expect(http.StatusOK))["data"].([]any)); n != 0 {
		t.Errorf("closed periods: %d", n)
	}

	// List summary over the filtered set: every status but cancelled.
	list := exactJSON(t, a.acc.Get(drv(a.own, "/finance?from_date=2025-01-01&to_date=2025-03-31&per_page=2")).Expect(http.StatusOK))
	sum := asObject(t, list["summary"])
	expectMoney(t, sum, "total_earnings", "93000.00")
	expectMoney(t, sum, "total_deductions", "500.00")
	expectMoney(t, sum, "total_penalties", "2000.00")
	expectMoney(t, sum, "net_amount", "90500.00")
	if sum["currency"] != "CZK" || list["total"] != json.Number("9") {
		t.Errorf("summary %v, total %v", sum, list["total"])
	}
	// Filters: type, status (comma-separated values are OR).
	f := exactJSON(t, a.acc.Get(drv(a.own, "/finance?type=penalty&status=pending,disputed")).Expect(http.StatusOK))
	if f["total"] != json.Number("2") {
		t.Errorf("penalty records pending or disputed: %v", f["total"])
	}
	expectMoney(t, asObject(t, f["summary"]), "total_penalties", "2000.00")
	if st := exactJSON(t, a.acc.Get(drv(a.own, "/finance?status=cancelled")).Expect(http.StatusOK)); st["total"] != json.Number("2") {
		t.Errorf("cancelled: %v", st["total"])
	}

	// Penalty list summary: cancelled penalties left out of the sum.
	pl := exactJSON(t, a.acc.Get(drv(a.own, "/penalties")).Expect(http.StatusOK))
	ps := asObject(t, pl["summary"])
	expectMoney(t, ps, "total_penalties", "2000.00")
	if ps["pending_count"] != json.Number("1") || ps["disputed_count"] != json.Number("1") || ps["resolved_count"] != json.Number("0") {
		t.Errorf("penalty summary %v", ps)
	}
	pl = exactJSON(t, a.acc.Get(drv(a.own, "/penalties?status=cancelled")).Expect(http.StatusOK))
	expectMoney(t, asObject(t, pl["summary"]), "total_penalties", "0.00")

	// Aggregates as of 2025-03-20.
	aggs := exactJSON(t, a.acc.Get(drv(a.own, "/finance/aggregates?reference_date=2025-03-20")).Expect(http.StatusOK))
	if len(aggs) != 3 {
		t.Fatalf("aggregates keys %v", keys(aggs))
	}
	for _, c := range []struct {
		key                                         string
		earnings, deductions, penalties, count, avg string
	}{
		{"mtd", "31000.00", "0.00", "800.00", "1", "31000.00"},
		{"ytd", "93000.00", "500.00", "2000.00", "2", "31000.00"},
		{"lifetime", "121000.00", "500.00", "2000.00", "2", "10083.33"},
	} {
		ag := asObject(t, aggs[c.key])
		hasKeys(t, c.key, ag, "agg_type", "reference_date", "total_earnings", "total_deductions", "total_penalties",
			"penalties_count", "avg_monthly_earnings", "currency", "metadata")
		if ag["agg_type"] != c.key || ag["reference_date"] != "2025-03-20" || ag["currency"] != "CZK" || ag["penalties_count"] != json.Number(c.count) {
			t.Errorf("%s: %v", c.key, ag)
		}
		expectMoney(t, ag, "total_earnings", c.earnings)
		expectMoney(t, ag, "total_deductions", c.deductions)
		expectMoney(t, ag, "total_penalties", c.penalties)
		expectMoney(t, ag, "avg_monthly_earnings", c.avg)
	}
	ytd := asObject(t, asObject(t, aggs["ytd"])["metadata"])
	if ytd["months_worked"] != json.Number("3") {
		t.Errorf("months_worked %v", ytd["months_worked"])
	}
	hi, lo := asObject(t, ytd["highest_month"]), asObject(t, ytd["lowest_month"])
	if hi["month"] != "2025-01" || lo["month"] != "2025-02" {
		t.Errorf("highest %v, lowest %v", hi, lo)
	}
	expectMoney(t, hi, "amount", "31500.00")
	expectMoney(t, lo, "amount", "28800.00")
	life := asObject(t, asObject(t, aggs["lifetime"])["metadata"])
	if life["employment_months"] != json.Number("12") || life["first_transaction"] != "2024-11-05" {
		t.Errorf("lifetime metadata %v", life)
	}
	// type selects one aggregate.
	if one := exactJSON(t, a.acc.Get(drv(a.own, "/finance/aggregates?type=ytd&reference_date=2025-03-20")).Expect(http.StatusOK)); len(one) != 1 || one["ytd"] == nil {
		t.Errorf("type=ytd: %v", keys(one))
	}
	if all := exactJSON(t, a.acc.Get(drv(a.own, "/finance/aggregates?type=all")).Expect(http.StatusOK)); len(all) != 3 {
		t.Errorf("type=all: %v", keys(all))
	}
	want(t, a.acc.Get(drv(a.own, "/finance/aggregates?type=weekly")), http.StatusUnprocessableEntity, "ValidationError")
	// The default reference date is today (company time zone).
	def := exactJSON(t, a.drv.Get(drv(a.own, "/finance/aggregates")).Expect(http.StatusOK))
	if asObject(t, def["mtd"])["reference_date"] != pragueDay(0) {
		t.Errorf("default reference_date %v", asObject(t, def["mtd"])["reference_date"])
	}

	// Close January: nothing dated inside it may be created or changed.
	jan := byStart["2025-01-01"]["id"].(string)
	want(t, a.acc.Post(drv(a.own, "/finance/periods/"+jan+"/close"), nil), http.StatusConflict, "Conflict") // pending inside
	closed := exactJSON(t, a.acc.Post(drv(a.own, "/finance/periods/"+jan+"/close"), map[string]any{"force": true}).Expect(http.StatusOK))
	if closed["status"] != "closed" || closed["closed_at"] == nil || closed["closed_by"] == nil {
		t.Errorf("closed period %v", closed)
	}
	want(t, a.acc.Post(drv(a.own, "/finance/periods/"+jan+"/close"), nil), http.StatusConflict, "Conflict")
	want(t, a.acc.Post(drv(a.own, "/finance"), map[string]any{"transaction_type": "bonus", "amount": 1, "transaction_date": "2025-01-31"}), http.StatusConflict, "Conflict")
	want(t, a.hr.Post(drv(a.own, "/penalties"), map[string]any{"penalty_type": "other", "amount": 1, "incident_date": "2025-01-31", "description": "x"}), http.StatusConflict, "Conflict")
	janList := exactJSON(t, a.acc.Get(drv(a.own, "/finance?from_date=2025-01-01&to_date=2025-01-31")).Expect(http.StatusOK))
	for _, it := range janList["data"].([]any) {
		tx := asObject(t, it)
		want(t, a.acc.Put(drv(a.own, "/finance/"+tx["id"].(string)), map[string]any{"description": "changed"}), http.StatusConflict, "Conflict")
	}
	// A transaction cannot be moved into a closed period either.
	feb := a.tx(t, a.own, "bonus", "5", "2025-02-20")
	want(t, a.acc.Put(drv(a.own, "/finance/"+feb["id"].(string)), map[string]any{"transaction_date": "2025-01-05"}), http.StatusConflict, "Conflict")
	// Paying: closed → paid, approved transactions become paid.
	febID := byStart["2025-02-01"]["id"].(string)
	want(t, a.acc.Post(drv(a.own, "/finance/periods/"+febID+"/pay"), nil), http.StatusConflict, "Conflict")
	paidP := exactJSON(t, a.acc.Post(drv(a.own, "/finance/periods/"+jan+"/pay"), nil).Expect(http.StatusOK))
	if paidP["status"] != "paid" || paidP["paid_at"] == nil {
		t.Errorf("paid period %v", paidP)
	}
	want(t, a.acc.Post(drv(a.own, "/finance/periods/"+jan+"/pay"), nil), http.StatusConflict, "Conflict")
	janList = exactJSON(t, a.acc.Get(drv(a.own, "/finance?from_date=2025-01-01&to_date=2025-01-31&status=paid")).Expect(http.StatusOK))
	if janList["total"] != json.Number("1") {
		t.Fatalf("paid January transactions: %v", janList)
	}
	bonus := asObject(t, janList["data"].([]any)[0])
	if bonus["paid_by"] == nil || bonus["paid_at"] == nil || bonus["payment_date"] != pragueDay(0) {
		t.Errorf("transaction paid with its period: %v", bonus)
	}
	want(t, a.acc.Put(drv(a.own, "/finance/"+bonus["id"].(string)), map[string]any{"description": "changed"}), http.StatusConflict, "Conflict")
	// Audit rows of the period moves.
	logs := a.hr.Get("/api/v0/audit-logs?entity_type=finance_period&entity_id=" + jan).Expect(http.StatusOK).JSON()
	if n := len(logs["data"].([]any)); n != 2 {
		t.Errorf("finance_period audit rows: %d, want 2 (closed, paid)", n)
	}
}

// TestAccBPenalties checks the penalty endpoints of the spec and
// docs/finance.md: answers, the finance record moving with the penalty, validation, the
// state rules and the audit rows.
func TestAccBPenalties(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	today := pragueDay(0)
	record := func(pen map[string]any) map[string]any {
		t.Helper()
		list := exactJSON(t, a.acc.Get(drv(a.own, "/finance?type=penalty&per_page=100")).Expect(http.StatusOK))
		for _, it := range list["data"].([]any) {
			if tx := asObject(t, it); tx["id"] == pen["finance_id"] {
				return tx
			}
		}
		t.Fatalf("no finance record %v", pen["finance_id"])
		return nil
	}
	penPath := func(pen map[string]any, action string) string {
		return drv(a.own, "/penalties/"+pen["id"].(string)+"/"+action)
	}

	// Create answer and its finance record (category by type, −amount).
	created := exactJSON(t, a.hr.Post(drv(a.own, "/penalties"), map[string]any{
		"penalty_type": "accident", "severity": "major", "amount": "2500.5", "currency": "CZK", "incident_date": today,
		"location": "D1 km 12", "description": "Mirror broken", "evidence": []any{map[string]any{"type": "photo", "url": "https://example.test/1.jpg"}},
	}).Expect(http.StatusCreated))
	hasKeys(t, "created penalty", created, "id", "finance_id", "driver_id", "penalty_type", "severity", "amount", "currency",
		"status", "incident_date", "location", "created_by", "created_at")
	expectMoney(t, created, "amount", "2500.50")
	if created["status"] != "pending" || created["created_by"] == nil || created["severity"] != "major" {
		t.Errorf("created penalty %v", created)
	}
	rec := record(created)
	expectMoney(t, rec, "amount", "-2500.50")
	if rec["transaction_type"] != "penalty" || rec["category"] != "damage_fine" || rec["status"] != "pending" {
		t.Errorf("finance record of an accident %v", rec)
	}
	for typ, cat := range map[string]string{"damage": "damage_fine", "speeding": "penalty", "late_delivery": "penalty", "other": "penalty"} {
		if r := record(a.penalty(t, a.own, map[string]any{"penalty_type": typ})); r["category"] != cat {
			t.Errorf("category of %s: %v, want %s", typ, r["category"], cat)
		}
	}
	// The evidence type is one of photo, document, video, report, other.
	a.hr.Post(drv(a.own, "/penalties"), map[string]any{"penalty_type": "other", "amount": "10.00", "incident_date": pragueDay(0),
		"description": "x", "evidence": []any{map[string]any{"type": "image", "url": "https://example.test/2.png"}}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// Defaults: severity minor, currency of the company.
	def := a.penalty(t, a.own, map[string]any{"amount": 0})
	if def["severity"] != "minor" || def["currency"] != "CZK" {
		t.Errorf("defaults %v", def)
	}
	expectMoney(t, def, "amount", "0.00")
	// Validation.
	base := map[string]any{"penalty_type": "speeding", "amount": 100, "incident_date": today, "description": "x"}
	for field, bad := range map[string]any{"amount": -1, "penalty_type": "parking", "severity": "huge", "incident_date": "2025-02-30"} {
		body := map[string]any{}
		for k, v := range base {
			body[k] = v
		}
		body[field] = bad
		want(t, a.hr.Post(drv(a.own, "/penalties"), body), http.StatusUnprocessableEntity, "ValidationError")
	}
	for _, amount := range []any{"1.005", 1.005} {
		body := map[string]any{"penalty_type": "speeding", "amount": amount, "incident_date": today, "description": "x"}
		want(t, a.hr.Post(drv(a.own, "/penalties"), body), http.StatusUnprocessableEntity, "ValidationError")
	}
	for _, missing := range []string{"penalty_type", "amount", "incident_date", "description"} {
		body := map[string]any{}
		for k, v := range base {
			if k != missing {
				body[k] = v
			}
		}
		want(t, a.hr.Post(drv(a.own, "/penalties"), body), http.StatusUnprocessableEntity, "ValidationError")
	}

	// Dispute (the driver itself): answer {id, status, dispute_reason,
	// dispute_submitted_at, message}; the finance record is disputed.
	disp := exactJSON(t, a.drv.Put(penPath(created, "dispute"), map[string]any{
		"dispute_reason": "The mirror was broken before", "evidence": []any{map[string]any{"type": "document", "url": "https://example.test/a.pdf"}},
	}).Expect(http.StatusOK))
	hasKeys(t, "dispute answer", disp, "id", "status", "dispute_reason", "dispute_submitted_at", "message")
	if disp["status"] != "disputed" || disp["dispute_reason"] != "The mirror was broken before" || disp["dispute_submitted_at"] == nil ||
		!strings.Contains(disp["message"].(string), "5 business days") {
		t.Errorf("dispute answer %v", disp)
	}
	if r := record(created); r["status"] != "disputed" {
		t.Errorf("finance record after dispute %v", r)
	}
	want(t, a.drv.Put(penPath(created, "dispute"), map[string]any{"dispute_reason": "again"}), http.StatusConflict, "Conflict")
	want(t, a.drv.Put(penPath(created, "accept"), nil), http.StatusConflict, "Conflict")
	want(t, a.drv.Put(penPath(def, "dispute"), map[string]any{}), http.StatusUnprocessableEntity, "ValidationError")

	// Resolve reduce: new_amount ≥ 0 and below the amount.
	for _, bad := range []any{"2500.50", 3000, -1, "12.345", "abc"} {
		want(t, a.hr.Put(penPath(created, "resolve"), map[string]any{"resolution_action": "reduce", "new_amount": bad}), http.StatusUnprocessableEntity, "ValidationError")
	}
	want(t, a.hr.Put(penPath(created, "resolve"), map[string]any{"resolution_action": "reduce"}), http.StatusUnprocessableEntity, "ValidationError")
	res := exactJSON(t, a.hr.Put(penPath(created, "resolve"), map[string]any{"resolution_action": "reduce", "new_amount": "1000.25", "resolution": "Half"}).Expect(http.StatusOK))
	hasKeys(t, "resolve answer", res, "id", "status", "amount", "resolution", "resolved_by", "resolved_at")
	expectMoney(t, res, "amount", "1000.25")
	if res["status"] != "resolved" || res["resolution"] != "Half" || res["resolved_by"] == nil || res["resolved_at"] == nil {
		t.Errorf("reduce answer %v", res)
	}
	r := record(created)
	expectMoney(t, r, "amount", "-1000.25")
	if r["status"] != "pending" {
		t.Errorf("finance record after reduce %v", r)
	}
	want(t, a.hr.Put(penPath(created, "resolve"), map[string]any{"resolution_action": "keep"}), http.StatusConflict, "Conflict")

	// Reduce to 0 is allowed.
	zero := a.penalty(t, a.own, map[string]any{"amount": 400})
	a.dispute(t, a.own, zero)
	res = exactJSON(t, a.hr.Put(penPath(zero, "resolve"), map[string]any{"resolution_action": "reduce", "new_amount": 0}).Expect(http.StatusOK))
	expectMoney(t, res, "amount", "0.00")
	expectMoney(t, record(zero), "amount", "0.00")

	// Keep: resolved, original amount, record back to pending.
	keep := a.penalty(t, a.own, map[string]any{"amount": 700})
	a.dispute(t, a.own, keep)
	res = exactJSON(t, a.hr.Put(penPath(keep, "resolve"), map[string]any{"resolution_action": "keep", "resolution": "Upheld"}).Expect(http.StatusOK))
	expectMoney(t, res, "amount", "700.00")
	if res["status"] != "resolved" {
		t.Errorf("keep %v", res)
	}
	if r := record(keep); r["status"] != "pending" {
		t.Errorf("record after keep %v", r)
	}
	// Cancel: penalty cancelled, record cancelled.
	cancel := a.penalty(t, a.own, map[string]any{"amount": 900})
	a.dispute(t, a.own, cancel)
	res = exactJSON(t, a.hr.Put(penPath(cancel, "resolve"), map[string]any{"resolution_action": "cancel"}).Expect(http.StatusOK))
	if res["status"] != "cancelled" {
		t.Errorf("cancel %v", res)
	}
	if r := record(cancel); r["status"] != "cancelled" {
		t.Errorf("record after cancel %v", r)
	}
	// Resolving a pending penalty is 409.
	pending := a.penalty(t, a.own, nil)
	want(t, a.hr.Put(penPath(pending, "resolve"), map[string]any{"resolution_action": "keep"}), http.StatusConflict, "Conflict")
	// Accept (the driver, from pending).
	acc := exactJSON(t, a.drv.Put(penPath(pending, "accept"), nil).Expect(http.StatusOK))
	if acc["status"] != "accepted" {
		t.Errorf("accept %v", acc)
	}
	want(t, a.drv.Put(penPath(pending, "accept"), nil), http.StatusConflict, "Conflict")
	want(t, a.drv.Put(penPath(pending, "dispute"), map[string]any{"dispute_reason": "late"}), http.StatusConflict, "Conflict")

	// Audit rows: the penalty's create, dispute and resolution.
	logs := a.hr.Get("/api/v0/audit-logs?entity_type=penalty&entity_id=" + created["id"].(string)).Expect(http.StatusOK).JSON()
	actions := map[string]bool{}
	for _, it := range logs["data"].([]any) {
		row := it.(map[string]any)
		actions[row["action"].(string)] = true
		// Only the changed fields: a dispute does not change the amount.
		if row["action"] == "penalty.disputed" {
			ov, nv := row["old_values"].(map[string]any), row["new_values"].(map[string]any)
			if _, ok := ov["amount"]; ok || ov["status"] != "pending" || nv["status"] != "disputed" || nv["dispute_reason"] == nil {
				t.Errorf("dispute audit row %v → %v", ov, nv)
			}
		}
		if row["action"] == "penalty.resolved" {
			ov, nv := row["old_values"].(map[string]any), row["new_values"].(map[string]any)
			if ov["status"] != "disputed" || nv["status"] != "resolved" || nv["amount"] != 1000.25 || ov["amount"] != 2500.5 {
				t.Errorf("resolve audit row %v → %v", ov, nv)
			}
		}
	}
	for _, act := range []string{"penalty.created", "penalty.disputed", "penalty.resolved"} {
		if !actions[act] {
			t.Errorf("no %s audit row for the penalty: %v", act, actions)
		}
	}
}

// f64 reads a JSON number of an exactJSON body.
func f64(t *testing.T, v any) float64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("not a number: %#v", v)
	}
	x, err := n.Float64()
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func near(a, b float64) bool { return a-b < 0.005 && b-a < 0.005 }

// TestAccBRating checks docs/rating.md and the spec's rating endpoints: every
// metric of a prepared driver, contribution and total_score, disabled
// metrics, configuration merge and validation, rank_percentile whatever the
// order of reads, score_change, history and its summary.
func TestAccBRating(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	ctx := context.Background()
	loc := prague
	cur := month(0)
	monthEnd := cur.Last().Time()
	day := func(tm interface{ Format(string) string }) string { return tm.Format("2006-01-02") }
	docID := func(driver uuid.UUID, typ string) uuid.UUID {
		var id uuid.UUID
		if err := a.env.DB.QueryRow(ctx, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = $2`, driver, typ).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	_ = loc
	// Required documents as of the month's last day: valid (100), warning
	// (50), expiring_soon (25), expired (0), no data (0): mean 35.
	for typ, until := range map[string]string{
		"passport":        day(monthEnd.AddDate(2, 0, 0)),
		"drivers_license": day(monthEnd.AddDate(0, 0, 20)),
		"tachograph_card": day(monthEnd.AddDate(0, 0, 5)),
		"code_95":         day(monthEnd.AddDate(-1, 0, 0)),
	} {
		mustUpload(t, a.hr, docID(a.own, typ), filePart(typ+".pdf", samplePDF(t, 1000)), field("valid_until", until))
	}
	// Penalties this month: 1000 and 1500 count, a cancelled one does not:
	// count 100 × (1 − 2/5) = 60, amount 100 × (1 − 2500/10000) = 75.
	inMonth := day(cur.First().Time().AddDate(0, 0, 1))
	a.penalty(t, a.own, map[string]any{"amount": 1000, "incident_date": inMonth})
	a.penalty(t, a.own, map[string]any{"amount": "1500", "incident_date": inMonth})
	gone := a.penalty(t, a.own, map[string]any{"amount": 3000, "incident_date": inMonth})
	a.dispute(t, a.own, gone)
	a.hr.Put(drv(a.own, "/penalties/"+gone["id"].(string)+"/resolve"), map[string]any{"resolution_action": "cancel"}).Expect(http.StatusOK)
	// Profile: first_name, last_name, email, status, hire_date = 5 of 20: 25.
	// No renewals: 100. No orders in the company: activity not applicable.
	// total = (35×30 + 60×20 + 75×20 + 25×10 + 100×10) / 90 = 55.56.
	r := exactJSON(t, a.drv.Get(drv(a.own, "/rating")).Expect(http.StatusOK))
	hasKeys(t, "rating", r, "driver_id", "total_score", "rating_period", "rank_percentile", "previous_score", "score_change", "components", "calculated_at")
	if r["rating_period"] != cur.String() || r["driver_id"] != a.own.String() {
		t.Errorf("rating %v", r)
	}
	if got := f64(t, r["total_score"]); !near(got, 55.56) {
		t.Errorf("total_score %v, want 55.56", got)
	}
	comps := asObject(t, r["components"])
	wantScores := map[string][2]float64{
		"document_expiration": {35, 30}, "penalties_count": {60, 20}, "penalties_amount": {75, 20},
		"profile_completeness": {25, 10}, "document_upload_timeliness": {100, 10}, "activity": {0, 10},
	}
	if len(comps) != 6 {
		t.Errorf("components %v", keys(comps))
	}
	for name, w := range wantScores {
		c := asObject(t, comps[name])
		hasKeys(t, name, c, "score", "weight", "contribution", "details")
		score, weight, contrib := f64(t, c["score"]), f64(t, c["weight"]), f64(t, c["contribution"])
		if !near(score, w[0]) || !near(weight, w[1]) {
			t.Errorf("%s: score %v weight %v, want %v %v", name, score, weight, w[0], w[1])
		}
		if name != "activity" && !near(contrib, score*weight/100) {
			t.Errorf("%s: contribution %v ≠ score × weight / 100", name, contrib)
		}
		if d, _ := c["details"].(string); d == "" {
			t.Errorf("%s: no details", name)
		}
	}

	// A disabled metric is left out of components and of the total:
	// (1050 + 1200 + 1500 + 1000) / 80 = 59.38.
	cfg := configPath(a.company)
	up := exactJSON(t, a.hr.Put(cfg, map[string]any{"metrics": []any{map[string]any{"metric_name": "profile_completeness", "is_enabled": false}}}).Expect(http.StatusOK))
	hasKeys(t, "config update", up, "message", "updated_metrics", "total_weight")
	if up["updated_metrics"] != json.Number("1") || up["total_weight"] != json.Number("100") {
		t.Errorf("config update answer %v", up)
	}
	r = exactJSON(t, a.hr.Get(drv(a.own, "/rating")).Expect(http.StatusOK))
	if _, ok := asObject(t, r["components"])["profile_completeness"]; ok {
		t.Errorf("disabled metric listed: %v", keys(asObject(t, r["components"])))
	}
	if got := f64(t, r["total_score"]); !near(got, 59.38) {
		t.Errorf("total without profile_completeness %v, want 59.38", got)
	}
	// Partial updates merge: weights move between two metrics, a threshold
	// changes alone; thresholds merge key by key.
	up = exactJSON(t, a.hr.Put(cfg, map[string]any{"metrics": []any{
		map[string]any{"metric_name": "penalties_count", "weight": 25},
		map[string]any{"metric_name": "activity", "weight": "5"},
	}}).Expect(http.StatusOK))
	if up["updated_metrics"] != json.Number("2") || up["total_weight"] != json.Number("100") {
		t.Errorf("two-metric update %v", up)
	}
	a.hr.Put(cfg, map[string]any{"metrics": []any{map[string]any{"metric_name": "penalties_count", "thresholds": map[string]any{"max_count": 4}}}}).Expect(http.StatusOK)
	got := a.hr.Get(cfg).Expect(http.StatusOK).JSON()
	pc := metricByName(t, got, "penalties_count")
	if pc["weight"] != float64(25) || pc["thresholds"].(map[string]any)["max_count"] != float64(4) || metricByName(t, got, "profile_completeness")["is_enabled"] != false {
		t.Errorf("merged config %v", got)
	}
	// Validation on the merged whole.
	for name, body := range map[string][]any{
		"sum not 100":     {map[string]any{"metric_name": "activity", "weight": 20}},
		"weight over 100": {map[string]any{"metric_name": "activity", "weight": 101}},
		"negative weight": {map[string]any{"metric_name": "activity", "weight": -5}},
		"unknown metric":  {map[string]any{"metric_name": "speed", "weight": 10}},
		"two enabled": {
			map[string]any{"metric_name": "document_expiration", "is_enabled": false},
			map[string]any{"metric_name": "penalties_amount", "is_enabled": false},
			map[string]any{"metric_name": "activity", "is_enabled": false},
		},
		"no metrics": {},
	} {
		r := a.hr.Put(cfg, map[string]any{"metrics": body})
		if r.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s, want 422", name, r.Status, r.Body)
		}
	}
	// Back to the defaults.
	a.hr.Put(cfg, map[string]any{"metrics": []any{
		map[string]any{"metric_name": "penalties_count", "weight": 20, "thresholds": map[string]any{"max_count": 5}},
		map[string]any{"metric_name": "activity", "weight": 10},
		map[string]any{"metric_name": "profile_completeness", "is_enabled": true},
	}}).Expect(http.StatusOK)

	// Recalculate: {message, snapshot_id, total_score, calculated_at}; a past
	// month then gives previous_score and score_change.
	prev := cur.Prev()
	calc := exactJSON(t, a.hr.Post(drv(a.own, "/rating/calculate"), map[string]any{"period": prev.String()}).Expect(http.StatusOK))
	hasKeys(t, "recalculate", calc, "message", "snapshot_id", "total_score", "calculated_at")
	r = exactJSON(t, a.hr.Get(drv(a.own, "/rating")).Expect(http.StatusOK))
	if r["previous_score"] == nil || !near(f64(t, r["score_change"]), f64(t, r["total_score"])-f64(t, r["previous_score"])) {
		t.Errorf("score_change %v", r)
	}
	if !near(f64(t, r["previous_score"]), f64(t, calc["total_score"])) {
		t.Errorf("previous_score %v, want %v", r["previous_score"], calc["total_score"])
	}
	past := exactJSON(t, a.hr.Get(drv(a.own, "/rating?period="+prev.String())).Expect(http.StatusOK))
	if past["rating_period"] != prev.String() || past["id"] != calc["snapshot_id"] {
		t.Errorf("past rating %v", past)
	}
	// A past month not rated yet is rated on request.
	older := prev.Prev().Prev()
	if o := exactJSON(t, a.hr.Get(drv(a.own, "/rating?period="+older.String())).Expect(http.StatusOK)); o["rating_period"] != older.String() {
		t.Errorf("unrated past month %v", o)
	}
}

// TestAccBRankPercentile: rank_percentile = ceil(100 × drivers with a
// total ≤ this one / drivers rated in the period), against the month's
// stored snapshots, whatever the order in which the ratings are read; a read
// writes no snapshot.
func TestAccBRankPercentile(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Rank", "enterprise")
	hr := env.As(company, auth.RoleHRManager)
	// Three drivers with 0, 1 and 3 penalties this month: best, middle, worst.
	var ids []uuid.UUID
	for i, n := range []int{0, 1, 3} {
		id := env.Driver(company, fixtures.Email(fmt.Sprintf("r%d@example.test", i)))
		ids = append(ids, id)
		for j := 0; j < n; j++ {
			hr.Post(drv(id, "/penalties"), map[string]any{"penalty_type": "other", "amount": 500, "incident_date": pragueDay(0), "description": "x"}).Expect(http.StatusCreated)
		}
	}
	// The changes (made under the request's row-level security) marked the
	// company for a background refresh of its stored current month.
	var marks int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1`, company).Scan(&marks); err != nil || marks != 1 {
		t.Errorf("%d refresh marks (%v), want 1", marks, err)
	}
	// Nothing stored yet: each read ranks its driver alone.
	if r := exactJSON(t, hr.Get(drv(ids[2], "/rating")).Expect(http.StatusOK)); r["rank_percentile"] != json.Number("100") {
		t.Errorf("rank_percentile with no stored snapshot %v, want 100", r["rank_percentile"])
	}
	// A recalculation stores the month for the whole active company (as the
	// background refresh does).
	hr.Post(drv(ids[0], "/rating/calculate"), map[string]any{}).Expect(http.StatusOK)
	// Worst first: 1 of 3 at or below it → 34; then middle 67, best 100.
	order := []struct {
		idx int
		pct string
	}{{2, "34"}, {1, "67"}, {0, "100"}}
	for _, o := range order {
		r := exactJSON(t, hr.Get(drv(ids[o.idx], "/rating")).Expect(http.StatusOK))
		if r["rank_percentile"] != json.Number(o.pct) {
			t.Errorf("driver %d: rank_percentile %v, want %s", o.idx, r["rank_percentile"], o.pct)
		}
	}

	// Concurrent reads of a month in another company: every read answers,
	// and none writes a snapshot.
	c2 := env.Company("Rank2", "enterprise")
	hr2 := env.As(c2, auth.RoleHRManager)
	var ids2 []uuid.UUID
	for i := 0; i < 6; i++ {
		ids2 = append(ids2, env.Driver(c2))
	}
	var wg sync.WaitGroup
	status := make([]int, len(ids2))
	for i, id := range ids2 {
		wg.Add(1)
		go func(i int, id uuid.UUID) {
			defer wg.Done()
			status[i] = hr2.Get(drv(id, "/rating")).Status
		}(i, id)
	}
	wg.Wait()
	for i, st := range status {
		if st != http.StatusOK {
			t.Errorf("concurrent read %d: %d", i, st)
		}
	}
	var n, drivers int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT driver_id) FROM rating_snapshots WHERE company_id = $1`, c2).Scan(&n, &drivers); err != nil || n != 0 || drivers != 0 {
		t.Errorf("snapshots %d of %d drivers (%v), want none: reads never write", n, drivers, err)
	}
}

// TestAccBRatingHistory: data newest first with rating_period YYYY-MM,
// score_change; the summary over the window; the trend.
func TestAccBRatingHistory(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	path := drv(a.own, "/rating/history")
	h := exactJSON(t, a.hr.Get(path).Expect(http.StatusOK))
	if s := asObject(t, h["summary"]); s["trend"] != "insufficient_data" {
		t.Errorf("empty history summary %v", s)
	}
	// Penalties falling month by month: 3, 2, 1, 0 → rising scores.
	for m := -3; m <= 0; m++ {
		for j := 0; j < -m; j++ {
			a.penalty(t, a.own, map[string]any{"amount": 1000, "incident_date": month(m).First().AddDays(2).String()})
		}
		a.hr.Post(drv(a.own, "/rating/calculate"), map[string]any{"period": month(m).String()}).Expect(http.StatusOK)
	}
	h = exactJSON(t, a.drv.Get(path).Expect(http.StatusOK))
	data := h["data"].([]any)
	if len(data) != 4 {
		t.Fatalf("history %v", h)
	}
	var scores []float64
	for i, it := range data {
		row := asObject(t, it)
		hasKeys(t, "history item", row, "rating_period", "total_score", "rank_percentile", "score_change")
		if row["rating_period"] != month(-i).String() {
			t.Errorf("item %d period %v, want %s (newest first)", i, row["rating_period"], month(-i))
		}
		scores = append(scores, f64(t, row["total_score"]))
		if i < 3 && !near(f64(t, row["score_change"]), scores[i]-f64(t, asObject(t, data[i+1])["total_score"])) {
			t.Errorf("score_change of %v", row)
		}
	}
	s := asObject(t, h["summary"])
	if s["highest_period"] != month(0).String() || s["lowest_period"] != month(-3).String() || s["trend"] != "improving" {
		t.Errorf("summary %v", s)
	}
	if !near(f64(t, s["highest_score"]), scores[0]) || !near(f64(t, s["lowest_score"]), scores[3]) ||
		!near(f64(t, s["average_score"]), (scores[0]+scores[1]+scores[2]+scores[3])/4) {
		t.Errorf("summary numbers %v for %v", s, scores)
	}
	// from/to narrow the window.
	h = exactJSON(t, a.hr.Get(path+"?from="+month(-1).First().String()+"&to="+month(0).Last().String()).Expect(http.StatusOK))
	if len(h["data"].([]any)) != 2 {
		t.Errorf("window of two months: %v", h["data"])
	}
	want(t, a.hr.Get(path+"?from=2025-13-01"), http.StatusBadRequest, "BadRequest")
}

// TestAccBResolveIgnoresNewAmount: new_amount is required only with reduce;
// keep and cancel ignore it.
func TestAccBResolveIgnoresNewAmount(t *testing.T) {
	t.Parallel()
	a := newAccB(t)
	for action, status := range map[string]string{"keep": "resolved", "cancel": "cancelled"} {
		pen := a.penalty(t, a.own, map[string]any{"amount": 800})
		a.dispute(t, a.own, pen)
		r := exactJSON(t, a.hr.Put(drv(a.own, "/penalties/"+pen["id"].(string)+"/resolve"),
			map[string]any{"resolution_action": action, "new_amount": 100, "resolution": "done"}).Expect(http.StatusOK))
		if r["status"] != status {
			t.Errorf("%s: %v", action, r)
		}
		expectMoney(t, r, "amount", "800.00")
	}
}
