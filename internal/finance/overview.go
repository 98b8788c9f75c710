package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
)

// StatusTotal counts the company's transactions in one status and
// currency and sums their amounts.
type StatusTotal struct {
	Currency string
	Count    int
	Amount   money.Amount
}

// PeriodToClose is an open pay period that ends by the end of this month.
type PeriodToClose struct {
	PeriodID     uuid.UUID
	DriverID     uuid.UUID
	DriverName   string
	DriverNumber string
	Start, End   civil.Date
	Currency     string
	NetAmount    money.Amount
}

// Overview is the company's money at a glance, for accountants: what waits
// for approval, what is approved but unpaid, the open pay periods ending
// by this month's end, and this month's totals by currency.
type Overview struct {
	Month    civil.Date // the first day of this month (company time zone)
	Pending  []StatusTotal
	Approved []StatusTotal
	// PeriodsToClose are the first open periods (by end date) and
	// PeriodsToCloseTotal how many there are.
	PeriodsToClose      []PeriodToClose
	PeriodsToCloseTotal int
	// MonthTotals are this month's transactions (every status but
	// cancelled) summed per currency as the list summary sums them.
	MonthTotals []Summary
}

// CompanyOverview builds the Overview of the caller's company, for staff
// who read every driver's finance; periods lists at most periods periods
// to close.
func (s *Service) CompanyOverview(ctx context.Context, p auth.Principal, periods int) (Overview, error) {
	company, err := collectionScope(p, auth.FinanceRead)
	if err != nil {
		return Overview{}, err
	}
	if overviewNarrowed(p) {
		return Overview{}, fmt.Errorf("finance: the company overview is for staff who read every driver's finance")
	}
	today := p.Today()
	out := Overview{Month: today.MonthStart()}
	cid := company.CompanyID()

	rows, err := s.db.Query(ctx, `
		SELECT t.status, t.currency, count(*), COALESCE(sum(t.amount), 0)
		FROM finance_transactions t
		JOIN drivers d ON d.id = t.driver_id AND d.company_id = t.company_id AND d.deleted_at IS NULL
		WHERE t.company_id = $1 AND t.deleted_at IS NULL AND t.status IN ('pending', 'approved')
		GROUP BY t.status, t.currency ORDER BY t.status, t.currency`, cid)
	if err != nil {
		return Overview{}, fmt.Errorf("finance overview: %w", err)
	}
	for rows.Next() {
		var st string
		var t StatusTotal
		if err := rows.Scan(&st, &t.Currency, &t.Count, &t.Amount); err != nil {
			rows.Close()
			return Overview{}, fmt.Errorf("scan finance overview: %w", err)
		}
		if st == StatusPending {
			out.Pending = append(out.Pending, t)
		} else {
			out.Approved = append(out.Approved, t)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Overview{}, fmt.Errorf("finance overview: %w", err)
	}

	rows, err = s.db.Query(ctx, `
		SELECT fp.id, fp.driver_id, d.first_name || ' ' || d.last_name, d.internal_number, fp.period_start, fp.period_end,
			fp.currency, fp.net_amount, count(*) OVER ()
		FROM finance_periods fp
		JOIN drivers d ON d.id = fp.driver_id AND d.company_id = fp.company_id AND d.deleted_at IS NULL
		WHERE fp.company_id = $1 AND fp.status = 'open' AND fp.period_end <= $2
		ORDER BY fp.period_end, d.internal_seq, fp.currency, fp.id
		LIMIT $3`, cid, today.MonthEnd(), periods)
	if err != nil {
		return Overview{}, fmt.Errorf("periods to close: %w", err)
	}
	out.PeriodsToClose, err = postgres.AppendRows(nil, rows, func(r pgx.Row, pc *PeriodToClose) error {
		return r.Scan(&pc.PeriodID, &pc.DriverID, &pc.DriverName, &pc.DriverNumber, &pc.Start, &pc.End, &pc.Currency,
			&pc.NetAmount, &out.PeriodsToCloseTotal)
	})
	if err != nil {
		return Overview{}, fmt.Errorf("periods to close: %w", err)
	}

	rows, err = s.db.Query(ctx, `SELECT t.currency, count(*), `+summarySQL+`
		FROM finance_transactions t
		JOIN drivers d ON d.id = t.driver_id AND d.company_id = t.company_id AND d.deleted_at IS NULL
		WHERE t.company_id = $1 AND t.deleted_at IS NULL AND t.transaction_date BETWEEN $2 AND $3
		GROUP BY t.currency ORDER BY t.currency`, cid, out.Month, today.MonthEnd())
	if err != nil {
		return Overview{}, fmt.Errorf("month totals: %w", err)
	}
	out.MonthTotals, err = postgres.AppendRows(nil, rows, func(r pgx.Row, sm *Summary) error {
		err := r.Scan(&sm.Currency, &sm.rows, &sm.TotalEarnings, &sm.TotalDeductions, &sm.TotalPenalties)
		sm.NetAmount = sm.TotalEarnings.Sub(sm.TotalDeductions).Sub(sm.TotalPenalties)
		return err
	})
	if err != nil {
		return Overview{}, fmt.Errorf("month totals: %w", err)
	}
	return out, nil
}
