package alerts_test

import (
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/seed"
)

// BenchmarkScan is the daily scan of a company of 2,000 drivers (28,000
// documents) whose stages were never recorded: every document in a stage,
// and every e-mail and notification of the first run. Between iterations
// the recorded alerts are removed, so each run does the full work.
func BenchmarkScan(b *testing.B) {
	db := pgtest.New(b)
	today := time.Date(2026, 6, 15, 0, 0, 0, 0, time.UTC)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 1, DriversPerCompany: 2000, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1, Today: today})
	if err != nil {
		b.Fatal(err)
	}
	company := ids[0]
	s := alerts.NewScanner(db, "https://konvoj.example")
	reset := func() {
		for _, sql := range []string{`DELETE FROM notifications`, `DELETE FROM outbox`, `DELETE FROM document_alerts`, `DELETE FROM alert_runs`} {
			if _, err := db.Exec(ctx, sql); err != nil {
				b.Fatal(err)
			}
		}
	}
	var alertsN, emails int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		reset()
		b.StartTimer()
		res, err := s.Scan(ctx, company, civil.DateOf(today), nil)
		if err != nil {
			b.Fatal(err)
		}
		alertsN, emails = len(res.Alerts), len(res.Emails)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(alertsN), "alerts")
	b.ReportMetric(float64(emails), "emails")
}
