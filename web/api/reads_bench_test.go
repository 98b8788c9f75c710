package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkSingleRead times the single-record reads through the real
// server, one request at a time, with their allocations: GET /drivers/{id},
// /documents, /finance (20 a page) and /rating for the past month (as the
// monthly job stored it). Data: a company of 300 drivers with a year of
// documents, files, penalties and orders, and a company of 300 drivers × 100
// finance transactions. The database's part of these requests is a few
// small statements, so what changes here between two runs is mostly the
// Go side: round trips per request (trips/op: the request pool's round
// trips per request, a batch of statements counting once), encoding, allocation
// (allocs/op, the server's and the client's). Compare with -count and
// -cpuprofile/-memprofile (docs/performance.md).
//
//	go test -run '^$' -bench SingleRead -benchtime 2000x ./web/api
func BenchmarkSingleRead(b *testing.B) {
	ctx := context.Background()
	counter := &roundTripTracer{}
	env := webtest.New(b, webtest.WithTracer(counter))
	company := env.Company("Bench", "enterprise")
	loc, err := time.LoadLocation("Europe/Prague")
	if err != nil {
		b.Fatal(err)
	}
	current := rating.CurrentPeriod(loc, time.Now())
	f := &ratingtest.Fixtures{T: b, DB: env.DB, Company: company}
	f.SeedYear(300, current.First().AddMonths(-11))
	if _, err := rating.NewService(env.DB).RateCompany(ctx, company, current.Prev()); err != nil {
		b.Fatal(err) // the monthly job's snapshots, which a past month's read returns
	}
	ids := f.ActiveDrivers()
	finance := env.Company("Finance", "enterprise")
	financeIDs := seedFinance(b, env, finance, 300, 100)
	if _, err := env.DB.Exec(ctx, `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	hr := env.As(company, auth.RoleHRManager)
	hrFinance := env.As(finance, auth.RoleHRManager)
	past := current.Prev().First().String()[:7]
	hr.GetOK(b, "/api/v0/drivers/"+ids[0].String()+"/rating?period="+past) // provisions the user
	hrFinance.GetOK(b, "/api/v0/drivers/"+financeIDs[0].String()+"/finance")
	for _, bc := range []struct {
		name   string
		caller *webtest.Caller
		path   func(i int) string
	}{
		{"driver", hr, func(i int) string { return "/api/v0/drivers/" + ids[(i*7)%len(ids)].String() }},
		{"documents", hr, func(i int) string { return "/api/v0/drivers/" + ids[(i*7)%len(ids)].String() + "/documents" }},
		{"finance", hrFinance, func(i int) string {
			return "/api/v0/drivers/" + financeIDs[(i*7)%len(financeIDs)].String() + "/finance?per_page=20"
		}},
		{"rating_past", hr, func(i int) string {
			return "/api/v0/drivers/" + ids[(i*7)%len(ids)].String() + "/rating?period=" + past
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			counter.take()
			n := 0
			for i := 0; b.Loop(); i++ {
				bc.caller.GetOK(b, bc.path(i))
				n++
			}
			b.ReportMetric(float64(counter.take())/float64(n), "trips/op")
		})
	}
}
