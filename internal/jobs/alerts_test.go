package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/alerts/alertstest"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// startAlerts starts a River client with the alert jobs, its scheduler's
// clock fixed at now, and returns it with its event stream.
func startAlerts(t *testing.T, f *ratingtest.Fixtures, mailer *alerts.Mailer, now time.Time) (*river.Client[pgx.Tx], <-chan *river.Event) {
	t.Helper()
	client, err := jobs.NewClient(f.DB, rating.NewService(f.DB), quiet, jobs.Options{Periodic: true, PollInterval: 50 * time.Millisecond,
		Scanner: alerts.NewScanner(f.DB, "https://konvoj.example"), Mailer: mailer, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	events, unsubscribe := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	t.Cleanup(unsubscribe)
	if err := client.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(client) })
	return client, events
}

func stop(client *river.Client[pgx.Tx]) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = client.Stop(ctx)
}

// await waits for n events of the job kind (completed, or failed when
// failed is true), failing the test on any other failure.
func await(t *testing.T, events <-chan *river.Event, kind string, failed bool, n int) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for n > 0 {
		select {
		case ev := <-events:
			isFail := ev.Kind == river.EventKindJobFailed
			if isFail && !(failed && ev.Job.Kind == kind) {
				t.Fatalf("job %s failed: %v", ev.Job.Kind, ev.Job.Errors)
			}
			if ev.Job.Kind == kind && isFail == failed {
				n--
			}
		case <-deadline:
			t.Fatalf("still waiting for %d %s events", n, kind)
		}
	}
}

// TestAlertsThroughRiver runs the real queue: the scheduler (run on start,
// 07:30 in Prague) enqueues the company's scan, the scan's e-mails are
// delivered through an SMTP server that first refuses (retried with
// backoff) and then accepts each exactly once; a restart the same day
// sends nothing new.
func TestAlertsThroughRiver(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	d := f.Driver(fixtures.Name("Jan", "Novák"), fixtures.Email("jan@example.test"))
	f.Document(d, "passport", "2026-06-30", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	id := uuid.New()
	f.Exec(`INSERT INTO users (id, company_id, external_id, email, role) VALUES ($1, $2, $3, 'hr@example.test', 'hr_manager')`, id, f.Company, id.String())

	smtpd := alertstest.StartSMTP(t)
	smtpd.Refuse.Store(true)
	mailer, err := alerts.NewMailer(db, quiet, "smtp://"+smtpd.Addr+"?tls=none", "alerts@konvoj.example")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 6, 16, 5, 30, 0, 0, time.UTC) // 07:30 in Prague
	client, events := startAlerts(t, f, mailer, now)
	await(t, events, jobs.ScanCompanyAlertsArgs{}.Kind(), false, 1)
	// Two e-mails (HR's digest, the driver's), refused once each.
	await(t, events, jobs.DeliverEmailArgs{}.Kind(), true, 2)
	if n := len(smtpd.Messages()); n != 0 {
		t.Fatalf("%d messages while refusing", n)
	}
	smtpd.Refuse.Store(false)
	await(t, events, jobs.DeliverEmailArgs{}.Kind(), false, 2)
	if n := len(smtpd.Messages()); n != 2 {
		t.Errorf("%d messages, want 2", n)
	}

	// A restart the same day: the scheduler runs again, nothing new.
	stop(client)
	_, events = startAlerts(t, f, mailer, now.Add(2*time.Hour))
	await(t, events, jobs.EnqueueAlertScansArgs{}.Kind(), false, 1)
	if n := count(t, db, `SELECT count(*) FROM alert_runs WHERE company_id = $1`, f.Company); n != 1 {
		t.Errorf("%d alert runs, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM outbox`); n != 2 || len(smtpd.Messages()) != 2 {
		t.Errorf("after the restart: %d outbox rows, %d messages, want 2 and 2", n, len(smtpd.Messages()))
	}
}
