package api_test

// Black-box checks of the rating, finance, period and penalty rules of the
// specification and DECISIONS §3, §4, §5, §7, §8 and §10, written rule by
// rule from those documents (not from the code).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
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
	a.own = env.Driver(a.company, webtest.DriverFixture{Email: a.ownMail, HireDate: "2024-03-15"})
	a.other = env.Driver(a.company, webtest.DriverFixture{})
	a.foreign = env.Driver(a.otherCompany, webtest.DriverFixture{})
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

// TestAccBPermissionMatrix walks DECISIONS §3 for rating, finance, periods
// and penalties: every role against every endpoint.
func TestAccBPermissionMatrix(t *testing.T) {
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

// TestAccBErrorOrder checks DECISIONS §4 on every finance, penalty and
// rating endpoint: token → role (403 Forbidden) → record (404) → company or
// own record (403 AccessDenied) → input (400/422) → state (409). A broken
// body or query value is input: it never hides an earlier answer.
func TestAccBErrorOrder(t *testing.T) {
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
		"close period":       {method: "POST", path: subPath("/finance/periods/", "/close"), sub: pers, forbidden: a.hr, allowed: a.acc, noBody: true},
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
