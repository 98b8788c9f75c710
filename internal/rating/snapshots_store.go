package rating

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/postgres"
)

// writeSnapshots upserts the snapshots (previous_score from the previous
// month's snapshot) and their component rows, a statement each for all
// drivers, then points the next month's previous_score at the new totals.
// stored says whether the month had any snapshot when the run began (when
// not, every snapshot is inserted).
func writeSnapshots(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, results []Result, stored bool) ([]written, error) {
	if len(results) == 0 {
		return nil, nil
	}
	rows := make(map[uuid.UUID]componentRows, len(results))
	digests := make([]string, len(results))
	for i, r := range results {
		cr, err := encodeComponentRows(r)
		if err != nil {
			return nil, err
		}
		rows[r.DriverID] = cr
		digests[i] = cr.digest
	}
	out, err := upsertSnapshots(ctx, tx, companyID, period, results, digests, stored)
	if err != nil {
		return nil, err
	}
	if err := replaceComponents(ctx, tx, companyID, out, rows); err != nil {
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
	// table), would compare every snapshot with every other, which grows
	// with the square of the company (docs/performance.md, "Rating a
	// month").
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
		if c.Explanation.Code != "" {
			ex := c.Explanation
			sc.Explanation = &ex
		}
		if c.Raw != nil {
			n := num(c.Raw.Round(4))
			sc.RawValue = &n
		}
		obj[c.Metric] = sc
	}
	return obj
}

// upsertSnapshots writes one snapshot per result and returns what was
// written, and whether each snapshot's component rows changed (their
// digest). The month's existing snapshots are updated by one statement and
// the others inserted by another: an upsert of existing rows first tries
// each as an insert (its triggers included) before it updates it, work an
// update of a row known to exist does not need (docs/performance.md,
// "Rating a month").
func upsertSnapshots(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, period Period, results []Result, digests []string, stored bool) ([]written, error) {
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
	// The subquery in RETURNING reads the row as the statement found it
	// (its snapshot does not see the statement's own changes): the old
	// digest tells whether the component rows need writing. (A join with
	// the old rows would read each of them twice.)
	var out []written
	if stored {
		var err error
		out, err = scanWritten(tx.Query(ctx, `
		UPDATE rating_snapshots s SET total_score = u.total::numeric, components = u.components::jsonb,
			previous_score = prev.total_score, calculated_at = now(), component_rows_digest = u.digest
		FROM unnest($3::uuid[], $4::text[], $5::text[], $7::text[]) AS u(driver_id, total, components, digest)
		LEFT JOIN rating_snapshots prev ON prev.company_id = $1 AND prev.driver_id = u.driver_id AND prev.rating_period = $6
		WHERE s.company_id = $1 AND s.driver_id = u.driver_id AND s.rating_period = $2
		RETURNING s.id, s.driver_id, s.total_score::text, s.calculated_at,
			(SELECT old.component_rows_digest FROM rating_snapshots old WHERE old.id = s.id) IS DISTINCT FROM u.digest, false`,
			companyID, period.First(), driverIDs, totals, objects, period.Prev().First(), digests))
		if err != nil {
			return nil, fmt.Errorf("update rating snapshots of company %s %s: %w", companyID, period, err)
		}
	}
	if len(out) == len(results) {
		return out, nil
	}
	updated := make(map[uuid.UUID]bool, len(out))
	for _, w := range out {
		updated[w.DriverID] = true
	}
	var newIDs []uuid.UUID
	var newTotals, newObjects, newDigests []string
	for i, id := range driverIDs {
		if !updated[id] {
			newIDs, newTotals = append(newIDs, id), append(newTotals, totals[i])
			newObjects, newDigests = append(newObjects, objects[i]), append(newDigests, digests[i])
		}
	}
	// ON CONFLICT for a writer that does not take the month's lock (the
	// seeds): the snapshot it wrote meanwhile is replaced, rows and all. The
	// subquery in RETURNING, like the update's, sees the table as the
	// statement found it: a snapshot it does not find was inserted, so it
	// has no component rows yet. A scalar subquery, looked up by id per row:
	// as NOT EXISTS the planner hashes every snapshot of every company and
	// month instead (docs/performance.md, "Rating a month").
	inserted, err := scanWritten(tx.Query(ctx, `
		INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score, components, previous_score, calculated_at, component_rows_digest)
		SELECT $1, u.driver_id, $2, u.total::numeric, u.components::jsonb, prev.total_score, now(), u.digest
		FROM unnest($3::uuid[], $4::text[], $5::text[], $7::text[]) AS u(driver_id, total, components, digest)
		LEFT JOIN rating_snapshots prev ON prev.company_id = $1 AND prev.driver_id = u.driver_id AND prev.rating_period = $6
		ON CONFLICT (driver_id, rating_period) DO UPDATE SET
			total_score = EXCLUDED.total_score, components = EXCLUDED.components,
			previous_score = EXCLUDED.previous_score, calculated_at = EXCLUDED.calculated_at,
			component_rows_digest = EXCLUDED.component_rows_digest
		RETURNING id, driver_id, total_score::text, calculated_at, true,
			(SELECT old.id FROM rating_snapshots old WHERE old.id = rating_snapshots.id) IS NULL`,
		companyID, period.First(), newIDs, newTotals, newObjects, period.Prev().First(), newDigests))
	if err != nil {
		return nil, fmt.Errorf("insert rating snapshots of company %s %s: %w", companyID, period, err)
	}
	return append(out, inserted...), nil
}

// scanWritten reads the rows a snapshot statement returned: id, driver_id,
// total_score as text, calculated_at, whether the component rows changed
// and whether the snapshot was inserted.
func scanWritten(rows pgx.Rows, err error) ([]written, error) {
	if err != nil {
		return nil, err
	}
	var total string
	return postgres.AppendRows(nil, rows, func(row pgx.Row, w *written) error {
		if err := row.Scan(&w.SnapshotID, &w.DriverID, &total, &w.CalculatedAt, &w.rowsChanged, &w.inserted); err != nil {
			return err
		}
		var err error
		w.Total, err = decimal.NewFromString(total)
		return err
	})
}

// componentRows are a result's component rows as they are written, column
// by column, with a digest of them all. The snapshot keeps the digest
// (component_rows_digest), so that rating a month again, which mostly
// rewrites what the current month's refresh stored, writes only the rows of
// the snapshots whose digest changed (docs/performance.md, "Rating a
// month").
type componentRows struct {
	metrics, metas                 []string
	raws                           []*string
	scores, weights, contributions []string
	digest                         string
}

// encodeComponentRows encodes a result's component rows and their digest.
func encodeComponentRows(r Result) (componentRows, error) {
	var cr componentRows
	h := sha256.New()
	for _, c := range r.Components {
		meta := map[string]any{"details": c.Details, "applicable": c.Applicable}
		for k, v := range c.Meta {
			meta[k] = v
		}
		b, err := json.Marshal(meta) // sorted keys: the same rows, the same bytes
		if err != nil {
			return cr, fmt.Errorf("encode component metadata: %w", err)
		}
		var raw *string // NULL unless the metric has a raw value
		rawText := "-"
		if c.Raw != nil {
			s := c.Raw.Round(4).String()
			raw, rawText = &s, s
		}
		cr.metrics = append(cr.metrics, c.Metric)
		cr.raws = append(cr.raws, raw)
		cr.scores = append(cr.scores, c.Score.String())
		cr.weights = append(cr.weights, c.Weight.String())
		cr.contributions = append(cr.contributions, c.Contribution.String())
		cr.metas = append(cr.metas, string(b))
		// NUL and SOH never occur in a metric name, a number or JSON text.
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x01", c.Metric, rawText, c.Score, c.Weight, c.Contribution, b)
	}
	cr.digest = hex.EncodeToString(h.Sum(nil))
	return cr, nil
}

// replaceComponents makes the component rows of the written snapshots whose
// rows changed those of their results. Within a snapshot that had rows only
// the rows that differ are written: each new row costs a foreign-key check
// on its snapshot, while a changed row is updated in place, which needs
// none. A snapshot just inserted has no rows to compare with or
// to remove, so its rows are simply inserted.
func replaceComponents(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, snapshots []written, rows map[uuid.UUID]componentRows) error {
	var stored, fresh componentColumns
	var storedIDs []uuid.UUID
	for _, w := range snapshots {
		switch {
		case w.inserted:
			fresh.add(w.SnapshotID, rows[w.DriverID])
		case w.rowsChanged:
			stored.add(w.SnapshotID, rows[w.DriverID])
			storedIDs = append(storedIDs, w.SnapshotID)
		}
	}
	if len(storedIDs) > 0 {
		// The rows of metrics a result no longer has (disabled since).
		// rating_components has no company_id of its own: its snapshot's decides.
		if _, err := tx.Exec(ctx, `DELETE FROM rating_components c
			WHERE c.snapshot_id = ANY($1) AND c.snapshot_id IN (SELECT id FROM rating_snapshots WHERE company_id = $2)
				AND NOT EXISTS (SELECT FROM unnest($3::uuid[], $4::text[]) AS n(snapshot_id, metric_name)
					WHERE n.snapshot_id = c.snapshot_id AND n.metric_name = c.metric_name)`,
			storedIDs, companyID, stored.ids, stored.metrics); err != nil {
			return fmt.Errorf("clear rating components: %w", err)
		}
		if err := stored.write(ctx, tx, `
			WHERE NOT EXISTS (SELECT FROM rating_components o
				WHERE o.snapshot_id = n.snapshot_id AND o.metric_name = n.metric_name
					AND (o.raw_value, o.normalized_score, o.weight, o.contribution, o.metadata)
						IS NOT DISTINCT FROM (n.raw_value, n.normalized_score, n.weight, n.contribution, n.metadata))`); err != nil {
			return err
		}
	}
	if len(fresh.ids) > 0 {
		return fresh.write(ctx, tx, "")
	}
	return nil
}

// componentColumns are component rows of several snapshots, column by
// column, as one statement writes them.
type componentColumns struct {
	ids                            []uuid.UUID
	metrics, metas                 []string
	raws                           []*string
	scores, weights, contributions []string
}

// add appends a snapshot's rows.
func (c *componentColumns) add(snapshotID uuid.UUID, cr componentRows) {
	for range cr.metrics {
		c.ids = append(c.ids, snapshotID)
	}
	c.metrics, c.metas, c.raws = append(c.metrics, cr.metrics...), append(c.metas, cr.metas...), append(c.raws, cr.raws...)
	c.scores, c.weights = append(c.scores, cr.scores...), append(c.weights, cr.weights...)
	c.contributions = append(c.contributions, cr.contributions...)
}

// write inserts the rows, or updates those already stored, skipping the
// rows the condition where (on n, a row to write) leaves out. One statement
// of column arrays for ~6 rows per driver (COPY is refused on a table under
// row-level security, and could not update). The metadata come as text,
// each cast on its own, because casting the whole array to jsonb[] is
// several times slower than casting its elements (docs/performance.md,
// "Rating a month"). ON CONFLICT also for a snapshot just
// inserted, whose rows a writer without the month's lock (the seeds) may
// have written meanwhile.
func (c *componentColumns) write(ctx context.Context, tx pgx.Tx, where string) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO rating_components AS c (snapshot_id, metric_name, raw_value, normalized_score, weight, contribution, metadata)
		SELECT n.* FROM (
			SELECT u.snapshot_id, u.metric_name, u.raw_value::numeric(14,4) AS raw_value, u.normalized_score::numeric(5,2) AS normalized_score,
				u.weight::numeric(5,2) AS weight, u.contribution::numeric(7,4) AS contribution, u.metadata::jsonb AS metadata
			FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])
				AS u(snapshot_id, metric_name, raw_value, normalized_score, weight, contribution, metadata)
		) n`+where+`
		ON CONFLICT (snapshot_id, metric_name) DO UPDATE SET
			raw_value = EXCLUDED.raw_value, normalized_score = EXCLUDED.normalized_score, weight = EXCLUDED.weight,
			contribution = EXCLUDED.contribution, metadata = EXCLUDED.metadata`,
		c.ids, c.metrics, c.raws, c.scores, c.weights, c.contributions, c.metas)
	if err != nil {
		return fmt.Errorf("write rating components: %w", err)
	}
	return nil
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
