package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// monthSelection selects periods of the company starting in a month: of
// these types, statuses, offices, drivers and ids (an empty list keeps
// every value).
type monthSelection struct {
	month                     civil.Date
	types, statuses           []string
	offices, drivers, periods []uuid.UUID
}

// monthJoin and monthWhere are the FROM and WHERE of a month selection over
// $1..$8: the periods fp of the company's live drivers d (a LATERAL join
// goes between them).
const (
	monthJoin = `
	FROM finance_periods fp
	JOIN drivers d ON d.company_id = fp.company_id AND d.id = fp.driver_id AND d.deleted_at IS NULL`
	monthWhere = `
	WHERE fp.company_id = $1 AND fp.period_start BETWEEN $2 AND $3
		AND (COALESCE(cardinality($4::text[]), 0) = 0 OR fp.period_type = ANY($4))
		AND (COALESCE(cardinality($5::text[]), 0) = 0 OR fp.status = ANY($5))
		AND (COALESCE(cardinality($6::uuid[]), 0) = 0 OR d.office_id = ANY($6))
		AND (COALESCE(cardinality($7::uuid[]), 0) = 0 OR fp.driver_id = ANY($7))
		AND (COALESCE(cardinality($8::uuid[]), 0) = 0 OR fp.id = ANY($8))`
)

// monthOrder is the month's order: by driver (the numeric part of the
// internal number), then start, type and currency; id breaks ties.
const monthOrder = `d.internal_seq, d.id, fp.period_start, fp.period_type, fp.currency, fp.id`

// pendingJoin counts the pending transactions of each period fp as pc.n:
// pending and disputed ones (a disputed penalty record waits as a pending
// one does), dated inside it in its currency, not deleted. One index probe
// per period (finance_transactions_list_idx).
const pendingJoin = `
	CROSS JOIN LATERAL (SELECT count(*) AS n FROM finance_transactions t
		WHERE t.company_id = fp.company_id AND t.driver_id = fp.driver_id AND t.currency = fp.currency
			AND t.transaction_date BETWEEN fp.period_start AND fp.period_end
			AND t.status IN ('pending', 'disputed') AND t.deleted_at IS NULL) pc`

func (m monthSelection) args(companyID uuid.UUID) []any {
	return []any{companyID, m.month, m.month.MonthEnd(), m.types, m.statuses, m.offices, m.drivers, m.periods}
}

// monthSummary counts the selected periods by status (with their pending
// transactions) and sums their totals by currency, in one statement.
func monthSummary(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, sel monthSelection) (MonthSummary, error) {
	rows, err := db.Query(ctx, `
		SELECT fp.status, fp.currency, count(*), count(*) FILTER (WHERE pc.n > 0), COALESCE(sum(pc.n), 0)::bigint,
			sum(fp.total_earnings), sum(fp.total_deductions), sum(fp.net_amount)
		`+monthJoin+pendingJoin+monthWhere+`
		GROUP BY fp.status, fp.currency
		ORDER BY fp.currency`, sel.args(companyID)...)
	if err != nil {
		return MonthSummary{}, fmt.Errorf("summarise periods of %s: %w", sel.month, err)
	}
	defer rows.Close()
	var out MonthSummary
	for rows.Next() {
		var status string
		var c MonthCount
		var t MonthTotal
		if err := rows.Scan(&status, &t.Currency, &c.Periods, &c.WithPending, &c.Pending, &t.Earnings, &t.Deductions, &t.Net); err != nil {
			return MonthSummary{}, fmt.Errorf("summarise periods of %s: %w", sel.month, err)
		}
		count := map[string]*MonthCount{PeriodOpen: &out.Open, PeriodClosed: &out.Closed, PeriodPaid: &out.Paid}[status]
		count.Periods += c.Periods
		count.WithPending += c.WithPending
		count.Pending += c.Pending
		t.Periods = c.Periods
		if n := len(out.Totals); n > 0 && out.Totals[n-1].Currency == t.Currency {
			last := &out.Totals[n-1]
			last.Periods += t.Periods
			last.Earnings, last.Deductions, last.Net = last.Earnings.Add(t.Earnings), last.Deductions.Add(t.Deductions), last.Net.Add(t.Net)
		} else {
			out.Totals = append(out.Totals, t)
		}
	}
	if err := rows.Err(); err != nil {
		return MonthSummary{}, fmt.Errorf("summarise periods of %s: %w", sel.month, err)
	}
	return out, nil
}

// monthPeriodRows reads a page of the selected periods: the page's ids
// with their drivers first, and the pending counts of those rows only,
// then the periods themselves as a driver's period list reads them
// (periodQuery).
func monthPeriodRows(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, sel monthSelection, limit, offset int) ([]MonthPeriod, error) {
	rows, err := db.Query(ctx, `
		SELECT fp.id, fp.driver_id, fp.internal_number, fp.name, pc.n
		FROM (SELECT fp.id, fp.company_id, fp.driver_id, fp.currency, fp.period_start, fp.period_end,
				d.internal_number, concat_ws(' ', d.first_name, d.last_name) AS name,
				row_number() OVER (ORDER BY `+monthOrder+`) AS at
			`+monthJoin+monthWhere+`
			ORDER BY `+monthOrder+`
			LIMIT $9 OFFSET $10) fp
		`+pendingJoin+`
		ORDER BY fp.at`, append(sel.args(companyID), limit, offset)...)
	if err != nil {
		return nil, fmt.Errorf("list periods of %s: %w", sel.month, err)
	}
	out, err := postgres.AppendRows(make([]MonthPeriod, 0, limit), rows, func(r pgx.Row, mp *MonthPeriod) error {
		return r.Scan(&mp.ID, &mp.Driver.ID, &mp.Driver.InternalNumber, &mp.Driver.Name, &mp.PendingCount)
	})
	if err != nil {
		return nil, fmt.Errorf("list periods of %s: %w", sel.month, err)
	}
	ids := make([]uuid.UUID, len(out))
	at := make(map[uuid.UUID]int, len(out))
	for i, mp := range out {
		ids[i], at[mp.ID] = mp.ID, i
	}
	rows, err = db.Query(ctx, periodQuery+` WHERE fp.company_id = $1 AND fp.id = ANY($2)`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("read periods of %s: %w", sel.month, err)
	}
	defer rows.Close()
	for rows.Next() {
		var per Period
		if err := scanPeriod(rows, &per); err != nil {
			return nil, fmt.Errorf("read periods of %s: %w", sel.month, err)
		}
		out[at[per.ID]].Period = per
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read periods of %s: %w", sel.month, err)
	}
	return out, nil
}

// bulkTargets are the selected periods with their drivers, in the month's
// order.
func bulkTargets(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, sel monthSelection) ([]BulkResult, error) {
	rows, err := db.Query(ctx, `
		SELECT fp.id, fp.driver_id, d.internal_number, concat_ws(' ', d.first_name, d.last_name), fp.currency
		`+monthJoin+monthWhere+`
		ORDER BY `+monthOrder, sel.args(companyID)...)
	if err != nil {
		return nil, fmt.Errorf("select periods of %s: %w", sel.month, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, b *BulkResult) error {
		b.PeriodID = new(uuid.UUID)
		return r.Scan(b.PeriodID, &b.DriverID, &b.DriverNumber, &b.DriverName, &b.Currency)
	})
	if err != nil {
		return nil, fmt.Errorf("select periods of %s: %w", sel.month, err)
	}
	return out, nil
}
