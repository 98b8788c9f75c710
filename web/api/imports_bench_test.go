package api_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkImport imports a file of 20,000 drivers (Czech headers,
// semicolons, Windows-1250, as TestImportCzechFile) through the real server
// and its job queue, as a dry run and for real (each real run into a new
// company, so that it creates every driver with its 14 documents and audit
// rows), polling GET /imports/{id} as a client does. It reports rows per
// second from the upload to the result, the process's heap growth while
// the import ran (the peak of HeapInuse over the heap before it; the
// server runs in the benchmark's process), allocations, and how many
// distinct progress values a client polling every 200 ms saw.
//
//	go test -run '^$' -bench Import -benchtime 1x -timeout 30m ./web/api
func BenchmarkImport(b *testing.B) {
	const size = 20000
	env := webtest.New(b, webtest.WithApp(func(o *app.Options) { o.Jobs = true }))
	file := czechCSV(b, czechHeader, czechRows(size))
	b.Logf("file: %d rows, %.1f MiB", size, float64(len(file))/(1<<20))
	for _, bc := range []struct {
		name   string
		dryRun string
	}{{"dry_run", "true"}, {"real", "false"}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var elapsed time.Duration
			worst := 0.0
			steps := 0
			i := 0
			for b.Loop() {
				i++
				company := env.Company(fmt.Sprintf("Import bench %s %d", bc.name, i), "enterprise")
				hr := env.As(company, auth.RoleHRManager)
				var im importResult
				start := time.Now()
				growth := heapGrowth(func() {
					var seen map[int]bool
					im, seen = pollImport(b, hr, sendImport(b, hr, "ridici.csv", file, field("dry_run", bc.dryRun)).Expect(http.StatusAccepted))
					steps = max(steps, len(seen))
				})
				elapsed += time.Since(start)
				worst = max(worst, growth)
				if im.Rows != size || im.Created != size || len(im.Errors) != 0 {
					b.Fatalf("import: %d rows, %d created, %d errors", im.Rows, im.Created, len(im.Errors))
				}
			}
			b.ReportMetric(float64(size*i)/elapsed.Seconds(), "rows/s")
			b.ReportMetric(worst, "MiB-heap-growth")
			b.ReportMetric(float64(steps), "progress-values")
		})
	}
}

// pollImport polls the import every 200 ms until it is done, and answers
// the progress values it saw.
func pollImport(b testing.TB, c *webtest.Caller, r *webtest.Response) (importResult, map[int]bool) {
	b.Helper()
	var im importResult
	r.Decode(&im)
	seen := map[int]bool{}
	deadline := time.Now().Add(15 * time.Minute)
	for im.Status == "queued" || im.Status == "running" {
		if time.Now().After(deadline) {
			b.Fatalf("import %s still %s", im.ID, im.Status)
		}
		time.Sleep(200 * time.Millisecond)
		c.Get("/api/v0/imports/" + im.ID).Expect(http.StatusOK).Decode(&im)
		seen[im.Progress] = true
	}
	if im.Status != "done" {
		b.Fatalf("import %s: %s", im.ID, im.Status)
	}
	return im, seen
}
