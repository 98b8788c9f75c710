package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/postgres"
)

// The change feed of a driver's transactions and penalties
// (docs/change-feed.md): the rows changed since, oldest first, with the
// list's filters, deleted rows too with include_deleted=true.

// Feed names of the lists in their cursors.
const (
	transactionsFeed = "finance_transactions"
	penaltiesFeed    = "penalties"
)

// FeedTransactions answers the driver's transaction list in feed mode, with
// the list's filters (a period narrows it as on the list).
// perr is the error of a query that did not parse: it is the answer once
// the driver is checked.
func (s *Service) FeedTransactions(ctx context.Context, p auth.Principal, driverID uuid.UUID, f TransactionFilter, fp feed.Params, perr error) (feed.Page[Transaction], error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	d, err := loadDriver(ctx, s.db, p, auth.FinanceRead, driverID)
	if err != nil {
		return feed.Page[Transaction]{}, err
	}
	if perr != nil {
		return feed.Page[Transaction]{}, perr
	}
	var v apperr.Validation
	f = f.check(&v)
	if f.PeriodID != nil {
		var err error
		if f, _, err = s.withinPeriod(ctx, d, f, &v); err != nil {
			return feed.Page[Transaction]{}, err
		}
	}
	if err := v.Err(); err != nil {
		return feed.Page[Transaction]{}, err
	}
	fq, err := feed.Prepare(ctx, s.db, s.feedCodec, transactionsFeed, fp)
	if err != nil {
		return feed.Page[Transaction]{}, err
	}
	var a postgres.Args
	sql := txPageQuery(`WHERE `+transactionFilterSQL(d.CompanyID, d.ID, f, &a)+` AND `+fq.Where("t", true, a.Add), fq.Order("t"), fq.LimitSQL(a.Add))
	rows, err := s.db.Query(ctx, sql, a.Values...)
	if err != nil {
		return feed.Page[Transaction]{}, fmt.Errorf("feed of transactions of driver %s: %w", d.ID, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, t *Transaction) error { return scanTransaction(r, t) })
	if err != nil {
		return feed.Page[Transaction]{}, fmt.Errorf("feed of transactions of driver %s: %w", d.ID, err)
	}
	return feed.Finish(s.feedCodec, fq, out, func(t Transaction) feed.Position {
		return feed.Position{UpdatedAt: t.UpdatedAt, ID: t.ID}
	}), nil
}

// FeedPenalties answers the driver's penalty list in feed mode, with the
// list's filters.
// perr is the error of a query that did not parse: it is the answer once
// the driver is checked.
func (s *Service) FeedPenalties(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PenaltyFilter, fp feed.Params, perr error) (feed.Page[Penalty], error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	d, err := loadDriver(ctx, s.db, p, auth.PenaltiesRead, driverID)
	if err != nil {
		return feed.Page[Penalty]{}, err
	}
	if perr != nil {
		return feed.Page[Penalty]{}, perr
	}
	if err := f.check(); err != nil {
		return feed.Page[Penalty]{}, err
	}
	fq, err := feed.Prepare(ctx, s.db, s.feedCodec, penaltiesFeed, fp)
	if err != nil {
		return feed.Page[Penalty]{}, err
	}
	var a postgres.Args
	sql := penaltyPageQuery(`WHERE `+penaltyFilterSQL(d.CompanyID, d.ID, f, &a)+` AND `+fq.Where("pe", true, a.Add), fq.Order("pe"), fq.LimitSQL(a.Add))
	rows, err := s.db.Query(ctx, sql, a.Values...)
	if err != nil {
		return feed.Page[Penalty]{}, fmt.Errorf("feed of penalties of driver %s: %w", d.ID, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, pen *Penalty) error { return scanPenalty(r, pen) })
	if err != nil {
		return feed.Page[Penalty]{}, fmt.Errorf("feed of penalties of driver %s: %w", d.ID, err)
	}
	if err := withEvidence(ctx, s.db, d.CompanyID, out); err != nil {
		return feed.Page[Penalty]{}, err
	}
	return feed.Finish(s.feedCodec, fq, out, func(pe Penalty) feed.Position {
		return feed.Position{UpdatedAt: pe.UpdatedAt, ID: pe.ID}
	}), nil
}
