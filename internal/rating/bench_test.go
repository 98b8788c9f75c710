package rating_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// benchCompany fills a company with a year (July 2025 – June 2026) of data
// for the given number of drivers (ratingtest.SeedYear) and returns it with
// the month the benchmarks rate.
func benchCompany(b testing.TB, drivers int) (*ratingtest.Fixtures, rating.Period) {
	b.Helper()
	f := ratingtest.New(b, pgtest.New(b))
	f.SeedYear(drivers, civil.NewDate(2025, time.July, 1))
	return f, rating.MonthOf(2026, time.March)
}

// BenchmarkRateCompanyMonth rates a company of 2,000 drivers with a year of
// data for one month (the monthly job's work, one transaction).
func BenchmarkRateCompanyMonth(b *testing.B) {
	f, period := benchCompany(b, 2000)
	svc := rating.NewService(f.DB)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, err := svc.RateCompany(ctx, f.Company, period)
		if err != nil {
			b.Fatal(err)
		}
		if n != 1960 {
			b.Fatalf("rated %d drivers, want 1960 active", n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
}

// BenchmarkRecalculateOneDriver recomputes one driver of that company and
// refreshes the month's percentiles (POST …/rating/calculate).
func BenchmarkRecalculateOneDriver(b *testing.B) {
	f, period := benchCompany(b, 2000)
	svc := rating.NewService(f.DB)
	if _, err := svc.RateCompany(ctx, f.Company, period); err != nil {
		b.Fatal(err)
	}
	var id uuid.UUID
	if err := f.DB.QueryRow(ctx, `SELECT id FROM drivers WHERE company_id = $1 AND internal_seq = 1000`, f.Company).Scan(&id); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := svc.RecalculateForBench(ctx, f.Company, period, id); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
}
