package rating

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// writeSnapshots upserts the snapshots (previous_score from the previous
// month's snapshot) and replaces their components, a statement each for all
// drivers, then points the next month's previous_score at the new totals.
func writeSnapshots(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, results []Result) ([]written, error) {
	if len(results) == 0 {
		return nil, nil
	}
	out, err := upsertSnapshots(ctx, tx, companyID, period, results)
	if err != nil {
		return nil, err
	}
	if err := replaceComponents(ctx, tx, companyID, results, out); err != nil {
		return nil, err
	}
	driverIDs := make([]uuid.UUID, len(results))
	for i, r := range results {
		driverIDs[i] = r.DriverID
	}
	// A recalculated month changes the previous_score of the month after it
	// (every driver written has its snapshot of the month now). Each
	// next-month row looks up its driver's total by the unique (driver_id,
	// rating_period) index, and the drivers are a constant array (custom
	// plans), which PostgreSQL hashes: linear whatever the statistics say.
	// As a join of the month with the drivers written, the planner, told to
	// expect a row or two of a month just written (a new month, a fresh
	// table), compared every snapshot with every other: 250-450 ms of
	// rating 2,000 drivers (with "cur.driver_id = ANY" beside such a join,
	// 2 min 39 s on 20,000).
	_, err = tx.Exec(ctx, `
		UPDATE rating_snapshots nxt SET previous_score = (SELECT cur.total_score FROM rating_snapshots cur
			WHERE cur.driver_id = nxt.driver_id AND cur.rating_period = $2 AND cur.company_id = $1)
		WHERE nxt.company_id = $1 AND nxt.rating_period = $4 AND nxt.driver_id = ANY($3::uuid[])
			AND nxt.previous_score IS DISTINCT FROM (SELECT cur.total_score FROM rating_snapshots cur
				WHERE cur.driver_id = nxt.driver_id AND cur.rating_period = $2 AND cur.company_id = $1)`,
		companyID, period.First(), driverIDs, period.Next().First())
	if err != nil {
		return nil, fmt.Errorf("update previous scores of %s: %w", period.Next(), err)
	}
	return out, nil
}

// componentsObject is a result's components object as the snapshot stores
// it (JSON).
func componentsObject(r Result) (string, error) {
	b, err := json.Marshal(componentViews(r))
	if err != nil {
		return "", fmt.Errorf("encode components: %w", err)
	}
	return string(b), nil
}

// componentViews is a result's components as the API shows them, keyed by
// metric.
func componentViews(r Result) map[string]ComponentView {
	obj := make(map[string]ComponentView, len(r.Components))
	for _, c := range r.Components {
		sc := ComponentView{
			Score: json.Number(c.Score.StringFixed(2)), Weight: num(c.Weight),
			Contribution: num(c.Contribution), Details: c.Details, Applicable: c.Applicable,
		}
		if c.Raw != nil {
			n := num(c.Raw.Round(4))
			sc.RawValue = &n
		}
		obj[c.Metric] = sc
	}
	return obj
}

// upsertSnapshots writes one snapshot per result, in one statement, and
// returns what was written.
func upsertSnapshots(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, results []Result) ([]written, error) {
	driverIDs := make([]uuid.UUID, len(results))
	totals := make([]string, len(results))
	objects := make([]string, len(results))
	for i, r := range results {
		driverIDs[i] = r.DriverID
		totals[i] = r.Total.StringFixed(2)
		obj, err := componentsObject(r)
		if err != nil {
			return nil, err
		}
		objects[i] = obj
	}
	rows, err := tx.Query(ctx, `
		INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, components, previous_score, calculated_at)
		SELECT $1, u.driver_id, $2, u.total::numeric, u.components::jsonb, prev.total_score, now()
		FROM unnest($3::uuid[], $4::text[], $5::text[]) AS u(driver_id, total, components)
		LEFT JOIN rating_snapshots prev ON prev.driver_id = u.driver_id AND prev.rating_period = $6
		ON CONFLICT (driver_id, rating_period) DO UPDATE SET
			total_score = EXCLUDED.total_score, components = EXCLUDED.components,
			previous_score = EXCLUDED.previous_score, calculated_at = EXCLUDED.calculated_at
		RETURNING id, driver_id, total_score::text, calculated_at`,
		companyID, period.First(), driverIDs, totals, objects, period.Prev().First())
	if err != nil {
		return nil, fmt.Errorf("upsert rating snapshots of company %s %s: %w", companyID, period, err)
	}
	defer rows.Close()
	var out []written
	for rows.Next() {
		var w written
		var total string
		if err := rows.Scan(&w.SnapshotID, &w.DriverID, &total, &w.CalculatedAt); err != nil {
			return nil, fmt.Errorf("scan snapshot: %w", err)
		}
		w.Total, _ = decimal.NewFromString(total)
		out = append(out, w)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("upsert rating snapshots of company %s %s: %w", companyID, period, err)
	}
	return out, nil
}

// replaceComponents replaces the component rows of the written snapshots.
func replaceComponents(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, results []Result, snapshots []written) error {
	snapshotOf := map[uuid.UUID]uuid.UUID{}
	snapshotIDs := make([]uuid.UUID, 0, len(snapshots))
	for _, w := range snapshots {
		snapshotOf[w.DriverID] = w.SnapshotID
		snapshotIDs = append(snapshotIDs, w.SnapshotID)
	}
	// rating_components has no company_id of its own: its snapshot's decides.
	if _, err := tx.Exec(ctx, `DELETE FROM rating_components
		WHERE snapshot_id = ANY($1) AND snapshot_id IN (SELECT id FROM rating_snapshots WHERE company_id = $2)`,
		snapshotIDs, companyID); err != nil {
		return fmt.Errorf("clear rating components: %w", err)
	}
	// One INSERT of column arrays for ~6 rows per driver (COPY would be
	// faster but is refused on a table under row-level security).
	var (
		ids                                  []uuid.UUID
		metrics, metas                       []string
		raws, scores, weights, contributions []pgtype.Numeric
	)
	for _, r := range results {
		for _, c := range r.Components {
			meta := map[string]any{"details": c.Details, "applicable": c.Applicable}
			for k, v := range c.Meta {
				meta[k] = v
			}
			b, err := json.Marshal(meta)
			if err != nil {
				return fmt.Errorf("encode component metadata: %w", err)
			}
			var raw pgtype.Numeric // NULL unless the metric has a raw value
			if c.Raw != nil {
				raw = numeric(c.Raw.Round(4))
			}
			ids = append(ids, snapshotOf[r.DriverID])
			metrics = append(metrics, c.Metric)
			raws = append(raws, raw)
			scores = append(scores, numeric(c.Score))
			weights = append(weights, numeric(c.Weight))
			contributions = append(contributions, numeric(c.Contribution))
			metas = append(metas, string(b))
		}
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO rating_components (snapshot_id, metric_name, raw_value, normalized_score, weight, contribution, metadata)
		SELECT * FROM unnest($1::uuid[], $2::text[], $3::numeric[], $4::numeric[], $5::numeric[], $6::numeric[], $7::text[]::jsonb[])`,
		ids, metrics, raws, scores, weights, contributions, metas)
	if err != nil {
		return fmt.Errorf("insert rating components: %w", err)
	}
	return nil
}

// numeric converts a decimal for pgx's binary protocol.
func numeric(d decimal.Decimal) pgtype.Numeric {
	return pgtype.Numeric{Int: d.Coefficient(), Exp: d.Exponent(), Valid: true}
}

// refreshPercentiles sets rank_percentile = ceil(100 × (drivers with
// total_score ≤ this one) / drivers rated in the month) for the company's
// month, in integers (a float cume_dist would round 100 × 3/10 up to 31).
// Snapshots of deleted drivers are left out.
func refreshPercentiles(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period) error {
	_, err := tx.Exec(ctx, `
		UPDATE rating_snapshots s SET rank_percentile = r.pct
		FROM (
			SELECT s.id,
				(100 * count(*) OVER (ORDER BY s.total_score) + count(*) OVER () - 1) / count(*) OVER () AS pct
			FROM rating_snapshots s JOIN drivers d ON d.company_id = s.company_id AND d.id = s.driver_id AND d.deleted_at IS NULL
			WHERE s.company_id = $1 AND s.rating_period = $2
		) r
		WHERE s.company_id = $1 AND s.id = r.id AND s.rank_percentile IS DISTINCT FROM r.pct`,
		companyID, period.First())
	if err != nil {
		return fmt.Errorf("refresh rank percentiles of company %s %s: %w", companyID, period, err)
	}
	return nil
}
