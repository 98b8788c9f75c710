package api_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/web/webtest"
)

// vehicleListScale is the company's drivers and vehicles in
// BenchmarkVehicleList: the largest company of `make bench`'s sets.
const vehicleListScale = 20000

// BenchmarkVehicleList times GET /api/v0/vehicles beside GET
// /api/v0/drivers through the HTTP server, in one run on one company of
// the scale set at its largest (seed.Scale: 20,000 drivers with their 14
// documents, 20,000 vehicles and 18,000 trailers with theirs, trucks in
// transport units; about a minute to seed),
// each with the page size of the load benchmark's lists (20). Each case
// reports its median request (p50-ms) besides ns/op; the vehicles list's
// target is a p50 within 1.2 times the drivers list's of the same query
// (docs/performance.md, "The vehicles list").
//
//	go test -run '^$' -bench VehicleList -benchtime 200x ./web/api
//
// The seed runs only under -bench: `make test` runs no benchmarks.
func BenchmarkVehicleList(b *testing.B) {
	env := webtest.New(b)
	start := time.Now()
	ids, err := seed.Scale(context.Background(), env.DB, seed.ScaleOptions{Companies: 1, DriversPerCompany: vehicleListScale,
		TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d drivers, vehicles and trailers in %s", vehicleListScale, time.Since(start).Round(time.Second))
	dispatcher := env.As(ids[0], auth.RoleDispatcher)
	p50 := map[string]float64{}
	for _, bc := range []struct{ name, path string }{
		{"drivers/sorted", "/api/v0/drivers?sort_by=last_name&per_page=20"},
		{"vehicles/sorted", "/api/v0/vehicles?sort_by=plate_number&per_page=20"},
		{"drivers/document_status=expired", "/api/v0/drivers?document_status=expired&per_page=20"},
		{"vehicles/document_status=expired", "/api/v0/vehicles?document_status=expired&per_page=20"},
		{"drivers/cursor", "/api/v0/drivers?limit=20"},
		{"vehicles/cursor", "/api/v0/vehicles?limit=20"},
		{"trailers/sorted", "/api/v0/trailers?sort_by=plate_number&per_page=20"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dispatcher.GetOK(b, bc.path) // provisions the user, prepares the statements
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				dispatcher.GetOK(b, bc.path)
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			p50[bc.name] = float64(took[len(took)/2].Microseconds()) / 1000
			b.ReportMetric(p50[bc.name], "p50-ms")
		})
	}
	for _, q := range []string{"sorted", "document_status=expired", "cursor"} {
		if d, v := p50["drivers/"+q], p50["vehicles/"+q]; d > 0 && v > 0 {
			b.Logf("%s: vehicles p50 %.2f ms, drivers p50 %.2f ms: ×%.2f (target ≤ ×1.2)", q, v, d, v/d)
		}
	}
}
