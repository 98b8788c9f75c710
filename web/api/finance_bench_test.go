package api_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkFinance times the finance list (first page with the summary of
// all 500 rows) and the aggregates endpoint per request, through the real
// server, on 2,000 drivers × 500 transactions (1,000,000 rows) seeded with
// set-based SQL. Run: go test -run '^$' -bench Finance -benchtime 200x ./web/api/
func BenchmarkFinance(b *testing.B) {
	const drivers, perDriver = 2000, 500
	env := webtest.New(b)
	company := env.Company("Bench", "enterprise")
	start := time.Now()
	ids := seedFinance(b, env, company, drivers, perDriver)
	b.Logf("seeded %d drivers × %d transactions in %s", drivers, perDriver, time.Since(start).Round(time.Second))
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/audit-logs?per_page=1").Expect(http.StatusOK) // provisions the user

	b.Run("list", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			hr.GetOK(b, "/api/v0/drivers/"+ids[i%len(ids)].String()+"/finance")
		}
	})
	b.Run("list_filtered", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			hr.GetOK(b, "/api/v0/drivers/"+ids[i%len(ids)].String()+"/finance?status=approved,paid&type=base_salary,bonus&from_date=2025-01-01&page=2")
		}
	})
	b.Run("periods", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			hr.GetOK(b, "/api/v0/drivers/"+ids[i%len(ids)].String()+"/finance/periods?year=2025")
		}
	})
	b.Run("aggregates", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			hr.GetOK(b, "/api/v0/drivers/"+ids[i%len(ids)].String()+"/finance/aggregates")
		}
	})
}

// seedFinance inserts the drivers, their monthly periods and transactions
// (spread over the last two years, every type and status) and the period
// totals, all with generate_series.
func seedFinance(b *testing.B, env *webtest.Env, company uuid.UUID, drivers, perDriver int) []uuid.UUID {
	ctx := context.Background()
	type stmt struct {
		sql  string
		args []any
	}
	stmts := []stmt{
		{`INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, hire_date)
		 SELECT $1, 'DRV-' || lpad(g::text, 4, '0'), g, 'Bench', 'Driver ' || g, 'bench' || g || '@example.test', current_date - 900
		 FROM generate_series(1, $2::int) g`, []any{company, drivers}},
		{`UPDATE companies SET driver_number_seq = $2 WHERE id = $1`, []any{company, drivers}},
		{`INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
		 SELECT d.company_id, d.id, 'monthly', m::date, (m + interval '1 month - 1 day')::date, 'CZK'
		 FROM drivers d, generate_series(date_trunc('month', current_date - 740), date_trunc('month', current_date), interval '1 month') m
		 WHERE d.company_id = $1`, []any{company}},
		{`INSERT INTO finance_transactions (company_id, driver_id, period_id, transaction_type, category, amount, currency, status,
			transaction_date, description, approved_at, paid_at, payment_date)
		 SELECT x.company_id, x.driver_id, p.id, x.typ, NULL, x.amount, 'CZK', x.status, x.d, 'seeded',
			CASE WHEN x.status IN ('approved', 'paid') THEN now() END, CASE WHEN x.status = 'paid' THEN now() END,
			CASE WHEN x.status = 'paid' THEN x.d END
		 FROM (
			SELECT d.company_id, d.id AS driver_id, (current_date - (i * 730 / $2::int))::date AS d,
				(ARRAY['base_salary', 'overtime', 'bonus', 'deduction', 'penalty'])[1 + i % 5] AS typ,
				CASE WHEN i % 5 >= 3 THEN -((i % 97) + 0.25) ELSE (i % 1000) * 3 + 0.5 END AS amount,
				(ARRAY['pending', 'approved', 'paid', 'cancelled', 'paid', 'approved'])[1 + i % 6] AS status
			FROM drivers d, generate_series(1, $2::int) i
			WHERE d.company_id = $1
		 ) x
		 JOIN finance_periods p ON p.company_id = x.company_id AND p.driver_id = x.driver_id
			AND p.period_type = 'monthly' AND p.currency = 'CZK' AND p.period_start = date_trunc('month', x.d)::date`, []any{company, perDriver}},
		{`UPDATE finance_periods fp SET total_earnings = s.e, total_deductions = s.dd, net_amount = s.e - s.dd, transactions_count = s.n
		 FROM (SELECT period_id, COALESCE(sum(amount) FILTER (WHERE amount > 0), 0) e, COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0) dd, count(*) n
		       FROM finance_transactions WHERE company_id = $1 AND status <> 'cancelled' GROUP BY period_id) s
		 WHERE fp.id = s.period_id`, []any{company}},
	}
	// The rows are consistent by construction; skipping the per-row foreign
	// key triggers (replica role, this transaction only) cuts the seed from
	// minutes to under a minute on two cores.
	err := postgres.InTx(ctx, env.DB, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		for i, st := range stmts {
			if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
				return fmt.Errorf("seed step %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `VACUUM ANALYZE`); err != nil { // as autovacuum would have, before the timed loop
		b.Fatal(err)
	}
	rows, err := env.DB.Query(ctx, `SELECT id FROM drivers WHERE company_id = $1 ORDER BY random()`, company)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(ids) != drivers {
		b.Fatalf("drivers: %d, %v", len(ids), fmt.Sprint(err))
	}
	return ids
}
