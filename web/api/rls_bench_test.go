package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkRowSecurity measures what row-level security costs the list and
// read endpoints (docs/security.md, "Row-level security"): two servers on
// one database, the product's own (requests as the request role, under the
// policies) and one whose requests run as the owner (the policies do not
// apply), the same code otherwise. Each iteration sends the same request to
// both, in alternating order, so that whatever else loads the machine loads
// both sides alike. It reports each side's time per request (rls-ms/op,
// owner-ms/op) and their ratio (rls/owner); 1.10 is the 10 % the policies
// may cost. Data: the drivers list's data set (10 companies × 2,000 drivers
// × 14 documents) and a company of 2,000 drivers × 100 finance
// transactions.
//
//	go test -run '^$' -bench RowSecurity -benchtime 200x ./web/api
func BenchmarkRowSecurity(b *testing.B) {
	env := webtest.New(b)
	companies := drvSeedLarge(b, env)
	finance := env.Company("Finance", "enterprise")
	ids := seedFinance(b, env, finance, 2000, 100)
	if _, err := env.DB.Exec(context.Background(), `VACUUM ANALYZE`); err != nil {
		b.Fatal(err)
	}
	owner := webtest.New(b, webtest.WithDB(env.DB, env.DBURL), webtest.WithRequestsAsOwner())
	hr := env.As(companies[0], auth.RoleHRManager)
	hrFinance := env.As(finance, auth.RoleHRManager)
	var driver uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM drivers WHERE company_id = $1 ORDER BY internal_seq OFFSET 1000 LIMIT 1`,
		companies[0]).Scan(&driver); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		caller *webtest.Caller
		path   func(i int) string
	}{
		{"drivers", hr, func(int) string { return "/api/v0/drivers" }},
		{"drivers_search", hr, func(int) string { return "/api/v0/drivers?search=novak" }},
		{"drivers_expired", hr, func(int) string { return "/api/v0/drivers?document_status=expired" }},
		{"drivers_cursor", hr, func(int) string { return "/api/v0/drivers?limit=20&sort_by=last_name" }},
		{"driver", hr, func(int) string { return "/api/v0/drivers/" + driver.String() }},
		{"documents", hr, func(int) string { return "/api/v0/drivers/" + driver.String() + "/documents" }},
		{"finance", hrFinance, func(i int) string { return "/api/v0/drivers/" + ids[i%len(ids)].String() + "/finance" }},
		{"finance_periods", hrFinance, func(i int) string {
			return "/api/v0/drivers/" + ids[i%len(ids)].String() + "/finance/periods?year=2025"
		}},
		{"finance_aggregates", hrFinance, func(i int) string {
			return "/api/v0/drivers/" + ids[i%len(ids)].String() + "/finance/aggregates"
		}},
	} {
		// Both servers must give the same answer, or the comparison is of
		// different work (the first calls also provision the user). The
		// sizes may differ by a few bytes: a time stamped at the request
		// (the aggregates' calculated_at) drops trailing zeros of its
		// fraction.
		// The same caller (its token) on the server whose requests run as
		// the owner.
		asOwner := owner.WithToken(bc.caller.Token)
		if a, o := bc.caller.GetOK(b, bc.path(0)), asOwner.GetOK(b, bc.path(0)); a < o-9 || a > o+9 {
			b.Fatalf("%s: %d bytes under the policies, %d as the owner", bc.name, a, o)
		}
		b.Run(bc.name, func(b *testing.B) {
			var rls, own time.Duration
			n := 0
			for i := 0; b.Loop(); i++ {
				path := bc.path(i)
				timed := func(c *webtest.Caller) time.Duration {
					start := time.Now()
					c.GetOK(b, path)
					return time.Since(start)
				}
				if i%2 == 0 {
					rls += timed(bc.caller)
					own += timed(asOwner)
				} else {
					own += timed(asOwner)
					rls += timed(bc.caller)
				}
				n++
			}
			b.ReportMetric(float64(rls.Microseconds())/1000/float64(n), "rls-ms/op")
			b.ReportMetric(float64(own.Microseconds())/1000/float64(n), "owner-ms/op")
			b.ReportMetric(float64(rls)/float64(own), "rls/owner")
		})
	}
}
