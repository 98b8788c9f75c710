package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// periodColumns and periodJoins read periods fp as scanPeriod scans them.
var (
	periodColumns = `
	SELECT fp.id, fp.company_id, fp.driver_id, fp.period_type, fp.period_start, fp.period_end, fp.status,
		fp.total_earnings, fp.total_deductions, fp.net_amount, fp.currency, fp.transactions_count,
		fp.closed_at, ` + userName("cu") + `, fp.paid_at, ` + userName("pu") + `, fp.created_at, fp.updated_at`
	periodJoins = `
	LEFT JOIN users cu ON cu.id = fp.closed_by
	LEFT JOIN users pu ON pu.id = fp.paid_by`
	periodQuery = periodColumns + `
	FROM finance_periods fp` + periodJoins
)

func scanPeriod(row pgx.Row, p *Period) error {
	return row.Scan(&p.ID, &p.CompanyID, &p.DriverID, &p.PeriodType, &p.PeriodStart, &p.PeriodEnd, &p.Status,
		&p.TotalEarnings, &p.TotalDeductions, &p.NetAmount, &p.Currency, &p.TransactionsCount,
		&p.ClosedAt, &p.ClosedBy, &p.PaidAt, &p.PaidBy, &p.CreatedAt, &p.UpdatedAt)
}

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
	out, err := postgres.AppendRows(nil, rows, scanPeriod)
	if err != nil {
		return nil, fmt.Errorf("lock periods of driver %s: %w", driverID, err)
	}
	return out, nil
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
			WHERE p.company_id = $2 AND p.id = ANY($1)
			GROUP BY p.id
		) s
		WHERE fp.company_id = $2 AND fp.id = s.id`, ids, ps[0].CompanyID)
	if err != nil {
		return fmt.Errorf("recompute period totals: %w", err)
	}
	return nil
}

// getPeriod reads a period of the driver; lock takes its row lock.
func getPeriod(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID, lock bool) (Period, error) {
	q := periodQuery + ` WHERE fp.company_id = $1 AND fp.driver_id = $3 AND fp.id = $2`
	what := "read"
	if lock {
		q += ` FOR UPDATE OF fp`
		what = "lock"
	}
	var per Period
	if err := scanPeriod(db.QueryRow(ctx, q, companyID, id, driverID), &per); err != nil {
		return Period{}, fmt.Errorf("%s period %s: %w", what, id, err)
	}
	return per, nil
}

// periodSpan reads the dates and currency of a period of the driver; a
// missing one is pgx.ErrNoRows (wrapped).
func periodSpan(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID) (Period, error) {
	var per Period
	err := db.QueryRow(ctx, `SELECT period_start, period_end, currency FROM finance_periods WHERE company_id = $1 AND driver_id = $2 AND id = $3`,
		companyID, driverID, id).Scan(&per.PeriodStart, &per.PeriodEnd, &per.Currency)
	if err != nil {
		return Period{}, fmt.Errorf("read period %s: %w", id, err)
	}
	return per, nil
}

// periodExists gives 404 unless the period is one of the driver's.
func periodExists(ctx context.Context, db postgres.DBTX, companyID, driverID, periodID uuid.UUID) error {
	var exists bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM finance_periods WHERE company_id = $1 AND driver_id = $2 AND id = $3)`,
		companyID, driverID, periodID).Scan(&exists); err != nil {
		return fmt.Errorf("find period %s: %w", periodID, err)
	}
	if !exists {
		return apperr.NotFound("msg.common.not_found.period")
	}
	return nil
}

// listPeriodRows reads the driver's periods matching the filter, newest
// first.
func listPeriodRows(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, f PeriodFilter) ([]Period, error) {
	rows, err := db.Query(ctx, periodQuery+`
		WHERE fp.company_id = $1 AND fp.driver_id = $2
			AND (COALESCE(cardinality($3::text[]), 0) = 0 OR fp.period_type = ANY($3))
			AND (COALESCE(cardinality($4::text[]), 0) = 0 OR fp.status = ANY($4))
			AND ($5::int IS NULL OR fp.period_start >= make_date($5, 1, 1) AND fp.period_start < make_date($5 + 1, 1, 1))
		ORDER BY fp.period_start DESC, fp.period_end DESC, fp.currency, fp.id`,
		companyID, driverID, f.Types, f.Statuses, f.Year)
	if err != nil {
		return nil, fmt.Errorf("list periods of driver %s: %w", driverID, err)
	}
	out, err := postgres.AppendRows(nil, rows, scanPeriod)
	if err != nil {
		return nil, fmt.Errorf("list periods of driver %s: %w", driverID, err)
	}
	return out, nil
}

// markPeriod moves a period: closed or paid, by the given user, now; open
// (a reopen) clears who closed it and when (the audit log keeps them). It
// answers the period as written, with the joined names (the answer needs no
// second read).
func markPeriod(ctx context.Context, tx pgx.Tx, companyID, id uuid.UUID, to string, by *uuid.UUID) (Period, error) {
	var set string
	args := []any{id, companyID}
	switch to {
	case PeriodClosed:
		set, args = `status = 'closed', closed_at = now(), closed_by = $3`, append(args, by)
	case PeriodPaid:
		set, args = `status = 'paid', paid_at = now(), paid_by = $3`, append(args, by)
	case PeriodOpen:
		set = `status = 'open', closed_at = NULL, closed_by = NULL`
	default:
		return Period{}, fmt.Errorf("unknown period status %q", to)
	}
	var per Period
	err := scanPeriod(tx.QueryRow(ctx, `
		WITH fp AS (UPDATE finance_periods SET `+set+` WHERE company_id = $2 AND id = $1 RETURNING *)`+
		periodColumns+` FROM fp`+periodJoins, args...), &per)
	if err != nil {
		return Period{}, fmt.Errorf("mark period %s %s: %w", id, to, err)
	}
	return per, nil
}

// pendingRows returns the ids of the live transactions dated inside the
// locked period, in its currency, that are pending or disputed, oldest
// date first.
func pendingRows(ctx context.Context, tx pgx.Tx, per Period) ([]uuid.UUID, error) {
	rows, err := tx.Query(ctx, `
		SELECT id FROM finance_transactions
		WHERE company_id = $1 AND driver_id = $2 AND currency = $3 AND transaction_date BETWEEN $4 AND $5
			AND status IN ('pending', 'disputed') AND deleted_at IS NULL
		ORDER BY transaction_date, created_at, id`,
		per.CompanyID, per.DriverID, per.Currency, per.PeriodStart, per.PeriodEnd)
	if err != nil {
		return nil, fmt.Errorf("pending transactions of period %s: %w", per.ID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("pending transactions of period %s: %w", per.ID, err)
	}
	return ids, nil
}

// settlePenaltyRecordRows sets the penalty records of the locked period
// whose status disagrees with their penalty's: disputed while the penalty
// is, pending otherwise. It returns the new status by record.
func settlePenaltyRecordRows(ctx context.Context, tx pgx.Tx, per Period) (map[uuid.UUID]string, error) {
	rows, err := tx.Query(ctx, `
		UPDATE finance_transactions t SET status = CASE WHEN pe.status = 'disputed' THEN 'disputed' ELSE 'pending' END
		FROM penalties pe
		WHERE t.company_id = $1 AND t.driver_id = $2 AND t.currency = $3 AND t.transaction_date BETWEEN $4 AND $5
			AND t.deleted_at IS NULL AND pe.company_id = t.company_id AND pe.finance_id = t.id
			AND (t.status = 'disputed' AND pe.status <> 'disputed' OR t.status = 'pending' AND pe.status = 'disputed')
		RETURNING t.id, t.status`,
		per.CompanyID, per.DriverID, per.Currency, per.PeriodStart, per.PeriodEnd)
	if err != nil {
		return nil, fmt.Errorf("settle penalty records of period %s: %w", per.ID, err)
	}
	defer rows.Close()
	out := map[uuid.UUID]string{}
	for rows.Next() {
		var id uuid.UUID
		var status string
		if err := rows.Scan(&id, &status); err != nil {
			return nil, fmt.Errorf("settle penalty records of period %s: %w", per.ID, err)
		}
		out[id] = status
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("settle penalty records of period %s: %w", per.ID, err)
	}
	return out, nil
}

// payApprovedRows marks the period's approved transactions paid and
// returns their ids.
func payApprovedRows(ctx context.Context, tx pgx.Tx, per Period, by *uuid.UUID, payDate civil.Date) ([]uuid.UUID, error) {
	rows, err := tx.Query(ctx, `
		UPDATE finance_transactions SET status = 'paid', paid_by = $6, paid_at = now(), payment_date = $7
		WHERE company_id = $1 AND driver_id = $2 AND currency = $3 AND transaction_date BETWEEN $4 AND $5
			AND status = 'approved' AND deleted_at IS NULL
		RETURNING id`,
		per.CompanyID, per.DriverID, per.Currency, per.PeriodStart, per.PeriodEnd, by, payDate)
	if err != nil {
		return nil, fmt.Errorf("pay transactions of period %s: %w", per.ID, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("pay transactions of period %s: %w", per.ID, err)
	}
	return ids, nil
}
