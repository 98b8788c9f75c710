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
	var (
		currency string
		prev     *string
		storedID *uuid.UUID
		created  *time.Time
	)
	err := db.QueryRow(ctx, `
		SELECT c.currency,
			(SELECT p.total_score::text FROM rating_snapshots p
				WHERE p.company_id = c.id AND p.driver_id = $2 AND p.rating_period = $4),
			s.id, s.created_at
		FROM companies c
		LEFT JOIN rating_snapshots s ON s.company_id = c.id AND s.driver_id = $2 AND s.rating_period = $3
		WHERE c.id = $1`, companyID, driverID, period.First(), period.Prev().First()).
		Scan(&currency, &prev, &storedID, &created)
	if err == pgx.ErrNoRows {
		return Rating{}, apperr.NotFound("msg.common.not_found.company")
	}
	if err != nil {
		return Rating{}, fmt.Errorf("read stored rating of driver %s %s: %w", driverID, period, err)
	}
	cfg, err := loadConfig(ctx, db, companyID, false)
	if err != nil {
		return Rating{}, err
	}
	inputs, err := gatherInputs(ctx, db, companyID, period, []uuid.UUID{driverID})
	if err != nil {
		return Rating{}, err
	}
	if len(inputs) == 0 {
		return Rating{}, apperr.NotFound("msg.common.not_found.driver") // deleted since the guard
	}
	res := Score(inputs[0], cfg, period, currency)
	pct, err := percentileAmongStored(ctx, db, companyID, driverID, period, res.Total)
	if err != nil {
		return Rating{}, err
	}
	r := Rating{
		DriverID:       driverID,
		TotalScore:     json.Number(res.Total.StringFixed(2)),
		RatingPeriod:   period,
		RankPercentile: pct,
		Components:     componentViews(res),
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
// Deleted drivers are left out by an anti-join with the few deleted ones
// (every snapshot's driver exists: a foreign key), not by joining every
// live driver: at 20,000 drivers that join was a quarter of the read
// (32 -> 24 ms, docs/performance.md).
func percentileAmongStored(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period, total decimal.Decimal) (int, error) {
	var atOrBelow, others int
	err := db.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE s.total_score <= $4::numeric), count(*)
		FROM rating_snapshots s
		WHERE s.company_id = $1 AND s.rating_period = $2 AND s.driver_id <> $3
			AND NOT EXISTS (SELECT FROM drivers d WHERE d.company_id = s.company_id AND d.id = s.driver_id AND d.deleted_at IS NOT NULL)`,
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
