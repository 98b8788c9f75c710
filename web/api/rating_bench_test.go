package api_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkRatingCurrentMonth times GET /drivers/{id}/rating for the current
// month through the real server: a company of 2,000 drivers with a year of
// documents, files, penalties and orders ending this month, its current
// month stored as the background refresh keeps it; each request computes
// the driver's rating read-only and ranks it among the stored snapshots.
// Run: go test -run '^$' -bench RatingCurrentMonth -benchtime 200x ./web/api/
func BenchmarkRatingCurrentMonth(b *testing.B) {
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
	if _, n, err := rating.NewService(env.DB).RefreshCurrentMonth(ctx, company); err != nil || n != 1960 {
		b.Fatalf("refresh: %d drivers rated (%v), want 1960", n, err)
	}
	f.Exec(`ANALYZE rating_snapshots`) // as autovacuum would after the refresh
	rows, err := env.DB.Query(ctx, `SELECT id FROM drivers WHERE company_id = $1 AND status = 'active' ORDER BY internal_seq`, company)
	if err != nil {
		b.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		b.Fatal(err)
	}
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/drivers/" + ids[0].String() + "/rating").Expect(http.StatusOK) // provisions the user
	var snapshots int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1`, company).Scan(&snapshots); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/api/v0/drivers/"+ids[(i*97)%len(ids)].String()+"/rating", nil)
		req.Header.Set("Authorization", "Bearer "+hr.Token)
		res, err := env.Server.Client().Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("rating: %d", res.StatusCode)
		}
	}
	b.StopTimer()
	var after int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1`, company).Scan(&after); err != nil || after != snapshots {
		b.Fatalf("%d snapshots after the reads, %d before (%v)", after, snapshots, err)
	}
}
