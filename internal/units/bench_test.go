package units_test

import (
	"context"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/internal/units"
)

// BenchmarkUnitDayStart times the start of a company's day for its
// transport units (units.RefreshCompany: every active unit's readiness
// worked out again in one statement, the changes stored and told) on one
// company of the scale set with 20,000 drivers, every second one in a unit
// (about 9,800 units with their drivers', vehicles' and trailers'
// documents). Memory stays flat: the work is SQL, the service reads back
// only the units whose readiness changed (docs/performance.md, "Transport
// units' readiness").
//
//	go test -run '^$' -bench UnitDayStart -benchtime 10x ./internal/units
func BenchmarkUnitDayStart(b *testing.B) {
	ctx := context.Background()
	db := pgtest.New(b)
	start := time.Now()
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 1, DriversPerCompany: 20000,
		TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		b.Fatal(err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM transport_units WHERE company_id = $1 AND unassigned_at IS NULL`, ids[0]).Scan(&n); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded in %s: %d active units", time.Since(start).Round(time.Second), n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := units.RefreshCompany(ctx, db, ids[0]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n), "units")
}
