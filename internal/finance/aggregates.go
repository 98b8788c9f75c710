package finance

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/tenants"
)

// Aggregate types.
const (
	AggMTD      = "mtd"
	AggYTD      = "ytd"
	AggLifetime = "lifetime"
)

// AggregateTypes lists them in response order.
var AggregateTypes = []string{AggMTD, AggYTD, AggLifetime}

// Aggregate is a driver's money over a window ending at the reference date,
// in one currency, with the list's summary rules (every status but
// cancelled).
type Aggregate struct {
	AggType            string         `json:"agg_type"`
	ReferenceDate      civil.Date     `json:"reference_date"`
	TotalEarnings      money.Amount   `json:"total_earnings"`
	TotalDeductions    money.Amount   `json:"total_deductions"`
	TotalPenalties     money.Amount   `json:"total_penalties"`
	NetAmount          money.Amount   `json:"net_amount"`
	PenaltiesCount     int            `json:"penalties_count"`
	AvgMonthlyEarnings money.Amount   `json:"avg_monthly_earnings"`
	Currency           string         `json:"currency"`
	Metadata           map[string]any `json:"metadata"`
	CalculatedAt       time.Time      `json:"calculated_at"`
}

// MonthAmount is a month (YYYY-MM) with its net amount.
type MonthAmount struct {
	Month  string       `json:"month"`
	Amount money.Amount `json:"amount"`
}

// AggregateQuery selects the aggregates.
type AggregateQuery struct {
	Types         []string    // default: all three
	ReferenceDate *civil.Date // default: today in the company's time zone
	Currency      string      // default: the driver's main currency
}

// Aggregates computes the requested aggregates from the transactions, in
// SQL, on every request (nothing is cached, so they always agree with the
// list):
//   - mtd: from the first of the reference month, ytd: from 1 January,
//     lifetime: everything, each up to and including reference_date;
//   - penalties_count: penalties (not cancelled) with incident_date in the
//     window;
//   - avg_monthly_earnings: mtd earnings; ytd earnings / months_worked;
//     lifetime earnings / employment_months (rounded half away from zero);
//   - ytd metadata: months_worked (months of the year up to the reference
//     date with a positive amount), highest_month and lowest_month by net
//     amount among the months with transactions (ties: the earlier month);
//   - lifetime metadata: first_transaction (any currency) and
//     employment_months, the whole months from the first transaction, or
//     hire_date if earlier, to the reference date, at least 1.
func (s *Service) Aggregates(ctx context.Context, p auth.Principal, driverID uuid.UUID, q AggregateQuery) (map[string]Aggregate, error) {
	d, err := s.driverFor(ctx, p, auth.FinanceRead, driverID)
	if err != nil {
		return nil, err
	}
	var v apperr.Validation
	if len(q.Types) == 1 && q.Types[0] == "all" {
		q.Types = nil // the spec's "default all", spelled out
	}
	checkValues(&v, "type", q.Types, AggregateTypes)
	if q.Currency != "" {
		c, ok := money.NormalizeCurrency(q.Currency)
		if !ok {
			v.Add("currency", "The currency must be a 3-letter ISO 4217 code.")
		}
		q.Currency = c
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if len(q.Types) == 0 {
		q.Types = AggregateTypes
	}
	ref := p.Today()
	if q.ReferenceDate != nil {
		ref = *q.ReferenceDate
	}
	if q.Currency == "" {
		if q.Currency, err = s.driverCurrency(ctx, p, d, ref); err != nil {
			return nil, err
		}
	}

	out := map[string]Aggregate{}
	now := time.Now().UTC()
	rows, err := s.db.Query(ctx, `
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
		d.CompanyID, d.ID, q.Currency, ref)
	if err != nil {
		return nil, fmt.Errorf("aggregate transactions of driver %s: %w", driverID, err)
	}
	for rows.Next() {
		a := Aggregate{ReferenceDate: ref, Currency: q.Currency, CalculatedAt: now, Metadata: map[string]any{}}
		if err := rows.Scan(&a.AggType, &a.TotalEarnings, &a.TotalDeductions, &a.TotalPenalties, &a.PenaltiesCount); err != nil {
			rows.Close()
			return nil, fmt.Errorf("scan aggregate: %w", err)
		}
		a.NetAmount = a.TotalEarnings.Sub(a.TotalDeductions).Sub(a.TotalPenalties)
		a.AvgMonthlyEarnings = a.TotalEarnings
		out[a.AggType] = a
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("aggregate transactions of driver %s: %w", driverID, err)
	}

	var (
		monthsWorked, employmentMonths int
		highMonth, lowMonth            *string
		highNet, lowNet                *money.Amount
		firstTx                        *civil.Date
	)
	err = s.db.QueryRow(ctx, `
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
		d.CompanyID, d.ID, q.Currency, ref, d.HireDate,
	).Scan(&monthsWorked, &highMonth, &highNet, &lowMonth, &lowNet, &firstTx, &employmentMonths)
	if err != nil {
		return nil, fmt.Errorf("aggregate months of driver %s: %w", driverID, err)
	}

	ytd := out[AggYTD]
	ytd.Metadata = map[string]any{"months_worked": monthsWorked, "highest_month": monthAmount(highMonth, highNet),
		"lowest_month": monthAmount(lowMonth, lowNet)}
	ytd.AvgMonthlyEarnings = perMonth(ytd.TotalEarnings, monthsWorked)
	out[AggYTD] = ytd
	life := out[AggLifetime]
	life.Metadata = map[string]any{"employment_months": employmentMonths, "first_transaction": firstTx}
	life.AvgMonthlyEarnings = perMonth(life.TotalEarnings, employmentMonths)
	out[AggLifetime] = life

	for k := range out {
		if !contains(q.Types, k) {
			delete(out, k)
		}
	}
	return out, nil
}

func monthAmount(month *string, net *money.Amount) *MonthAmount {
	if month == nil || net == nil {
		return nil
	}
	return &MonthAmount{Month: *month, Amount: *net}
}

// perMonth divides earnings by a number of months, rounded half away from
// zero to two places; no months means 0.
func perMonth(earnings money.Amount, months int) money.Amount {
	if months <= 0 {
		return money.Zero
	}
	return money.New(earnings.Decimal().DivRound(decimal.NewFromInt(int64(months)), money.Places))
}

// driverCurrency is the driver's main currency as of ref: the company's
// when the driver has transactions in it, else the one with the most.
func (s *Service) driverCurrency(ctx context.Context, p auth.Principal, d tenants.DriverRef, ref civil.Date) (string, error) {
	rows, err := s.db.Query(ctx, `
		SELECT currency, count(*) FROM finance_transactions
		WHERE company_id = $1 AND driver_id = $2 AND deleted_at IS NULL AND status <> 'cancelled' AND transaction_date <= $3
		GROUP BY currency`, d.CompanyID, d.ID, ref)
	if err != nil {
		return "", fmt.Errorf("currencies of driver %s: %w", d.ID, err)
	}
	defer rows.Close()
	var sums []Summary
	for rows.Next() {
		var sm Summary
		if err := rows.Scan(&sm.Currency, &sm.rows); err != nil {
			return "", fmt.Errorf("scan currency: %w", err)
		}
		sums = append(sums, sm)
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("currencies of driver %s: %w", d.ID, err)
	}
	return mainCurrency(sums, companyCurrency(p)), nil
}
