package api_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// monthFixture is a company with two offices and two drivers with money in
// last month: Jan (office A, bank fields, CZK and EUR) and Petra (office
// B), plus what must stay out of last month's list: a deleted driver's
// period, this month's period, another company's period.
type monthFixture struct {
	env               *webtest.Env
	company           uuid.UUID
	hr, acc           *webtest.Caller
	officeA, officeB  uuid.UUID
	jan, petra        uuid.UUID
	janNo, petraNo    string
	month             string // last month's first day, YYYY-MM-01
	other             *webtest.Caller
	otherDriver       uuid.UUID
	otherOffice       uuid.UUID
	salary, deduction string // Jan's approved salary and pending deduction
}

// lastMonth is the first day of last month in the companies' time zone.
func lastMonth() time.Time {
	t := pragueToday()
	return time.Date(t.Year(), t.Month()-1, 1, 0, 0, 0, 0, time.UTC)
}

func newMonthFixture(t *testing.T) *monthFixture {
	t.Helper()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	f := &monthFixture{env: env, company: company, hr: env.As(company, auth.RoleHRManager), acc: env.As(company, auth.RoleAccountant),
		month: lastMonth().Format(time.DateOnly)}
	f.officeA = fixtures.Office(t, env.DB, company, "Praha", fixtures.City("Praha", "CZ"))
	f.officeB = fixtures.Office(t, env.DB, company, "Ostrava", fixtures.City("Ostrava", "CZ"))
	f.jan = env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.InOffice(f.officeA), func(s *fixtures.DriverSpec) {
		s.BankAccount, s.IBAN = fixtures.Text("19-2000145399/0800"), fixtures.Text("CZ6508000000192000145399")
	})
	f.petra = env.Driver(company, fixtures.Name("Petra", "Svobodová"), fixtures.InOffice(f.officeB))
	gone := env.Driver(company, fixtures.Name("Gustav", "Pryč"))
	for id, no := range map[uuid.UUID]*string{f.jan: &f.janNo, f.petra: &f.petraNo} {
		if err := env.DB.QueryRow(context.Background(), `SELECT internal_number FROM drivers WHERE id = $1`, id).Scan(no); err != nil {
			t.Fatal(err)
		}
	}
	day := f.day(10)
	f.salary = f.tx(t, f.jan, "base_salary", "30000.00", "CZK", day)
	f.acc.Put(f.txPath(f.jan, f.salary), map[string]any{"status": "approved"}).Expect(http.StatusOK)
	f.deduction = f.tx(t, f.jan, "deduction", "-250.00", "CZK", day)
	cancelled := f.tx(t, f.jan, "bonus", "1000.00", "CZK", day)
	f.acc.Put(f.txPath(f.jan, cancelled), map[string]any{"status": "cancelled"}).Expect(http.StatusOK)
	deleted := f.tx(t, f.jan, "overtime", "500.00", "CZK", day)
	f.hr.Delete(f.txPath(f.jan, deleted)).Expect(http.StatusNoContent)
	f.penalty(t, f.jan, "400.00", day)
	f.tx(t, f.jan, "allowance", "120.50", "EUR", day)
	f.tx(t, f.petra, "bonus", "1500.50", "CZK", day)
	pen := f.penalty(t, f.petra, "200.00", day)
	f.hr.Put("/api/v0/drivers/"+f.petra.String()+"/penalties/"+pen+"/dispute", map[string]any{"dispute_reason": "Nejel jsem."}).Expect(http.StatusOK)
	f.tx(t, gone, "bonus", "10.00", "CZK", day)
	if _, err := env.DB.Exec(context.Background(), `UPDATE drivers SET deleted_at = now() WHERE id = $1`, gone); err != nil {
		t.Fatal(err)
	}
	f.tx(t, f.jan, "bonus", "10.00", "CZK", pragueDay(0)) // this month
	other := env.Company("Other", "free")
	f.other = env.As(other, auth.RoleAccountant)
	f.otherOffice = fixtures.Office(t, env.DB, other, "Brno", fixtures.City("Brno", "CZ"))
	f.otherDriver = env.Driver(other, fixtures.InOffice(f.otherOffice))
	env.As(other, auth.RoleHRManager).Post("/api/v0/drivers/"+f.otherDriver.String()+"/finance",
		map[string]any{"transaction_type": "bonus", "amount": "7.00", "transaction_date": day}).Expect(http.StatusCreated)
	return f
}

// day is a date of last month.
func (f *monthFixture) day(d int) string { return f.month[:8] + fmt.Sprintf("%02d", d) }

func (f *monthFixture) txPath(driver uuid.UUID, id string) string {
	return "/api/v0/drivers/" + driver.String() + "/finance/" + id
}

func (f *monthFixture) tx(t *testing.T, driver uuid.UUID, typ, amount, currency, date string) string {
	t.Helper()
	r := f.hr.Post("/api/v0/drivers/"+driver.String()+"/finance", map[string]any{
		"transaction_type": typ, "amount": amount, "currency": currency, "transaction_date": date}).Expect(http.StatusCreated)
	return r.JSON()["id"].(string)
}

func (f *monthFixture) penalty(t *testing.T, driver uuid.UUID, amount, date string) string {
	t.Helper()
	r := f.hr.Post("/api/v0/drivers/"+driver.String()+"/penalties", map[string]any{
		"penalty_type": "other", "amount": amount, "incident_date": date, "description": "Pokuta"}).Expect(http.StatusCreated)
	return r.JSON()["id"].(string)
}

// monthPage is the list's answer as the tests read it.
type monthPage struct {
	Total int `json:"total"`
	Data  []struct {
		ID              uuid.UUID      `json:"id"`
		DriverID        uuid.UUID      `json:"driver_id"`
		Status          string         `json:"status"`
		Currency        string         `json:"currency"`
		PeriodStart     string         `json:"period_start"`
		TotalEarnings   json.Number    `json:"total_earnings"`
		TotalDeductions json.Number    `json:"total_deductions"`
		NetAmount       json.Number    `json:"net_amount"`
		PendingCount    int            `json:"pending_count"`
		Driver          map[string]any `json:"driver"`
	} `json:"data"`
	Summary struct {
		Periods int `json:"periods"`
		Open    struct {
			Periods      int `json:"periods"`
			WithPending  int `json:"with_pending"`
			PendingCount int `json:"pending_count"`
		} `json:"open"`
	} `json:"summary"`
}

func (f *monthFixture) list(t *testing.T, c *webtest.Caller, query string) monthPage {
	t.Helper()
	var p monthPage
	r := c.Get("/api/v0/finance/periods?period_start=" + f.month + query).Expect(http.StatusOK)
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.UseNumber()
	if err := dec.Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMonthEndList(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	p := f.list(t, f.acc, "")
	if p.Total != 3 || len(p.Data) != 3 {
		t.Fatalf("%d periods (%d on the page), want Jan CZK, Jan EUR, Petra CZK: %+v", p.Total, len(p.Data), p.Data)
	}
	type want struct {
		driver                    uuid.UUID
		number, name, currency    string
		earnings, deductions, net string
		pending                   int
	}
	wants := []want{
		// The pending deduction and the penalty's record; the cancelled
		// bonus and the deleted overtime are left out of the totals.
		{f.jan, f.janNo, "Jan Novák", "CZK", "30000.00", "650.00", "29350.00", 2},
		{f.jan, f.janNo, "Jan Novák", "EUR", "120.50", "0.00", "120.50", 1},
		// The pending bonus and the disputed penalty's record.
		{f.petra, f.petraNo, "Petra Svobodová", "CZK", "1500.50", "200.00", "1300.50", 2},
	}
	for i, w := range wants {
		got := p.Data[i]
		if got.DriverID != w.driver || got.Driver["internal_number"] != w.number || got.Driver["name"] != w.name ||
			got.Driver["id"] != w.driver.String() || got.Currency != w.currency || got.PeriodStart != f.month || got.Status != "open" ||
			string(got.TotalEarnings) != w.earnings || string(got.TotalDeductions) != w.deductions || string(got.NetAmount) != w.net ||
			got.PendingCount != w.pending {
			t.Errorf("row %d = %+v, want %+v", i, got, w)
		}
	}
	if p.Summary.Periods != 3 || p.Summary.Open.Periods != 3 || p.Summary.Open.WithPending != 3 || p.Summary.Open.PendingCount != 5 {
		t.Errorf("summary %+v", p.Summary)
	}

	// Filters: an office, a status, a type, paging; another company's
	// office matches nobody.
	if p := f.list(t, f.hr, "&office_id="+f.officeB.String()); p.Total != 1 || p.Data[0].DriverID != f.petra {
		t.Errorf("office B: %+v", p.Data)
	}
	if p := f.list(t, f.acc, "&office_id="+f.otherOffice.String()); p.Total != 0 || len(p.Data) != 0 {
		t.Errorf("another company's office: %+v", p.Data)
	}
	if p := f.list(t, f.acc, "&status=closed,paid"); p.Total != 0 {
		t.Errorf("closed: %+v", p.Data)
	}
	if p := f.list(t, f.acc, "&period_type=weekly"); p.Total != 0 {
		t.Errorf("weekly: %+v", p.Data)
	}
	if p := f.list(t, f.acc, "&per_page=1&page=2"); p.Total != 3 || len(p.Data) != 1 || p.Data[0].Currency != "EUR" {
		t.Errorf("page 2 of 1: %+v", p.Data)
	}
	if p := f.list(t, f.other, ""); p.Total != 1 || p.Data[0].DriverID != f.otherDriver {
		t.Errorf("the other company sees %+v", p.Data)
	}

	// Bad input: the month (422 on period_start), the enumerations (422),
	// a malformed office id (400).
	for _, q := range []string{"", "period_start=", "period_start=" + f.month[:8] + "02", "period_start=2026-13-01",
		"period_start=2026-05", "period_start=abc"} {
		m := f.acc.Get("/api/v0/finance/periods?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if _, ok := asObject(t, m["errors"])["period_start"]; !ok {
			t.Errorf("%s: errors %v, want period_start", q, m["errors"])
		}
	}
	for _, q := range []string{"&status=lost", "&period_type=yearly"} {
		f.acc.Get("/api/v0/finance/periods?period_start="+f.month+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	}
	f.acc.Get("/api/v0/finance/periods?period_start="+f.month+"&office_id=praha").ExpectError(http.StatusBadRequest, "BadRequest")

	// Roles: a dispatcher and a driver may not read the company's periods.
	f.env.As(f.company, auth.RoleDispatcher).Get("/api/v0/finance/periods?period_start="+f.month).ExpectError(http.StatusForbidden, "Forbidden")
	driverMail := "jan.monthend@example.test"
	f.env.Driver(f.company, fixtures.Email(driverMail))
	f.env.As(f.company, auth.RoleDriver, driverMail).Get("/api/v0/finance/periods?period_start="+f.month).ExpectError(http.StatusForbidden, "Forbidden")
}

// bulkAnswer is a bulk move's answer.
type bulkAnswer struct {
	Data []struct {
		DriverID uuid.UUID  `json:"driver_id"`
		PeriodID *uuid.UUID `json:"period_id"`
		Currency *string    `json:"currency"`
		Result   string     `json:"result"`
		Reason   string     `json:"reason"`
		Error    string     `json:"error"`
	} `json:"data"`
}

func (f *monthFixture) bulk(t *testing.T, c *webtest.Caller, move string, body map[string]any) bulkAnswer {
	t.Helper()
	var a bulkAnswer
	c.Post("/api/v0/finance/periods/"+move, body).Expect(http.StatusOK).Decode(&a)
	return a
}

// closedAudits counts the close audit rows of a period.
func (f *monthFixture) closedAudits(t *testing.T, period uuid.UUID) int {
	t.Helper()
	return webtest.Value[int](t, f.env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action = 'period.closed'`, period)
}

func TestMonthEndBulkClose(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	periods := f.list(t, f.acc, "").Data

	// Refused input changes nothing (the callers are made, and their
	// user rows written, first).
	refused := []*webtest.Caller{f.env.As(f.company, auth.RoleHRManager), f.env.As(f.company, auth.RoleDispatcher)}
	for _, c := range refused {
		c.Get("/api/v0/drivers").Expect(http.StatusOK)
	}
	before := f.env.Checksum()
	for _, body := range []map[string]any{
		{}, {"period_start": f.month[:7]}, {"period_start": f.day(2)}, {"period_start": f.month, "period_type": "yearly"},
		{"period_start": f.month, "driver_ids": []string{}}, {"period_start": f.month, "driver_ids": []string{"jan"}},
		{"period_start": f.month, "force": "yes"},
	} {
		f.acc.Post("/api/v0/finance/periods/close", body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	}
	for _, c := range refused {
		c.Post("/api/v0/finance/periods/close", map[string]any{"period_start": f.month}).ExpectError(http.StatusForbidden, "Forbidden")
	}
	if f.env.Checksum() != before {
		t.Fatal("a refused bulk close changed data")
	}

	// Jan's two periods, another company's driver and an unknown id: Jan's
	// periods close, the others are skipped with the reason; Petra's
	// period stays open.
	unknown := uuid.New()
	a := f.bulk(t, f.acc, "close", map[string]any{"period_start": f.month, "force": true,
		"driver_ids": []string{f.jan.String(), f.otherDriver.String(), unknown.String(), f.jan.String()}})
	if len(a.Data) != 4 {
		t.Fatalf("results %+v, want Jan CZK, Jan EUR, the other company's driver, the unknown id", a.Data)
	}
	for i, cur := range []string{"CZK", "EUR"} {
		r := a.Data[i]
		if r.DriverID != f.jan || r.PeriodID == nil || *r.PeriodID != periods[i].ID || r.Currency == nil || *r.Currency != cur ||
			r.Result != "closed" || r.Reason != "" || r.Error != "" {
			t.Errorf("result %d = %+v", i, r)
		}
	}
	for i, id := range []uuid.UUID{f.otherDriver, unknown} {
		r := a.Data[2+i]
		if r.DriverID != id || r.PeriodID != nil || r.Result != "skipped" || r.Error != "NotFound" ||
			!strings.Contains(r.Reason, "no pay period starting in "+monthWords(t, f.month)) {
			t.Errorf("result for %s = %+v", id, r)
		}
	}
	var otherStatus string
	if err := f.env.DB.QueryRow(context.Background(), `SELECT status FROM finance_periods WHERE driver_id = $1`, f.otherDriver).Scan(&otherStatus); err != nil || otherStatus != "open" {
		t.Errorf("the other company's period is %q (%v)", otherStatus, err)
	}
	p := f.list(t, f.acc, "")
	if p.Data[0].Status != "closed" || p.Data[1].Status != "closed" || p.Data[2].Status != "open" {
		t.Errorf("after closing Jan: %+v", p.Data)
	}

	// Every driver: Jan's periods are skipped with the per-period close's
	// own refusal (already closed), Petra's closes.
	a = f.bulk(t, f.acc, "close", map[string]any{"period_start": f.month, "period_type": "monthly", "force": true})
	if len(a.Data) != 3 {
		t.Fatalf("results %+v", a.Data)
	}
	for i := range 2 {
		one := f.acc.Post("/api/v0/drivers/"+f.jan.String()+"/finance/periods/"+periods[i].ID.String()+"/close", map[string]any{"force": true}).
			ExpectError(http.StatusConflict, "Conflict")
		if r := a.Data[i]; r.Result != "skipped" || r.Error != "Conflict" || r.Reason != one["message"] {
			t.Errorf("result %d = %+v, want skipped with the per-period refusal %q", i, r, one["message"])
		}
	}
	if r := a.Data[2]; r.DriverID != f.petra || r.Result != "closed" {
		t.Errorf("Petra: %+v", r)
	}
	for _, per := range periods {
		if n := f.closedAudits(t, per.ID); n != 1 {
			t.Errorf("period %s has %d close audit rows, want 1", per.ID, n)
		}
	}
	// This month's period was not touched.
	var open int
	if err := f.env.DB.QueryRow(context.Background(), `SELECT count(*) FROM finance_periods WHERE driver_id = $1 AND status = 'open'`, f.jan).Scan(&open); err != nil || open != 1 {
		t.Errorf("Jan's open periods: %d (%v), want this month's", open, err)
	}
}

// Two bulk closes of the same month at once close each period once: one
// audit row each, and every period is closed in exactly one answer and
// skipped in the other.
func TestMonthEndBulkCloseConcurrent(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	for i := range 8 {
		d := f.env.Driver(f.company, fixtures.Name("Řidič", fmt.Sprintf("Souběžný %d", i)))
		f.tx(t, d, "bonus", "100.00", "CZK", f.day(3))
	}
	periods := f.list(t, f.acc, "").Data
	if len(periods) != 11 {
		t.Fatalf("%d periods, want 11", len(periods))
	}
	callers := []*webtest.Caller{f.acc, f.env.As(f.company, auth.RoleAdmin)}
	answers := make([]*webtest.Response, len(callers))
	var wg sync.WaitGroup
	for i, c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = c.Post("/api/v0/finance/periods/close", map[string]any{"period_start": f.month, "force": true})
		}()
	}
	wg.Wait()
	closedIn := map[uuid.UUID]int{}
	for _, r := range answers {
		var a bulkAnswer
		r.Expect(http.StatusOK).Decode(&a)
		if len(a.Data) != len(periods) {
			t.Fatalf("%d results, want %d", len(a.Data), len(periods))
		}
		for _, res := range a.Data {
			switch res.Result {
			case "closed":
				closedIn[*res.PeriodID]++
			case "skipped":
				if res.Error != "Conflict" {
					t.Errorf("skipped for another reason: %+v", res)
				}
			default:
				t.Errorf("result %+v", res)
			}
		}
	}
	for _, per := range periods {
		if closedIn[per.ID] != 1 {
			t.Errorf("period %s closed in %d answers, want 1", per.ID, closedIn[per.ID])
		}
		if n := f.closedAudits(t, per.ID); n != 1 {
			t.Errorf("period %s has %d close audit rows, want 1", per.ID, n)
		}
	}
}

func TestMonthEndBulkPay(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	// Jan's periods are closed, Petra's is already paid (skipped).
	f.bulk(t, f.acc, "close", map[string]any{"period_start": f.month, "force": true})
	petra := f.list(t, f.acc, "").Data[2]
	f.acc.Post("/api/v0/drivers/"+f.petra.String()+"/finance/periods/"+petra.ID.String()+"/pay", map[string]any{}).Expect(http.StatusOK)

	f.acc.Post("/api/v0/finance/periods/pay", map[string]any{"period_start": f.month, "payment_date": "tomorrow"}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.env.As(f.company, auth.RoleHRManager).Post("/api/v0/finance/periods/pay", map[string]any{"period_start": f.month}).
		ExpectError(http.StatusForbidden, "Forbidden")

	payDay := f.day(28)
	a := f.bulk(t, f.acc, "pay", map[string]any{"period_start": f.month, "payment_date": payDay})
	one := f.acc.Post("/api/v0/drivers/"+f.petra.String()+"/finance/periods/"+petra.ID.String()+"/pay", map[string]any{}).
		ExpectError(http.StatusConflict, "Conflict")
	if len(a.Data) != 3 || a.Data[0].Result != "paid" || a.Data[1].Result != "paid" || a.Data[2].Result != "skipped" ||
		a.Data[2].Error != "Conflict" || a.Data[2].Reason != one["message"] {
		t.Fatalf("results %+v, want Petra's skipped with %q", a.Data, one["message"])
	}
	// Paying marked the approved salary paid on the payment date; the
	// pending deduction stayed pending.
	var status, deduction string
	var paid *string
	if err := f.env.DB.QueryRow(context.Background(), `SELECT status, payment_date::text, (SELECT status FROM finance_transactions WHERE id = $2)
		FROM finance_transactions WHERE id = $1`, f.salary, f.deduction).Scan(&status, &paid, &deduction); err != nil {
		t.Fatal(err)
	}
	if status != "paid" || paid == nil || *paid != payDay || deduction != "pending" {
		t.Errorf("salary %s paid on %v, deduction %s", status, paid, deduction)
	}
	if p := f.list(t, f.acc, "&status=paid"); p.Total != 3 {
		t.Errorf("%d paid periods, want 3", p.Total)
	}
}

// The payroll: a header in the caller's language, one row per driver and
// currency, the list summary's sums (a driver's net is the sum of its
// transactions of the month), bank fields, the file named after the month.
func TestPayrollExport(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	path := "/api/v0/finance/payroll?period_start=" + f.month
	name := "payroll-" + f.month[:7]

	r := f.acc.Send(http.MethodGet, path+"&format=csv", nil, http.Header{"Accept-Language": {"cs"}}).Expect(http.StatusOK)
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="`+name+`.csv"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(r.Body, []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"Osobní číslo", "Jméno", "Číslo účtu", "IBAN", "Příjmy", "Srážky", "Pokuty", "Čistá částka", "Transakcí", "Stav období", "Měna"},
		{f.janNo, "Jan Novák", "19-2000145399/0800", "CZ6508000000192000145399", "30000.00", "250.00", "400.00", "29350.00", "3", "Otevřené", "CZK"},
		{f.janNo, "Jan Novák", "19-2000145399/0800", "CZ6508000000192000145399", "120.50", "0.00", "0.00", "120.50", "1", "Otevřené", "EUR"},
		{f.petraNo, "Petra Svobodová", "", "", "1500.50", "0.00", "200.00", "1300.50", "2", "Otevřené", "CZK"},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(recs), len(want), recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, recs[i], want[i])
		}
	}
	// Each driver's net is the sum of its transactions of the month in the
	// currency, as the transaction list sums them.
	for _, row := range recs[1:] {
		id := map[string]uuid.UUID{"Jan Novák": f.jan, "Petra Svobodová": f.petra}[row[1]]
		q := url.Values{"from_date": {f.month}, "to_date": {f.day(lastMonth().AddDate(0, 1, -1).Day())}, "currency": {row[10]}}
		var list struct {
			Data []struct {
				Amount decimal.Decimal `json:"amount"`
				Status string          `json:"status"`
			} `json:"data"`
			Summary struct {
				Net decimal.Decimal `json:"net_amount"`
			} `json:"summary"`
		}
		f.acc.Get("/api/v0/drivers/" + id.String() + "/finance?per_page=100&" + q.Encode()).Expect(http.StatusOK).Decode(&list)
		sum := decimal.Zero
		for _, tx := range list.Data {
			if tx.Status != "cancelled" {
				sum = sum.Add(tx.Amount)
			}
		}
		if net := decimal.RequireFromString(row[7]); !net.Equal(sum) || !net.Equal(list.Summary.Net) {
			t.Errorf("%s %s: net %s, transactions sum %s, list summary %s", row[1], row[10], net, sum, list.Summary.Net)
		}
	}

	r = f.hr.Send(http.MethodGet, path+"&format=xlsx", nil, http.Header{"Accept-Language": {"en"}}).Expect(http.StatusOK)
	if cd := r.Header.Get("Content-Disposition"); !strings.Contains(cd, `filename="`+name+`.xlsx"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	x, err := excelize.OpenReader(bytes.NewReader(r.Body))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	sheet := x.GetSheetName(0)
	rows, err := x.GetRows(sheet)
	if err != nil {
		t.Fatal(err)
	}
	if sheet != "Payroll" || len(rows) != 4 || rows[0][0] != "Number" || rows[0][7] != "Net" || rows[3][1] != "Petra Svobodová" || rows[3][9] != "Open" {
		t.Fatalf("sheet %q rows %q", sheet, rows)
	}
	for cell, want := range map[string]string{"H2": "29350", "H4": "1300.5", "I2": "3"} {
		raw, _ := x.GetCellValue(sheet, cell, excelize.Options{RawCellValue: true})
		typ, _ := x.GetCellType(sheet, cell)
		if raw != want || (typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset) {
			t.Errorf("%s = %q (type %v), want the number %s", cell, raw, typ, want)
		}
	}

	// Bad input is an error answer, not a file; other roles are refused.
	f.acc.Get("/api/v0/finance/payroll?period_start="+f.day(2)).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.acc.Get("/api/v0/finance/payroll").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.acc.Get(path+"&format=pdf").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	f.env.As(f.company, auth.RoleDispatcher).Get(path).ExpectError(http.StatusForbidden, "Forbidden")
	driverMail := "petra.payroll@example.test"
	f.env.Driver(f.company, fixtures.Email(driverMail))
	f.env.As(f.company, auth.RoleDriver, driverMail).Get(path).ExpectError(http.StatusForbidden, "Forbidden")
	// Another company's payroll holds only its own drivers.
	r = f.other.Get(path).Expect(http.StatusOK)
	if body := string(r.Body); strings.Contains(body, "1500.50") || !strings.Contains(body, ",7.00,") || strings.Count(body, "\n") != 2 {
		t.Errorf("the other company's payroll: %s", r.Body)
	}
}

// A driver's transactions export is named after the driver's internal
// number and name (in plain ASCII, export.FileName), never its id.
func TestFinanceExportFileName(t *testing.T) {
	t.Parallel()
	f := newMonthFixture(t)
	for _, format := range []string{"csv", "xlsx"} {
		r := f.acc.Get("/api/v0/drivers/" + f.jan.String() + "/finance/export?format=" + format).Expect(http.StatusOK)
		base := "finance-" + f.janNo + "-Jan-Nov"
		cd := r.Header.Get("Content-Disposition")
		ascii := `filename="` + base + `ak-` + pragueDay(0) + `.` + format + `"`
		if !strings.Contains(cd, ascii) || strings.Contains(cd, f.jan.String()) {
			t.Errorf("Content-Disposition %q, want %s", cd, ascii)
		}
	}
}

// monthWords is a month ("2026-11-01") as the messages write it: "November 2026".
func monthWords(t *testing.T, day string) string {
	t.Helper()
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		t.Fatal(err)
	}
	return d.Format("January 2006")
}
