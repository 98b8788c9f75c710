package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
	"github.com/konvoj/konvoj/web/webtest"
)

// ratingBench is a company of 2,000 drivers with a year of documents, files,
// penalties and orders ending this month, every month stored and its
// current month stored as the background refresh keeps it.
type ratingBench struct {
	env     *webtest.Env
	hr      *webtest.Caller
	company uuid.UUID
	current rating.Period
	ids     []uuid.UUID // the active drivers
}

func newRatingBench(b *testing.B) *ratingBench {
	b.Helper()
	ctx := context.Background()
	env := webtest.New(b)
	company := env.Company("Bench", "enterprise")
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		b.Fatal(err)
	}
	current := rating.CurrentPeriod(loc, time.Now())
	f := &ratingtest.Fixtures{T: b, DB: env.DB, Company: company}
	f.SeedYear(2000, current.First().AddMonths(-11))
	svc := rating.NewService(env.DB)
	for k := 11; k >= 1; k-- { // the past months, as the monthly job rated them
		if _, err := svc.RateCompany(ctx, company, rating.PeriodOf(current.First().AddMonths(-k))); err != nil {
			b.Fatal(err)
		}
	}
	if _, n, err := svc.RefreshCurrentMonth(ctx, company); err != nil || n != 1960 {
		b.Fatalf("refresh: %d drivers rated (%v), want 1960", n, err)
	}
	f.Exec(`VACUUM ANALYZE rating_snapshots`) // as autovacuum would after the refresh
	ids := f.ActiveDrivers()
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/drivers/" + ids[0].String() + "/rating").Expect(http.StatusOK) // provisions the user
	return &ratingBench{env: env, hr: hr, company: company, current: current, ids: ids}
}

func (r *ratingBench) snapshots(b *testing.B) int {
	var n int
	if err := r.env.DB.QueryRow(context.Background(), `SELECT count(*) FROM rating_snapshots WHERE company_id = $1`, r.company).Scan(&n); err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkRatingCurrentMonth times GET /drivers/{id}/rating for the current
// month through the real server on the 2,000-driver company: each request
// computes the driver's rating read-only and ranks it among the stored
// snapshots.
// Run: go test -run '^$' -bench RatingCurrentMonth -benchtime 200x ./web/api/
func BenchmarkRatingCurrentMonth(b *testing.B) {
	r := newRatingBench(b)
	snapshots := r.snapshots(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		r.hr.GetOK(b, "/api/v0/drivers/"+r.ids[(i*97)%len(r.ids)].String()+"/rating")
	}
	b.StopTimer()
	if after := r.snapshots(b); after != snapshots {
		b.Fatalf("%d snapshots after the reads, %d before", after, snapshots)
	}
}

// BenchmarkRatingDashboard times a dashboard's worth of rating reads on the
// 2,000-driver company, each through the real server (the target:
// under 30 ms each): the month's ranking (first page of 100, by score and by
// name), a driver's rating of the current and of the past month, and its
// history. Each sub-benchmark prints ms/op.
// Run: go test -run '^$' -bench RatingDashboard -benchtime 200x ./web/api/
func BenchmarkRatingDashboard(b *testing.B) {
	r := newRatingBench(b)
	past := r.current.Prev().String()
	for _, bc := range []struct {
		name string
		path func(driver uuid.UUID) string
	}{
		{"ranking", func(uuid.UUID) string { return "/api/v0/ratings?per_page=100" }},
		{"ranking_by_name", func(uuid.UUID) string { return "/api/v0/ratings?per_page=100&sort_by=last_name&page=3" }},
		{"rating_current_month", func(d uuid.UUID) string { return "/api/v0/drivers/" + d.String() + "/rating" }},
		{"rating_past_month", func(d uuid.UUID) string { return "/api/v0/drivers/" + d.String() + "/rating?period=" + past }},
		{"history", func(d uuid.UUID) string { return "/api/v0/drivers/" + d.String() + "/rating/history" }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				r.hr.GetOK(b, bc.path(r.ids[(i*97)%len(r.ids)]))
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
		})
	}
}
