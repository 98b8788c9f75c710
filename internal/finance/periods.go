package finance

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Period is a driver's pay period in one currency. Its totals cover the
// driver's transactions in that currency dated inside it, except cancelled
// and deleted ones: total_earnings = sum of positive amounts,
// total_deductions = absolute sum of negative amounts (deductions and
// penalties), net_amount = earnings − deductions.
type Period struct {
	ID                uuid.UUID    `json:"id"`
	CompanyID         uuid.UUID    `json:"company_id"`
	DriverID          uuid.UUID    `json:"driver_id"`
	PeriodType        string       `json:"period_type"`
	PeriodStart       civil.Date   `json:"period_start"`
	PeriodEnd         civil.Date   `json:"period_end"`
	Status            string       `json:"status"`
	TotalEarnings     money.Amount `json:"total_earnings"`
	TotalDeductions   money.Amount `json:"total_deductions"`
	NetAmount         money.Amount `json:"net_amount"`
	Currency          string       `json:"currency"`
	TransactionsCount int          `json:"transactions_count"`
	ClosedAt          *time.Time   `json:"closed_at"`
	ClosedBy          *string      `json:"closed_by"`
	PaidAt            *time.Time   `json:"paid_at"`
	PaidBy            *string      `json:"paid_by"`
	CreatedAt         time.Time    `json:"created_at"`
	UpdatedAt         time.Time    `json:"updated_at"`
}

var periodQuery = `
	SELECT fp.id, fp.company_id, fp.driver_id, fp.period_type, fp.period_start, fp.period_end, fp.status,
		fp.total_earnings, fp.total_deductions, fp.net_amount, fp.currency, fp.transactions_count,
		fp.closed_at, ` + userName("cu") + `, fp.paid_at, ` + userName("pu") + `, fp.created_at, fp.updated_at
	FROM finance_periods fp
	LEFT JOIN users cu ON cu.id = fp.closed_by
	LEFT JOIN users pu ON pu.id = fp.paid_by`

func scanPeriod(row pgx.Row) (Period, error) {
	var p Period
	err := row.Scan(&p.ID, &p.CompanyID, &p.DriverID, &p.PeriodType, &p.PeriodStart, &p.PeriodEnd, &p.Status,
		&p.TotalEarnings, &p.TotalDeductions, &p.NetAmount, &p.Currency, &p.TransactionsCount,
		&p.ClosedAt, &p.ClosedBy, &p.PaidAt, &p.PaidBy, &p.CreatedAt, &p.UpdatedAt)
	return p, err
}

// PeriodFilter narrows the period list.
type PeriodFilter struct {
	Types    []string
	Statuses []string
	Year     *int
}

// ListPeriods returns the driver's periods, newest first.
func (s *Service) ListPeriods(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PeriodFilter) ([]Period, error) {
	d, err := s.driverFor(ctx, p, auth.FinanceRead, driverID)
	if err != nil {
		return nil, err
	}
	var v apperr.Validation
	checkValues(&v, "period_type", f.Types, PeriodTypes)
	checkValues(&v, "status", f.Statuses, PeriodStatuses)
	if f.Year != nil && (*f.Year < 1900 || *f.Year > 2200) {
		v.Add("year", "The year must be between 1900 and 2200.")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, periodQuery+`
		WHERE fp.company_id = $1 AND fp.driver_id = $2
			AND (COALESCE(cardinality($3::text[]), 0) = 0 OR fp.period_type = ANY($3))
			AND (COALESCE(cardinality($4::text[]), 0) = 0 OR fp.status = ANY($4))
			AND ($5::int IS NULL OR fp.period_start >= make_date($5, 1, 1) AND fp.period_start < make_date($5 + 1, 1, 1))
		ORDER BY fp.period_start DESC, fp.period_end DESC, fp.currency, fp.id`,
		d.CompanyID, d.ID, f.Types, f.Statuses, f.Year)
	if err != nil {
		return nil, fmt.Errorf("list periods of driver %s: %w", driverID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Period, error) { return scanPeriod(r) })
	if err != nil {
		return nil, fmt.Errorf("list periods of driver %s: %w", driverID, err)
	}
	return out, nil
}

// ClosePeriod moves an open period to closed: nothing dated inside it may
// change afterwards.
func (s *Service) ClosePeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID) (Period, error) {
	return s.movePeriod(ctx, p, driverID, periodID, PeriodOpen, PeriodClosed, nil)
}

// PayPeriod moves a closed period to paid and marks its approved
// transactions paid (paid_by, paid_at, payment_date = paymentDate or today).
// Pending transactions stay pending.
func (s *Service) PayPeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID, paymentDate *string) (Period, error) {
	return s.movePeriod(ctx, p, driverID, periodID, PeriodClosed, PeriodPaid, paymentDate)
}

func (s *Service) movePeriod(ctx context.Context, p auth.Principal, driverID, periodID uuid.UUID, from, to string, paymentDateRaw *string) (Period, error) {
	d, err := s.driverFor(ctx, p, auth.PeriodsManage, driverID)
	if err != nil {
		return Period{}, err
	}
	if err := s.periodExists(ctx, d, periodID); err != nil {
		return Period{}, err
	}
	payDate := p.Today()
	if paymentDateRaw != nil && *paymentDateRaw != "" {
		pd, err := civil.Parse(*paymentDateRaw)
		if err != nil {
			return Period{}, apperr.Invalid("payment_date", "The payment_date field must be a valid date (YYYY-MM-DD).")
		}
		payDate = pd
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := scanPeriod(tx.QueryRow(ctx, periodQuery+` WHERE fp.company_id = $1 AND fp.id = $2 FOR UPDATE OF fp`, d.CompanyID, periodID))
		if err != nil {
			return fmt.Errorf("lock period %s: %w", periodID, err)
		}
		if cur.Status != from {
			return apperr.Conflict("The period is %s; only an %s period can be marked %s.", cur.Status, from, to)
		}
		if to == PeriodClosed {
			_, err = tx.Exec(ctx, `UPDATE finance_periods SET status = 'closed', closed_at = now(), closed_by = $2 WHERE id = $1`, periodID, userID(p))
		} else {
			_, err = tx.Exec(ctx, `UPDATE finance_periods SET status = 'paid', paid_at = now(), paid_by = $2 WHERE id = $1`, periodID, userID(p))
		}
		if err != nil {
			return fmt.Errorf("mark period %s %s: %w", periodID, to, err)
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_period", EntityID: periodID, Action: "period." + to,
			OldValues: map[string]any{"status": from}, NewValues: map[string]any{"status": to}}); err != nil {
			return err
		}
		if to == PeriodPaid {
			return payApproved(ctx, tx, p, cur, payDate)
		}
		return nil
	})
	if err != nil {
		return Period{}, err
	}
	out, err := scanPeriod(s.db.QueryRow(ctx, periodQuery+` WHERE fp.company_id = $1 AND fp.id = $2`, d.CompanyID, periodID))
	if err != nil {
		return Period{}, fmt.Errorf("read period %s: %w", periodID, err)
	}
	return out, nil
}

// payApproved marks the period's approved transactions paid, with an audit
// row each. The period row is locked, so no transaction dated inside it can
// change meanwhile.
func payApproved(ctx context.Context, tx pgx.Tx, p auth.Principal, per Period, payDate civil.Date) error {
	rows, err := tx.Query(ctx, `
		UPDATE finance_transactions SET status = 'paid', paid_by = $6, paid_at = now(), payment_date = $7
		WHERE company_id = $1 AND driver_id = $2 AND currency = $3 AND transaction_date BETWEEN $4 AND $5
			AND status = 'approved' AND deleted_at IS NULL
		RETURNING id`,
		per.CompanyID, per.DriverID, per.Currency, per.PeriodStart, per.PeriodEnd, userID(p), payDate)
	if err != nil {
		return fmt.Errorf("pay transactions of period %s: %w", per.ID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fmt.Errorf("pay transactions of period %s: %w", per.ID, err)
	}
	for _, id := range ids {
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "updated",
			OldValues: map[string]any{"status": StatusApproved},
			NewValues: map[string]any{"status": StatusPaid, "payment_date": payDate, "period_id": per.ID}}); err != nil {
			return err
		}
	}
	return nil
}

// slot is where a transaction sits: its date and currency.
type slot struct {
	Date     civil.Date
	Currency string
}

func (sl slot) same(o slot) bool {
	return sl.Currency == o.Currency && sl.Date.String() == o.Date.String()
}

// lockedPeriods are the periods covering some slots, locked FOR UPDATE.
type lockedPeriods []Period

// lockPeriods makes sure the driver has a monthly period for the slot
// `place` (when given) and then locks every period of the driver, of any
// type, covering any of the slots, in id order. The lock serialises every
// change dated inside a period, so totals recomputed while holding it never
// miss a concurrent change.
//
// The monthly period is created with INSERT ... ON CONFLICT DO NOTHING: two
// requests racing to create it both end up locking the same row.
func lockPeriods(ctx context.Context, tx pgx.Tx, companyID, driverID uuid.UUID, place *slot, slots ...slot) (lockedPeriods, error) {
	if place != nil {
		_, err := tx.Exec(ctx, `
			INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
			VALUES ($1, $2, 'monthly', $3, $4, $5)
			ON CONFLICT ON CONSTRAINT finance_periods_driver_period_key DO NOTHING`,
			companyID, driverID, place.Date.MonthStart(), place.Date.MonthEnd(), place.Currency)
		if err != nil {
			return nil, fmt.Errorf("create monthly period %s of driver %s: %w", place.Date.MonthStart(), driverID, err)
		}
		slots = append(slots, *place)
	}
	dates := make([]civil.Date, len(slots))
	currencies := make([]string, len(slots))
	for i, sl := range slots {
		dates[i], currencies[i] = sl.Date, sl.Currency
	}
	rows, err := tx.Query(ctx, periodQuery+`
		WHERE fp.company_id = $1 AND fp.driver_id = $2
			AND EXISTS (SELECT 1 FROM unnest($3::date[], $4::text[]) AS s(d, c)
				WHERE fp.currency = s.c AND s.d BETWEEN fp.period_start AND fp.period_end)
		ORDER BY fp.id
		FOR UPDATE OF fp`, companyID, driverID, dates, currencies)
	if err != nil {
		return nil, fmt.Errorf("lock periods of driver %s: %w", driverID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Period, error) { return scanPeriod(r) })
	if err != nil {
		return nil, fmt.Errorf("lock periods of driver %s: %w", driverID, err)
	}
	return out, nil
}

// monthly returns the id of the locked monthly period holding the slot.
func (ps lockedPeriods) monthly(sl slot) (uuid.UUID, error) {
	for _, p := range ps {
		if p.PeriodType == PeriodMonthly && p.Currency == sl.Currency && p.PeriodStart.String() == sl.Date.MonthStart().String() {
			return p.ID, nil
		}
	}
	return uuid.Nil, fmt.Errorf("monthly period of %s %s not locked", sl.Date, sl.Currency)
}

// checkOpen gives 409 when a period covering one of the slots is closed or
// paid.
func (ps lockedPeriods) checkOpen(slots ...slot) error {
	for _, p := range ps {
		if p.Status == PeriodOpen {
			continue
		}
		for _, sl := range slots {
			if sl.Currency == p.Currency && !sl.Date.Before(p.PeriodStart) && !sl.Date.After(p.PeriodEnd) {
				return apperr.Conflict("The %s period %s – %s (%s) is %s; nothing dated inside it can be created or changed.",
					p.PeriodType, p.PeriodStart, p.PeriodEnd, p.Currency, p.Status)
			}
		}
	}
	return nil
}

// recompute sets the totals of the locked periods from their transactions,
// in one statement, inside the change's transaction.
func (ps lockedPeriods) recompute(ctx context.Context, tx postgres.DBTX) error {
	if len(ps) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	_, err := tx.Exec(ctx, `
		UPDATE finance_periods fp SET
			total_earnings = s.earnings, total_deductions = s.deductions,
			net_amount = s.earnings - s.deductions, transactions_count = s.n
		FROM (
			SELECT p.id,
				COALESCE(sum(t.amount) FILTER (WHERE t.amount > 0), 0) AS earnings,
				COALESCE(-sum(t.amount) FILTER (WHERE t.amount < 0), 0) AS deductions,
				count(t.id) AS n
			FROM finance_periods p
			LEFT JOIN finance_transactions t ON t.company_id = p.company_id AND t.driver_id = p.driver_id
				AND t.currency = p.currency AND t.transaction_date BETWEEN p.period_start AND p.period_end
				AND t.deleted_at IS NULL AND t.status <> 'cancelled'
			WHERE p.id = ANY($1)
			GROUP BY p.id
		) s
		WHERE fp.id = s.id`, ids)
	if err != nil {
		return fmt.Errorf("recompute period totals: %w", err)
	}
	return nil
}
