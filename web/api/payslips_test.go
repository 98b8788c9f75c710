package api_test

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/payslips/payslipstest"
	"github.com/konvoj/konvoj/web/webtest"
)

// driverLanguage sets a driver's language (the payslip's language).
func driverLanguage(lang string) fixtures.DriverOption {
	return func(s *fixtures.DriverSpec) { s.Language = &lang }
}

// periodOf is the id of the driver's period starting on start (YYYY-MM-DD).
func periodOf(t *testing.T, env *webtest.Env, driver uuid.UUID, start, currency string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	err := env.DB.QueryRow(context.Background(), `SELECT id FROM finance_periods WHERE driver_id = $1 AND period_start = $2 AND currency = $3`,
		driver, start, currency).Scan(&id)
	if err != nil {
		t.Fatalf("period %s %s of %s: %v", start, currency, driver, err)
	}
	return id
}

// TestPayslipAPI: a period's payslip is a PDF in the driver's language
// (else the company's) with the driver's name, the transactions that
// count and the period's net, named after the driver and the month; the
// driver downloads its own only, the dispatcher none, an unknown period
// is 404.
func TestPayslipAPI(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := fixtures.Company(t, env.DB, fixtures.CompanyName("Doprava Šťastný"), fixtures.Language("cs"))
	hr := env.As(company, auth.RoleHRManager)
	jiri := env.Driver(company, fixtures.Name("Jiří", "Dvořák"), fixtures.Email("jiri@example.test"))
	olek := env.Driver(company, fixtures.Name("Олександр", "Ґонта"), fixtures.Email("olek@example.test"), driverLanguage("uk"))
	today := pragueDay(0)
	month := today[:7]
	post := func(driver uuid.UUID, typ, amount, desc string) map[string]any {
		body := fmt.Sprintf(`{"transaction_type": %q, "amount": %s, "transaction_date": %q, "description": %q}`, typ, amount, today, desc)
		return hr.Post("/api/v0/drivers/"+driver.String()+"/finance", body).Expect(http.StatusCreated).JSON()
	}
	post(jiri, "base_salary", "30000.00", "Mzda")
	post(jiri, "deduction", "-1250.50", "Záloha")
	cancelled := post(jiri, "bonus", "999.00", "Zrušený bonus")
	hr.Put("/api/v0/drivers/"+jiri.String()+"/finance/"+cancelled["id"].(string), map[string]any{"status": "cancelled"}).Expect(http.StatusOK)
	post(olek, "base_salary", "28000.00", "Зарплата")
	start := month + "-01"
	jiriPeriod, olekPeriod := periodOf(t, env, jiri, start, "CZK"), periodOf(t, env, olek, start, "CZK")
	payslip := func(driver, period uuid.UUID) string {
		return "/api/v0/drivers/" + driver.String() + "/finance/periods/" + period.String() + "/payslip"
	}

	jiriCaller := env.As(company, auth.RoleDriver, "jiri@example.test")
	res := jiriCaller.Get(payslip(jiri, jiriPeriod)).Expect(http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" || !bytes.HasPrefix(res.Body, []byte("%PDF-")) {
		t.Fatalf("want a PDF, got %s %q", ct, res.Body[:min(len(res.Body), 16)])
	}
	wantName := "DRV-0001-Jiri-Dvorak-" + month + ".pdf"
	if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="`+wantName+`"`) {
		t.Fatalf("Content-Disposition %q, want the attachment %s", cd, wantName)
	}
	text := payslipstest.Text(t, res.Body)
	// The company's language (Czech), the net of the two transactions that
	// count (the cancelled bonus is left out).
	for _, want := range []string{"Jiří Dvořák", "Výplatní páska", "Doprava Šťastný", "DRV-0001", "Mzda", "Záloha", "28 749,50 Kč"} {
		if !strings.Contains(text, want) {
			t.Errorf("the payslip lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Zrušený bonus") {
		t.Errorf("a cancelled transaction is on the payslip:\n%s", text)
	}

	// The accountant reads any driver's; Олександр's is in Ukrainian.
	acc := env.As(company, auth.RoleAccountant)
	text = payslipstest.Text(t, acc.Get(payslip(olek, olekPeriod)).Expect(http.StatusOK).Body)
	for _, want := range []string{"Олександр Ґонта", "Розрахунковий листок", "Чиста сума", "28 000,00 CZK"} {
		if !strings.Contains(text, want) {
			t.Errorf("the Ukrainian payslip lacks %q:\n%s", want, text)
		}
	}

	// Refusals.
	jiriCaller.Get(payslip(olek, olekPeriod)).ExpectError(http.StatusForbidden, "AccessDenied")
	env.As(company, auth.RoleDispatcher).Get(payslip(jiri, jiriPeriod)).ExpectError(http.StatusForbidden, "Forbidden")
	jiriCaller.Get(payslip(jiri, uuid.New())).ExpectError(http.StatusNotFound, "NotFound")
	hr.Get(payslip(jiri, olekPeriod)).ExpectError(http.StatusNotFound, "NotFound") // not this driver's period
	other := env.Company("Other", "free")
	env.As(other, auth.RoleAdmin).Get(payslip(jiri, jiriPeriod)).ExpectError(http.StatusForbidden, "AccessDenied")
}

// TestMonthPayslipsZIP: the month's ZIP holds one valid PDF per monthly
// period starting that month (a second currency is a second file; a
// deleted driver's and another month's are left out), named after the
// drivers, in the order of their numbers; the month must be a first of a
// month (422) and only staff who read payroll get it.
func TestMonthPayslipsZIP(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := fixtures.Company(t, env.DB, fixtures.Language("cs"))
	names := [][2]string{{"Jiří", "Dvořák"}, {"Łukasz", "Wądołowski"}, {"Олександр", "Ґонта"}, {"Ștefan", "Țăran"}, {"Petr", "Bez Výplaty"}}
	var ids []uuid.UUID
	for _, n := range names {
		ids = append(ids, env.Driver(company, fixtures.Name(n[0], n[1])))
	}
	gone := env.Driver(company, fixtures.Name("Smazaný", "Řidič"), fixtures.Deleted())
	ctx := context.Background()
	// November 2026: the first four drivers in CZK, Łukasz also in EUR, the
	// deleted driver too; Petr has October only.
	seed := func(driver uuid.UUID, start, currency string, amounts ...string) {
		t.Helper()
		_, err := env.DB.Exec(ctx, `
			WITH p AS (
				INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
				VALUES ($1, $2, 'monthly', $3::date, ($3::date + interval '1 month - 1 day')::date, $4) RETURNING id)
			INSERT INTO finance_transactions (company_id, driver_id, period_id, transaction_type, amount, currency, transaction_date)
			SELECT $1, $2, p.id, CASE WHEN a::numeric < 0 THEN 'deduction' ELSE 'base_salary' END, a::numeric, $4, $3::date + 4
			FROM p, unnest($5::text[]) a`, company, driver, start, currency, amounts)
		if err != nil {
			t.Fatal(err)
		}
		_, err = env.DB.Exec(ctx, `UPDATE finance_periods p SET total_earnings = s.e, total_deductions = s.d, net_amount = s.e - s.d
			FROM (SELECT period_id, COALESCE(sum(amount) FILTER (WHERE amount > 0), 0) e, COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0) d
				FROM finance_transactions GROUP BY period_id) s WHERE s.period_id = p.id`)
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range ids[:4] {
		seed(id, "2026-11-01", "CZK", "30000.00", "-500.25")
	}
	seed(ids[1], "2026-11-01", "EUR", "400.00")
	seed(gone, "2026-11-01", "CZK", "100.00")
	seed(ids[4], "2026-10-01", "CZK", "100.00")

	acc := env.As(company, auth.RoleAccountant)
	res := acc.Get("/api/v0/finance/payslips?period_start=2026-11-01").Expect(http.StatusOK)
	if ct, cd := res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"); ct != "application/zip" ||
		!strings.HasPrefix(cd, `attachment; filename="payslips-2026-11.zip"`) {
		t.Fatalf("want the attachment payslips-2026-11.zip, got %s, %s", ct, cd)
	}
	zr, err := zip.NewReader(bytes.NewReader(res.Body), int64(len(res.Body)))
	if err != nil {
		t.Fatalf("not a ZIP: %v", err)
	}
	want := []string{"DRV-0001-Jiri-Dvorak-2026-11.pdf", "DRV-0002-Lukasz-Wadolowski-2026-11.pdf", "DRV-0002-Lukasz-Wadolowski-2026-11-EUR.pdf",
		"DRV-0003-Oleksandr-Gonta-2026-11.pdf", "DRV-0004-Stefan-Taran-2026-11.pdf"}
	people := []string{"Jiří Dvořák", "Łukasz Wądołowski", "Łukasz Wądołowski", "Олександр Ґонта", "Ștefan Țăran"}
	var got []string
	for _, f := range zr.File {
		got = append(got, f.Name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("entries %q, want %q", got, want)
	}
	for i, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		pdf, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		text := payslipstest.Text(t, pdf)
		name := people[i]
		if !strings.Contains(text, name) || !strings.Contains(text, "Výplatní páska") {
			t.Errorf("%s does not hold %q and the Czech title:\n%s", f.Name, name, text)
		}
		wantNet := "29 499,75 Kč"
		if strings.HasSuffix(f.Name, "-EUR.pdf") {
			wantNet = "400,00 €"
		}
		if !strings.Contains(text, wantNet) {
			t.Errorf("%s lacks the net %q:\n%s", f.Name, wantNet, text)
		}
	}

	// A month of no payslips is an empty ZIP.
	res = acc.Get("/api/v0/finance/payslips?period_start=2025-01-01").Expect(http.StatusOK)
	if zr, err := zip.NewReader(bytes.NewReader(res.Body), int64(len(res.Body))); err != nil || len(zr.File) != 0 {
		t.Fatalf("want an empty ZIP, got %v, %v", zr, err)
	}
	// A month in any other form is 422 on period_start.
	for _, q := range []string{"period_start=2026-13-01", "period_start=2026-11-15", "period_start=2026-11", ""} {
		m := acc.Get("/api/v0/finance/payslips?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if _, ok := m["errors"].(map[string]any)["period_start"]; !ok {
			t.Errorf("%q: the error does not name period_start: %v", q, m)
		}
	}
	// HR and admins too; drivers and dispatchers not.
	env.As(company, auth.RoleHRManager).Get("/api/v0/finance/payslips?period_start=2026-11-01").Expect(http.StatusOK)
	env.As(company, auth.RoleDriver).Get("/api/v0/finance/payslips?period_start=2026-11-01").ExpectError(http.StatusForbidden, "Forbidden")
	env.As(company, auth.RoleDispatcher).Get("/api/v0/finance/payslips?period_start=2026-11-01").ExpectError(http.StatusForbidden, "Forbidden")
}
