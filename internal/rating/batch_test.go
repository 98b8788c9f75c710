package rating_test

import (
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestCompanyRunInBatches: a company run gathers, scores and writes its
// drivers a batch at a time, so that memory does not grow with the company.
// Rated again 7 drivers at a time, a company of 60 keeps the very snapshots
// (scores, percentiles, previous scores) that one batch of all of them gave,
// and every driver is rated once.
func TestCompanyRunInBatches(t *testing.T) {
	f := ratingtest.New(t, pgtest.New(t))
	f.SeedYear(60, civil.NewDate(2025, time.July, 1))
	svc := rating.NewService(f.DB)
	rate := func() (int, map[string]string) {
		t.Helper()
		var n int
		for _, m := range []time.Month{time.February, time.March} {
			var err error
			if n, err = svc.RateCompany(ctx, f.Company, rating.MonthOf(2026, m)); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := f.DB.Query(ctx, `SELECT s.driver_id::text || ' ' || s.rating_period,
				s.total_score::text || ' ' || s.rank_percentile || ' ' || coalesce(s.previous_score::text, '-')
			FROM rating_snapshots s WHERE s.company_id = $1 AND s.rating_period IN ('2026-02-01', '2026-03-01')`, f.Company)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var k, v string
			if err := rows.Scan(&k, &v); err != nil {
				t.Fatal(err)
			}
			out[k] = v
		}
		return n, out
	}
	nWhole, whole := rate()
	rating.SetRateBatchForTest(t, 7)
	nBatched, batched := rate()
	if nWhole < 50 || nBatched != nWhole {
		t.Fatalf("rated %d drivers in batches of 7, %d at once", nBatched, nWhole)
	}
	if len(batched) != len(whole) || len(whole) != 2*nWhole {
		t.Fatalf("%d snapshots in batches, %d at once, for %d drivers and 2 months", len(batched), len(whole), nWhole)
	}
	for k, v := range whole {
		if batched[k] != v {
			t.Errorf("%s: %q in batches of 7, %q at once", k, batched[k], v)
		}
	}
}
