package rating

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

func readRating(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, period Period) (Rating, error) {
	var r Rating
	found := false
	b := &pgx.Batch{}
	queueStoredRating(b, companyID, driverID, period, &r, &found)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Rating{}, err
	}
	if !found {
		return Rating{}, apperr.NotFound("msg.rating_read.none", "period", period)
	}
	return r, nil
}

// queueStoredRating adds to b the read of the driver's stored snapshot of
// the month: when b has run, *found says whether there is one, and *r is it.
func queueStoredRating(b *pgx.Batch, companyID, driverID uuid.UUID, period Period, r *Rating, found *bool) {
	b.Queue(`
		SELECT id, driver_id, rating_period, total_score::text, coalesce(rank_percentile, 100),
			previous_score::text, (total_score - previous_score)::text, components, calculated_at, created_at
		FROM rating_snapshots WHERE company_id = $3 AND driver_id = $1 AND rating_period = $2`, driverID, period.First(), companyID).
		QueryRow(func(row pgx.Row) error {
			var total string
			var prev, change *string
			err := row.Scan(&r.ID, &r.DriverID, &r.RatingPeriod, &total, &r.RankPercentile, &prev, &change, &r.Components, &r.CalculatedAt, &r.CreatedAt)
			if postgres.IsNotFound(err) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("read rating of driver %s %s: %w", driverID, period, err)
			}
			*found = true
			r.TotalScore = json.Number(total)
			r.PreviousScore, r.ScoreChange = numPtr(prev), numPtr(change)
			return nil
		})
}

func numPtr(s *string) *json.Number {
	if s == nil {
		return nil
	}
	n := json.Number(*s)
	return &n
}

// unratedDrivers lists the company's active drivers, except driverID,
// without a snapshot of the month.
func unratedDrivers(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, driverID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := tx.Query(ctx, `
		SELECT d.id FROM drivers d
		WHERE d.company_id = $1 AND d.deleted_at IS NULL AND d.status = 'active' AND d.id <> $3
			AND NOT EXISTS (SELECT 1 FROM rating_snapshots s WHERE s.company_id = $1 AND s.driver_id = d.id AND s.rating_period = $2)`,
		companyID, period.First(), driverID)
	if err != nil {
		return nil, fmt.Errorf("drivers of company %s not rated in %s: %w", companyID, period, err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("drivers of company %s not rated in %s: %w", companyID, period, err)
	}
	return ids, nil
}

// dueMonths lists, per company, the month just ended in its time zone when
// it has no rating run yet and the company existed before it.
func dueMonths(ctx context.Context, db postgres.DBTX) ([]CompanyMonth, error) {
	rows, err := db.Query(ctx, `
		SELECT c.id, m.period
		FROM companies c
		CROSS JOIN LATERAL (
			SELECT (date_trunc('month', konvoj_today(c.timezone)) - interval '1 month')::date AS period,
				date_trunc('month', konvoj_today(c.timezone))::timestamp AT TIME ZONE c.timezone AS month_start
		) m
		WHERE c.created_at < m.month_start
			AND NOT EXISTS (SELECT 1 FROM rating_runs r WHERE r.company_id = c.id AND r.rating_period = m.period)
		ORDER BY c.id`)
	if err != nil {
		return nil, fmt.Errorf("list months due for rating: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, cm *CompanyMonth) error {
		return r.Scan(&cm.CompanyID, &cm.Period)
	})
	if err != nil {
		return nil, fmt.Errorf("list months due for rating: %w", err)
	}
	return out, nil
}

// historyRows reads the driver's snapshots whose month overlaps [from, to],
// newest first.
func historyRows(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, from, to civil.Date) ([]HistoryItem, error) {
	rows, err := db.Query(ctx, `
		SELECT rating_period, total_score::text, coalesce(rank_percentile, 100), (total_score - previous_score)::text
		FROM rating_snapshots
		WHERE company_id = $4 AND driver_id = $1 AND rating_period BETWEEN $2 AND $3
		ORDER BY rating_period DESC`, driverID, from.MonthStart(), to, companyID)
	if err != nil {
		return nil, fmt.Errorf("rating history of driver %s: %w", driverID, err)
	}
	all, err := postgres.AppendRows(nil, rows, func(r pgx.Row, it *HistoryItem) error {
		var total string
		var change *string
		if err := r.Scan(&it.RatingPeriod, &total, &it.RankPercentile, &change); err != nil {
			return err
		}
		it.TotalScore, it.ScoreChange = json.Number(total), numPtr(change)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("rating history of driver %s: %w", driverID, err)
	}
	return all, nil
}

// rankingRows reads a page of the company's snapshots of the month (only
// r.own's when set) and the number of rows on all pages (0 past the last
// page).
func rankingRows(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, r ranking) ([]RankingRow, int, error) {
	rows, err := db.Query(ctx, `
		SELECT s.driver_id, d.internal_number, d.first_name, d.last_name, s.rating_period, s.total_score::text,
			coalesce(s.rank_percentile, 100), s.previous_score::text, (s.total_score - s.previous_score)::text,
			s.calculated_at, count(*) OVER ()
		FROM rating_snapshots s JOIN drivers d ON d.id = s.driver_id AND d.deleted_at IS NULL
		WHERE s.company_id = $1 AND s.rating_period = $2 AND ($3::uuid IS NULL OR s.driver_id = $3)
		ORDER BY `+r.column+` `+r.order+`, d.internal_seq, s.id
		LIMIT $4 OFFSET $5`,
		companyID, r.month.First(), r.own, r.page.Size, r.page.Offset())
	if err != nil {
		return nil, 0, fmt.Errorf("rating ranking %s: %w", r.month, err)
	}
	total := 0
	out, err := postgres.AppendRows(nil, rows, func(src pgx.Row, row *RankingRow) error {
		var score string
		var prev, change *string
		if err := src.Scan(&row.DriverID, &row.InternalNumber, &row.FirstName, &row.LastName, &row.RatingPeriod, &score,
			&row.RankPercentile, &prev, &change, &row.CalculatedAt, &total); err != nil {
			return err
		}
		row.TotalScore, row.PreviousScore, row.ScoreChange = json.Number(score), numPtr(prev), numPtr(change)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("rating ranking %s: %w", r.month, err)
	}
	return out, total, nil
}

// countRanking counts the rows of the ranking on all pages.
func countRanking(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, r ranking) (int, error) {
	var total int
	err := db.QueryRow(ctx, `
		SELECT count(*) FROM rating_snapshots s JOIN drivers d ON d.id = s.driver_id AND d.deleted_at IS NULL
		WHERE s.company_id = $1 AND s.rating_period = $2 AND ($3::uuid IS NULL OR s.driver_id = $3)`,
		companyID, r.month.First(), r.own).Scan(&total)
	if err != nil {
		return 0, fmt.Errorf("count ranking %s: %w", r.month, err)
	}
	return total, nil
}

// storeMetric writes one metric of the company's configuration and returns
// its row id.
func storeMetric(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, m MetricConfig) (uuid.UUID, error) {
	th := map[string]json.Number{}
	for k, v := range m.Thresholds {
		th[k] = num(v)
	}
	var id uuid.UUID
	err := tx.QueryRow(ctx, `
		INSERT INTO rating_configs (company_id, metric_name, weight, is_enabled, thresholds)
		VALUES ($1, $2, $3::numeric, $4, $5)
		ON CONFLICT (company_id, metric_name) DO UPDATE
			SET weight = EXCLUDED.weight, is_enabled = EXCLUDED.is_enabled, thresholds = EXCLUDED.thresholds
		RETURNING id`,
		companyID, m.MetricName, m.Weight.String(), m.IsEnabled, th).Scan(&id)
	if err != nil {
		return uuid.Nil, fmt.Errorf("store rating config %s of company %s: %w", m.MetricName, companyID, err)
	}
	return id, nil
}

// currentMonthOf is the company's current month in its time zone.
func currentMonthOf(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (Period, error) {
	var p Period
	err := db.QueryRow(ctx, `SELECT date_trunc('month', konvoj_today(timezone))::date FROM companies WHERE id = $1`, companyID).Scan(&p)
	if err == pgx.ErrNoRows {
		return Period{}, apperr.NotFound("msg.common.not_found.company")
	}
	if err != nil {
		return Period{}, fmt.Errorf("current month of company %s: %w", companyID, err)
	}
	return p, nil
}

// claimRefreshes deletes the due refresh marks and returns their companies
// (those that still exist).
func claimRefreshes(ctx context.Context, tx pgx.Tx) ([]uuid.UUID, error) {
	rows, err := tx.Query(ctx, `
		WITH due AS (DELETE FROM rating_refresh_due WHERE due_at <= now() RETURNING company_id)
		SELECT due.company_id FROM due JOIN companies c ON c.id = due.company_id ORDER BY due.company_id`)
	if err != nil {
		return nil, fmt.Errorf("claim due rating refreshes: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("claim due rating refreshes: %w", err)
	}
	return ids, nil
}

// markAllForRefresh makes a refresh due now for every company with an
// active driver.
func markAllForRefresh(ctx context.Context, db postgres.DBTX) (int, error) {
	tag, err := db.Exec(ctx, `
		INSERT INTO rating_refresh_due (company_id, due_at)
		SELECT c.id, now() FROM companies c
		WHERE EXISTS (SELECT 1 FROM drivers d WHERE d.company_id = c.id AND d.deleted_at IS NULL AND d.status = 'active')
		ON CONFLICT (company_id) DO UPDATE SET due_at = LEAST(rating_refresh_due.due_at, EXCLUDED.due_at)`)
	if err != nil {
		return 0, fmt.Errorf("mark every company for a rating refresh: %w", err)
	}
	return int(tag.RowsAffected()), nil
}
