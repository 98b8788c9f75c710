package api_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkExport times the drivers export (CSV and XLSX) and the
// compliance report of a company of 20,000 drivers through the real server,
// and reports the server's heap growth during a download (the peak of
// HeapInuse, sampled every 2 ms, over the heap before it): the rows stream,
// so it stays flat whatever the company's size (docs/import-export.md).
//
//	go test -run '^$' -bench Export -benchtime 3x ./web/api
func BenchmarkExport(b *testing.B) {
	const size = 20000
	env := webtest.New(b)
	company := env.Company("Export bench", "enterprise")
	start := time.Now()
	seedExportDrivers(b, env, company, size)
	b.Logf("seeded %d drivers with their documents in %s", size, time.Since(start).Round(time.Second))
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/drivers?per_page=1").Expect(http.StatusOK) // provisions the user

	download := func(b *testing.B, path string) (n int64, growth float64) {
		growth = heapGrowth(func() { n = hr.GetOK(b, path) })
		return n, growth
	}
	for _, bc := range []struct{ name, path string }{
		{"drivers_csv", "/api/v0/drivers/export?format=csv"},
		{"drivers_xlsx", "/api/v0/drivers/export?format=xlsx"},
		{"compliance_xlsx", "/api/v0/reports/compliance?format=xlsx"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var bytes int64
			worst := 0.0
			for b.Loop() {
				n, growth := download(b, bc.path)
				bytes, worst = n, max(worst, growth)
			}
			b.ReportMetric(float64(bytes)/(1<<20), "MiB-file")
			b.ReportMetric(worst, "MiB-heap-growth")
		})
	}
}

// heapGrowth runs work and answers the growth of the process's heap while
// it ran, in MiB: the peak of HeapInuse, sampled every 2 ms, over the heap
// before it (after a collection).
func heapGrowth(work func()) float64 {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak uint64
	var mu sync.Mutex
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		var m runtime.MemStats
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				runtime.ReadMemStats(&m)
				mu.Lock()
				peak = max(peak, m.HeapInuse)
				mu.Unlock()
			}
		}
	}()
	work()
	close(done)
	<-stopped
	mu.Lock()
	defer mu.Unlock()
	if peak <= before.HeapInuse {
		return 0
	}
	return float64(peak-before.HeapInuse) / (1 << 20)
}

// seedExportDrivers inserts size drivers with every field a list shows and
// their 14 documents, about 60 % with a file and a validity from 60 days
// past to 340 ahead, with set-based SQL.
func seedExportDrivers(b *testing.B, env *webtest.Env, company uuid.UUID, size int) {
	b.Helper()
	ctx := context.Background()
	steps := []string{
		`INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, phone, status,
			hire_date, citizenship, iban, residence_address)
		SELECT $1, 'DRV-' || CASE WHEN i < 10000 THEN lpad(i::text, 4, '0') ELSE i::text END, i,
			(ARRAY['Jan', 'Petr', 'Jiří', 'Pavel', 'Tomáš', 'Martin', 'Lukáš', 'Eva', 'Jana', 'Marie'])[1 + i % 10],
			(ARRAY['Novák', 'Svoboda', 'Novotný', 'Dvořák', 'Černý', 'Procházka', 'Kučera', 'Veselý', 'Horák', 'Němec'])[1 + (i * 7) % 10],
			'driver' || i || '@bench.example', '+420 777 ' || lpad(i::text, 6, '0'),
			(ARRAY['active', 'active', 'active', 'on_leave', 'inactive', 'terminated'])[1 + i % 6],
			date '2015-01-01' + (i * 37) % 3650, (ARRAY['CZ', 'SK', 'PL', 'UA', 'RO'])[1 + i % 5],
			'CZ6508000000192000145399', 'Dlouhá ' || i || ', Praha'
		FROM generate_series(1, $2::int) AS i`,
		`UPDATE companies SET driver_number_seq = $2::int WHERE id = $1`,
		`INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT d.company_id, d.id, t FROM drivers d, unnest($2::text[]) AS t WHERE d.company_id = $1`,
		`INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
			storage_path, storage_disk, hash_sha256)
		SELECT dd.company_id, dd.id, 'v1_' || dd.id || '.pdf', 'scan.pdf', 'application/pdf', 1000, 1, 'x/' || dd.id, 'local', repeat('a', 64)
		FROM driver_documents dd WHERE dd.company_id = $1 AND abs(hashtext(dd.id::text)) % 10 < 6`,
		`UPDATE driver_documents dd SET current_file_id = f.id,
			valid_until = current_date + (abs(hashtext(dd.id::text)) % 400 - 60)
		FROM document_files f WHERE f.document_id = dd.id AND dd.company_id = $1`,
		`VACUUM ANALYZE`,
	}
	for _, sql := range steps {
		var args []any
		if strings.Contains(sql, "$1") {
			args = append(args, company)
		}
		if strings.Contains(sql, "unnest($2") {
			args = append(args, documents.Types)
		} else if strings.Contains(sql, "$2") {
			args = append(args, size)
		}
		if _, err := env.DB.Exec(ctx, sql, args...); err != nil {
			b.Fatalf("seed: %v", err)
		}
	}
}
