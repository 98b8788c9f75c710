package finance

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
)

// windowTotals sums the driver's transactions in currency over the mtd,
// ytd and lifetime windows ending at ref, with the penalties counted in each.
func windowTotals(ctx context.Context, db postgres.DBTX, d loadedDriver, currency string, ref civil.Date, now time.Time) (map[string]Aggregate, error) {
	rows, err := db.Query(ctx, `
		WITH t AS (
			SELECT t.transaction_date AS d, t.amount, t.transaction_type, t.status
			FROM finance_transactions t
			WHERE t.company_id = $1 AND t.driver_id = $2 AND t.currency = $3 AND t.deleted_at IS NULL
				AND t.status <> 'cancelled' AND t.transaction_date <= $4
		), w(agg_type, start_date) AS (
			VALUES ('mtd', date_trunc('month', $4::date)::date), ('ytd', date_trunc('year', $4::date)::date), ('lifetime', NULL::date)
		)
		SELECT w.agg_type, `+summarySQL+`,
			(SELECT count(*) FROM penalties pe
				WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.currency = $3 AND pe.deleted_at IS NULL
					AND pe.status <> 'cancelled' AND pe.incident_date <= $4
					AND (w.start_date IS NULL OR pe.incident_date >= w.start_date))
		FROM w LEFT JOIN t ON w.start_date IS NULL OR t.d >= w.start_date
		GROUP BY w.agg_type, w.start_date`,
		d.CompanyID, d.ID, currency, ref)
	if err != nil {
		return nil, fmt.Errorf("aggregate transactions of driver %s: %w", d.ID, err)
	}
	defer rows.Close()
	out := map[string]Aggregate{}
	for rows.Next() {
		a := Aggregate{ReferenceDate: ref, Currency: currency, CalculatedAt: now, Metadata: map[string]any{}}
		if err := rows.Scan(&a.AggType, &a.TotalEarnings, &a.TotalDeductions, &a.TotalPenalties, &a.PenaltiesCount); err != nil {
			return nil, fmt.Errorf("scan aggregate: %w", err)
		}
		a.NetAmount = a.TotalEarnings.Sub(a.TotalDeductions).Sub(a.TotalPenalties)
		a.AvgMonthlyEarnings = a.TotalEarnings
		out[a.AggType] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("aggregate transactions of driver %s: %w", d.ID, err)
	}
	return out, nil
}

// monthFigures reads the months worked this year up to ref, its highest
// and lowest months by net amount, the first transaction and the
// employment months (from the first transaction or hire date to ref).
func monthFigures(ctx context.Context, db postgres.DBTX, d loadedDriver, currency string, ref civil.Date) (months, error) {
	var (
		m                   months
		highMonth, lowMonth *string
		highNet, lowNet     *money.Amount
	)
	err := db.QueryRow(ctx, `
		WITH m AS (
			SELECT date_trunc('month', t.transaction_date)::date AS month, sum(t.amount) AS net,
				bool_or(t.amount > 0 AND t.transaction_type <> 'penalty') AS worked
			FROM finance_transactions t
			WHERE t.company_id = $1 AND t.driver_id = $2 AND t.currency = $3 AND t.deleted_at IS NULL
				AND t.status <> 'cancelled' AND t.transaction_date BETWEEN date_trunc('year', $4::date)::date AND $4
			GROUP BY 1
		), hi AS (
			SELECT to_char(month, 'YYYY-MM') AS month, net FROM m ORDER BY net DESC, month LIMIT 1
		), lo AS (
			SELECT to_char(month, 'YYYY-MM') AS month, net FROM m ORDER BY net ASC, month LIMIT 1
		), f AS (
			SELECT min(t.transaction_date) AS first FROM finance_transactions t
			WHERE t.company_id = $1 AND t.driver_id = $2 AND t.deleted_at IS NULL
				AND t.status <> 'cancelled' AND t.transaction_date <= $4
		), s AS (
			SELECT f.first, LEAST(f.first, $5::date) AS start FROM f
		)
		SELECT (SELECT count(*) FROM m WHERE worked),
			(SELECT month FROM hi), (SELECT net FROM hi), (SELECT month FROM lo), (SELECT net FROM lo),
			s.first,
			CASE WHEN s.start IS NULL OR s.start > $4 THEN 1
				ELSE GREATEST(1, (extract(year FROM age($4::date, s.start)) * 12 + extract(month FROM age($4::date, s.start)))::int)
			END
		FROM s`,
		d.CompanyID, d.ID, currency, ref, d.HireDate,
	).Scan(&m.worked, &highMonth, &highNet, &lowMonth, &lowNet, &m.firstTx, &m.employment)
	if err != nil {
		return months{}, fmt.Errorf("aggregate months of driver %s: %w", d.ID, err)
	}
	m.high, m.low = monthAmount(highMonth, highNet), monthAmount(lowMonth, lowNet)
	return m, nil
}

// currencyCounts counts the driver's live, not cancelled transactions up to
// ref per currency.
func currencyCounts(ctx context.Context, db postgres.DBTX, d loadedDriver, ref civil.Date) ([]Summary, error) {
	rows, err := db.Query(ctx, `
		SELECT currency, count(*) FROM finance_transactions
		WHERE company_id = $1 AND driver_id = $2 AND deleted_at IS NULL AND status <> 'cancelled' AND transaction_date <= $3
		GROUP BY currency`, d.CompanyID, d.ID, ref)
	if err != nil {
		return nil, fmt.Errorf("currencies of driver %s: %w", d.ID, err)
	}
	sums, err := postgres.AppendRows(nil, rows, func(r pgx.Row, sm *Summary) error {
		return r.Scan(&sm.Currency, &sm.rows)
	})
	if err != nil {
		return nil, fmt.Errorf("currencies of driver %s: %w", d.ID, err)
	}
	return sums, nil
}
