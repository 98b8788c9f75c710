package finance

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
)

// OpenDispute is a disputed penalty waiting for HR, with its driver and the
// day its review is due.
type OpenDispute struct {
	PenaltyID    uuid.UUID
	DriverID     uuid.UUID
	DriverName   string
	DriverNumber string
	PenaltyType  string
	Amount       money.Amount
	Currency     string
	Reason       string
	// Filed is the day the dispute was submitted, in the company's time
	// zone; Due is ReviewDue(Filed).
	Filed, Due civil.Date
}

// DisputeQueue is the oldest open disputes and how many there are.
type DisputeQueue struct {
	Disputes []OpenDispute
	Total    int
}

// OpenDisputes lists the company's disputed penalties, oldest dispute
// first: at most limit of them and the count of all. company is the guard's
// collection Ref for resolving penalties (HR and admins).
func (s *Service) OpenDisputes(ctx context.Context, p auth.Principal, company auth.Ref, limit int) (DisputeQueue, error) {
	if err := company.Check(p, auth.PenaltiesManage); err != nil {
		return DisputeQueue{}, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT pe.id, pe.driver_id, d.first_name || ' ' || d.last_name, d.internal_number, pe.penalty_type, pe.amount,
			pe.currency, COALESCE(pe.dispute_reason, ''), COALESCE(pe.dispute_submitted_at, pe.updated_at), count(*) OVER ()
		FROM penalties pe
		JOIN drivers d ON d.id = pe.driver_id AND d.company_id = pe.company_id AND d.deleted_at IS NULL
		WHERE pe.company_id = $1 AND pe.status = 'disputed' AND pe.deleted_at IS NULL
		ORDER BY pe.dispute_submitted_at NULLS FIRST, pe.id
		LIMIT $2`, company.CompanyID(), limit)
	if err != nil {
		return DisputeQueue{}, fmt.Errorf("open disputes: %w", err)
	}
	defer rows.Close()
	loc := p.Location()
	var out DisputeQueue
	for rows.Next() {
		var d OpenDispute
		var at time.Time
		if err := rows.Scan(&d.PenaltyID, &d.DriverID, &d.DriverName, &d.DriverNumber, &d.PenaltyType, &d.Amount, &d.Currency,
			&d.Reason, &at, &out.Total); err != nil {
			return DisputeQueue{}, fmt.Errorf("scan open dispute: %w", err)
		}
		d.Filed = civil.DateOf(at.In(loc))
		d.Due = ReviewDue(d.Filed)
		out.Disputes = append(out.Disputes, d)
	}
	if err := rows.Err(); err != nil {
		return DisputeQueue{}, fmt.Errorf("open disputes: %w", err)
	}
	return out, nil
}

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

// CompanyOverview builds the Overview of the company. company is the
// guard's collection Ref for reading finance (staff who read every
// driver's finance); periods lists at most periods periods to close.
func (s *Service) CompanyOverview(ctx context.Context, p auth.Principal, company auth.Ref, periods int) (Overview, error) {
	if err := company.Check(p, auth.FinanceRead); err != nil {
		return Overview{}, err
	}
	if p.Grant(auth.FinanceRead) != auth.All {
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
	for rows.Next() {
		var pc PeriodToClose
		if err := rows.Scan(&pc.PeriodID, &pc.DriverID, &pc.DriverName, &pc.DriverNumber, &pc.Start, &pc.End, &pc.Currency,
			&pc.NetAmount, &out.PeriodsToCloseTotal); err != nil {
			rows.Close()
			return Overview{}, fmt.Errorf("scan period to close: %w", err)
		}
		out.PeriodsToClose = append(out.PeriodsToClose, pc)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
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
	defer rows.Close()
	for rows.Next() {
		var sm Summary
		if err := rows.Scan(&sm.Currency, &sm.rows, &sm.TotalEarnings, &sm.TotalDeductions, &sm.TotalPenalties); err != nil {
			return Overview{}, fmt.Errorf("scan month totals: %w", err)
		}
		sm.NetAmount = sm.TotalEarnings.Sub(sm.TotalDeductions).Sub(sm.TotalPenalties)
		out.MonthTotals = append(out.MonthTotals, sm)
	}
	if err := rows.Err(); err != nil {
		return Overview{}, fmt.Errorf("month totals: %w", err)
	}
	return out, nil
}
