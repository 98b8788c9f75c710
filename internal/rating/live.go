package rating

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
)

// liveRating computes the driver's rating of the month from current data
// without writing anything and without any lock (docs/rating.md, "Reading
// and recalculating"): the components and total as a recalculation would
// store them, rank_percentile among the month's stored snapshots of the
// company's other drivers, previous_score from the previous month's stored
// snapshot. id and created_at are those of the driver's stored snapshot of
// the month when there is one (else the nil id and now); calculated_at is now.
func liveRating(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period, now time.Time) (Rating, error) {
	var l liveReads
	b := &pgx.Batch{}
	queueLive(b, companyID, driverID, period, &l)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Rating{}, fmt.Errorf("read rating of driver %s %s: %w", driverID, period, err)
	}
	return l.rating(ctx, db, companyID, driverID, period, now)
}

// liveReads is what liveRating reads in its first round trip.
type liveReads struct {
	company  bool // the company exists
	currency string
	prev     *string
	storedID *uuid.UUID
	created  *time.Time
	cfg      Config
	inputs   []Inputs
	renewals renewals
}

// queueLive adds liveRating's first reads to b: the stored snapshots, the
// configuration and the driver's inputs need nothing from each other, so
// they share one round trip (docs/performance.md, "Batched statements"),
// and a caller may add them to the driver's load (rating.Service.Read). Once b
// has run, l holds them.
func queueLive(b *pgx.Batch, companyID, driverID uuid.UUID, period Period, l *liveReads) {
	b.Queue(`
		SELECT c.currency,
			(SELECT p.total_score::text FROM rating_snapshots p
				WHERE p.company_id = c.id AND p.driver_id = $2 AND p.rating_period = $4),
			s.id, s.created_at
		FROM companies c
		LEFT JOIN rating_snapshots s ON s.company_id = c.id AND s.driver_id = $2 AND s.rating_period = $3
		WHERE c.id = $1`, companyID, driverID, period.First(), period.Prev().First()).
		QueryRow(func(row pgx.Row) error {
			err := row.Scan(&l.currency, &l.prev, &l.storedID, &l.created)
			if postgres.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read stored rating of driver %s %s: %w", driverID, period, err)
			}
			l.company = true
			return nil
		})
	b.Queue(configSQL, companyID).Query(func(rows pgx.Rows) error {
		var err error
		l.cfg, err = scanConfig(rows, companyID)
		return err
	})
	queueInputs(b, companyID, period, []uuid.UUID{driverID}, &l.inputs)
	l.renewals = renewals{}
	queueRenewals(b, companyID, period, []uuid.UUID{driverID}, l.renewals)
}

// rating finishes liveRating from its first reads: the score, and its
// percentile, which needs the total and so a round trip of its own.
func (l *liveReads) rating(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period, now time.Time) (Rating, error) {
	if !l.company {
		return Rating{}, apperr.NotFound("msg.common.not_found.company")
	}
	if len(l.inputs) == 0 {
		return Rating{}, apperr.NotFound("msg.common.not_found.driver") // deleted since it was loaded
	}
	l.renewals.fill(l.inputs)
	res := Score(l.inputs[0], l.cfg, period, l.currency)
	pct, err := percentileAmongStored(ctx, db, companyID, driverID, period, res.Total)
	if err != nil {
		return Rating{}, err
	}
	storedID, created, prev := l.storedID, l.created, l.prev
	r := Rating{
		DriverID:       driverID,
		TotalScore:     json.Number(res.Total.StringFixed(2)),
		RatingPeriod:   period,
		RankPercentile: pct,
		Components:     NewComponents(componentViews(res)),
		CalculatedAt:   now.UTC(),
		CreatedAt:      now.UTC(),
	}
	if storedID != nil {
		r.ID, r.CreatedAt = *storedID, *created
	}
	if prev != nil {
		p, err := decimal.NewFromString(*prev)
		if err != nil {
			return Rating{}, fmt.Errorf("previous score %q: %w", *prev, err)
		}
		change := json.Number(res.Total.Round(2).Sub(p).StringFixed(2))
		r.PreviousScore, r.ScoreChange = numPtr(prev), &change
	}
	return r, nil
}

// percentileAmongStored places total among the month's stored snapshots of
// the company's other (not deleted) drivers, as if the driver's own snapshot
// held total: ceil(100 × (others ≤ total + 1) / (others + 1)), in integers,
// the rule refreshPercentiles applies to stored snapshots.
//
// It counts nothing the size of the company: the month's counts of
// snapshots at or below each score are kept by a trigger in
// rating_score_counts (every snapshot, deleted drivers' too), from which it
// subtracts the driver's own stored snapshot and those of the company's
// deleted drivers (usually none or a few, found by a partial index), so a
// read costs the same whatever the size of the company, where counting the
// month's snapshots would grow with it and slow further right after the
// background refresh rewrote them (docs/performance.md, "The current
// month's rank").
func percentileAmongStored(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period, total decimal.Decimal) (int, error) {
	var atOrBelow, others int
	err := db.QueryRow(ctx, `
		WITH left_out AS (
			SELECT s.total_score FROM rating_snapshots s
			WHERE s.company_id = $1 AND s.driver_id = $3 AND s.rating_period = $2
			UNION ALL
			SELECT s.total_score FROM drivers d
			CROSS JOIN LATERAL (
				-- One probe per deleted driver. LIMIT 1 (a driver has one
				-- snapshot a month) keeps this a loop over the few deleted
				-- drivers: as a join, the planner read the company's whole
				-- month whenever its statistics expected a handful of rows.
				SELECT s.total_score FROM rating_snapshots s
				WHERE s.company_id = d.company_id AND s.driver_id = d.id AND s.rating_period = $2
				LIMIT 1
			) s
			WHERE d.company_id = $1 AND d.deleted_at IS NOT NULL AND d.id <> $3
		)
		SELECT coalesce(c.at_or_below[($4::numeric * 100)::integer + 1], 0)
				- (SELECT count(*) FROM left_out WHERE total_score <= $4::numeric),
			coalesce(c.at_or_below[10001], 0) - (SELECT count(*) FROM left_out)
		FROM (SELECT) one
		LEFT JOIN rating_score_counts c ON c.company_id = $1 AND c.rating_period = $2`,
		companyID, period.First(), driverID, total.StringFixed(2)).Scan(&atOrBelow, &others)
	if err != nil {
		return 0, fmt.Errorf("rank driver %s among stored ratings of %s: %w", driverID, period, err)
	}
	return percentile(atOrBelow+1, others+1), nil
}

// percentile is ceil(100 × atOrBelow / rated) in integers.
func percentile(atOrBelow, rated int) int {
	return (100*atOrBelow + rated - 1) / rated
}
