package rating_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestRankEqualsFullCount: the current month's rank, read from the kept
// counts (rating_score_counts), is the rank a count of every stored snapshot
// of the month gives, for drivers with and without a stored snapshot, on
// ties, with deleted drivers, another company's and another month's
// snapshots beside, after snapshots are inserted, upserted, updated and
// deleted, on the request pool (row-level security) as on the owner's.
func TestRankEqualsFullCount(t *testing.T) {
	db, url := pgtest.NewWithURL(t, nil)
	f := ratingtest.New(t, db)
	other := ratingtest.New(t, db)
	month := rating.MonthOf(2026, time.March)
	requests := pgtest.Requests(t, url, nil)
	asCompany := postgres.WithCompany(ctx, f.Company)

	var ids []uuid.UUID
	for i := 0; i < 8; i++ {
		ids = append(ids, f.Driver())
	}
	store := func(fx *ratingtest.Fixtures, driver uuid.UUID, p rating.Period, total string) {
		t.Helper()
		fx.Exec(`INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score) VALUES ($1, $2, $3, $4::numeric)
			ON CONFLICT (driver_id, rating_period) DO UPDATE SET total_score = EXCLUDED.total_score`,
			fx.Company, driver, p.First(), total)
	}
	// Ties at 50 and at 70.25, both ends of the scale; ids[6] and ids[7]
	// have no snapshot of the month.
	for i, total := range []string{"50", "50", "50", "70.25", "70.25", "0", "", ""} {
		if total != "" {
			store(f, ids[i], month, total)
		}
	}
	store(f, ids[6], month.Prev(), "10")
	store(f, ids[7], month.Next(), "90")
	for i := 0; i < 3; i++ {
		store(other, other.Driver(), month, "60")
	}

	totals := []string{"0", "0.01", "49.99", "50", "50.01", "60", "70.25", "99.99", "100"}
	check := func(step string) {
		t.Helper()
		for i, id := range ids {
			for _, s := range totals {
				total := decimal.RequireFromString(s)
				want := fullCountRank(t, f, id, month, total)
				got, err := rating.PercentileAmongStoredForTest(ctx, db, f.Company, id, month, total)
				if err != nil {
					t.Fatal(err)
				}
				viaRequests, err := rating.PercentileAmongStoredForTest(asCompany, requests, f.Company, id, month, total)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || viaRequests != want {
					t.Errorf("%s: driver %d at %s: rank %d (request pool %d), full count %d", step, i, s, got, viaRequests, want)
				}
			}
		}
		// The kept counts are those of the snapshots, month by month.
		var wrong []string
		rows, err := db.Query(ctx, `
			WITH m AS (SELECT DISTINCT company_id, rating_period FROM rating_snapshots
				UNION SELECT company_id, rating_period FROM rating_score_counts)
			SELECT m.company_id || ' ' || m.rating_period FROM m
			LEFT JOIN rating_score_counts c USING (company_id, rating_period)
			WHERE coalesce(c.at_or_below, array_fill(0, ARRAY[10001])) IS DISTINCT FROM ARRAY(
				SELECT (SELECT count(*) FROM rating_snapshots s
					WHERE s.company_id = m.company_id AND s.rating_period = m.rating_period AND s.total_score * 100 <= g)::integer
				FROM generate_series(0, 10000) g ORDER BY g)`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			wrong = append(wrong, s)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(wrong) > 0 {
			t.Errorf("%s: rating_score_counts differs from the snapshots for %v", step, wrong)
		}
	}
	check("stored")

	f.Exec(`UPDATE drivers SET deleted_at = now() WHERE id = ANY($1)`, []uuid.UUID{ids[1], ids[3]})
	check("two deleted")

	store(f, ids[6], month, "50")  // inserted by the upsert
	store(f, ids[0], month, "100") // updated by the upsert
	f.Exec(`UPDATE rating_snapshots SET total_score = 0.01 WHERE driver_id = $1 AND rating_period = $2`, ids[4], month.First())
	f.Exec(`UPDATE rating_snapshots SET rank_percentile = 1 WHERE company_id = $1`, f.Company)
	check("changed")

	f.Exec(`DELETE FROM rating_snapshots WHERE driver_id = ANY($1) AND rating_period = $2`, []uuid.UUID{ids[2], ids[3]}, month.First())
	f.Exec(`UPDATE drivers SET deleted_at = NULL WHERE id = $1`, ids[1])
	check("deleted snapshots, a driver restored")

	// A bulk load without triggers (the scale seed's) is counted too.
	err := postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL session_replication_role = replica`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO rating_snapshots (company_id, driver_id, rating_period, total_score)
			VALUES ($1, $2, $3, 50), ($1, $4, $3, 99.99)`, f.Company, ids[2], month.First(), ids[7])
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check("bulk loaded")

	f.Exec(`DELETE FROM rating_snapshots WHERE company_id = $1`, f.Company)
	check("none stored")
}

// fullCountRank is the rank by the rule of docs/rating.md, counting every
// stored snapshot of the month: ceil(100 × (others ≤ total + 1) / (others
// + 1)) among the other not deleted drivers of the company.
func fullCountRank(t *testing.T, f *ratingtest.Fixtures, driver uuid.UUID, p rating.Period, total decimal.Decimal) int {
	t.Helper()
	var atOrBelow, others int
	err := f.DB.QueryRow(ctx, `
		SELECT count(*) FILTER (WHERE s.total_score <= $4::numeric), count(*)
		FROM rating_snapshots s JOIN drivers d ON d.company_id = s.company_id AND d.id = s.driver_id AND d.deleted_at IS NULL
		WHERE s.company_id = $1 AND s.rating_period = $2 AND s.driver_id <> $3`,
		f.Company, p.First(), driver, total.String()).Scan(&atOrBelow, &others)
	if err != nil {
		t.Fatal(fmt.Errorf("full count: %w", err))
	}
	return (100*(atOrBelow+1) + others) / (others + 1)
}
