package finance

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// seedPayslips gives the company n drivers (DRV-0001...), each with a
// monthly period of November 2026 in CZK holding perDriver transactions,
// its totals set, with set-based SQL.
func seedPayslips(tb testing.TB, db *pgxpool.Pool, company uuid.UUID, n, perDriver int) {
	tb.Helper()
	ctx := context.Background()
	for _, st := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email)
		 SELECT $1, 'DRV-' || lpad(g::text, 4, '0'), g, 'Jiří', 'Dvořák ' || g, 'payslip' || g || '@example.test'
		 FROM generate_series(1, $2::int) g`, []any{company, n}},
		{`UPDATE companies SET driver_number_seq = $2 WHERE id = $1`, []any{company, n}},
		{`INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
		 SELECT company_id, id, 'monthly', DATE '2026-11-01', DATE '2026-11-30', 'CZK' FROM drivers WHERE company_id = $1`, []any{company}},
		{`INSERT INTO finance_transactions (company_id, driver_id, period_id, transaction_type, amount, currency, transaction_date, description)
		 SELECT p.company_id, p.driver_id, p.id, CASE WHEN i % 4 = 0 THEN 'deduction' ELSE 'bonus' END,
			CASE WHEN i % 4 = 0 THEN -(i * 10 + 0.5) ELSE i * 100 + 0.25 END, 'CZK', DATE '2026-11-01' + i % 30, 'Jízda č. ' || i
		 FROM finance_periods p, generate_series(1, $2::int) i WHERE p.company_id = $1`, []any{company, perDriver}},
		{`UPDATE finance_periods p SET total_earnings = s.e, total_deductions = s.d, net_amount = s.e - s.d, transactions_count = s.n
		 FROM (SELECT period_id, COALESCE(sum(amount) FILTER (WHERE amount > 0), 0) e,
			COALESCE(-sum(amount) FILTER (WHERE amount < 0), 0) d, count(*) n
			FROM finance_transactions WHERE company_id = $1 GROUP BY period_id) s
		 WHERE p.company_id = $1 AND s.period_id = p.id`, []any{company}},
	} {
		if _, err := db.Exec(ctx, st.sql, st.args...); err != nil {
			tb.Fatalf("seed payslips: %v\n%s", err, st.sql)
		}
	}
}

// TestWritePayslipsBatches: the month's ZIP reads the periods batch after
// batch and holds each driver's payslip once, in the order of the drivers'
// numbers, whatever the batch size (a batch ending between a driver's two
// currencies included).
func TestWritePayslipsBatches(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	company := fixtures.Company(t, db)
	seedPayslips(t, db, company, 7, 2)
	// DRV-0003 is paid in EUR too.
	if _, err := db.Exec(ctx, `INSERT INTO finance_periods (company_id, driver_id, period_type, period_start, period_end, currency)
		SELECT company_id, id, 'monthly', DATE '2026-11-01', DATE '2026-11-30', 'EUR' FROM drivers WHERE internal_seq = 3 AND company_id = $1`, company); err != nil {
		t.Fatal(err)
	}
	want := []string{"DRV-0001-Jiri-Dvorak-1-2026-11.pdf", "DRV-0002-Jiri-Dvorak-2-2026-11.pdf", "DRV-0003-Jiri-Dvorak-3-2026-11.pdf",
		"DRV-0003-Jiri-Dvorak-3-2026-11-EUR.pdf", "DRV-0004-Jiri-Dvorak-4-2026-11.pdf", "DRV-0005-Jiri-Dvorak-5-2026-11.pdf",
		"DRV-0006-Jiri-Dvorak-6-2026-11.pdf", "DRV-0007-Jiri-Dvorak-7-2026-11.pdf"}
	svc := NewService(db, nil, 0, nil, nil)
	p := auth.Principal{CompanyID: company, Role: auth.RoleAccountant, CompanyCurrency: "CZK"}
	defer func(n int) { payslipBatch = n }(payslipBatch)
	for _, batch := range []int{1, 3, 4, 8, 200} {
		payslipBatch = batch
		var buf bytes.Buffer
		err := svc.WritePayslips(ctx, p, "2026-11-01", func(civil.Date) (io.Writer, error) { return &buf, nil })
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range zr.File {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("batches of %d: entries\n%q, want\n%q", batch, got, want)
		}
	}
	// A download that breaks off (the client went away) stops the ZIP with
	// the writer's error.
	payslipBatch = 2
	broken := errors.New("connection reset")
	err := svc.WritePayslips(ctx, p, "2026-11-01", func(civil.Date) (io.Writer, error) { return failingWriter{broken}, nil })
	if !errors.Is(err, broken) {
		t.Fatalf("a broken download: %v, want %v", err, broken)
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

// BenchmarkPayslipsZIP writes the payslips ZIP of a month to io.Discard
// for a company of 200 and of 2,000 drivers (10 transactions each), on the
// request pool, and reports the time and allocations per driver and the
// peaks of the heap while it runs, sampled at every write of the ZIP: the
// live heap (as the last garbage collection found it) and the heap with
// its garbage. Neither grows with the number of drivers (docs/performance.md,
// "Payslips"). Run: go test -run '^$' -bench PayslipsZIP -benchtime 1x ./internal/finance/
func BenchmarkPayslipsZIP(b *testing.B) {
	for _, n := range []int{200, 2000} {
		b.Run(fmt.Sprintf("drivers=%d", n), func(b *testing.B) {
			db, url := pgtest.NewWithURL(b, nil)
			company := fixtures.Company(b, db)
			seedPayslips(b, db, company, n, 10)
			svc := NewService(pgtest.Requests(b, url, nil), nil, 0, nil, nil)
			p := auth.Principal{CompanyID: company, Role: auth.RoleAccountant, CompanyCurrency: "CZK", CompanyTimezone: "Europe/Prague"}
			ctx := postgres.WithCompany(context.Background(), company)
			var live, total uint64
			var written int64
			b.ReportAllocs()
			runtime.GC()
			start := time.Now()
			for b.Loop() {
				w := &heapWatch{sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}}
				if err := svc.WritePayslips(ctx, p, "2026-11-01", func(civil.Date) (io.Writer, error) { return w, nil }); err != nil {
					b.Fatal(err)
				}
				live, total, written = max(live, w.peak[0]), max(total, w.peak[1]), w.n
			}
			perDriver := time.Since(start) / time.Duration(b.N*n)
			b.ReportMetric(float64(perDriver.Microseconds())/1000, "ms/driver")
			b.ReportMetric(float64(live)/(1<<20), "peak-live-heap-MiB")
			b.ReportMetric(float64(total)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(written)/float64(n)/1024, "zip-KiB/driver")
		})
	}
}

// heapWatch is io.Discard that reads the samples (heap sizes) at every
// write and keeps the highest value of each.
type heapWatch struct {
	sample []metrics.Sample
	peak   [2]uint64
	n      int64
}

func (w *heapWatch) Write(b []byte) (int, error) {
	metrics.Read(w.sample)
	for i, s := range w.sample {
		w.peak[i] = max(w.peak[i], s.Value.Uint64())
	}
	w.n += int64(len(b))
	return len(b), nil
}
