package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// startClient starts a River client with every worker and no periodic job
// on db, and returns it with a channel of its completed and failed jobs.
func startClient(t *testing.T, db *pgxpool.Pool) (*river.Client[pgx.Tx], <-chan *river.Event) {
	t.Helper()
	client, err := jobs.NewClient(db, rating.NewService(db), quiet, jobs.Options{PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	events, unsubscribe := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	t.Cleanup(unsubscribe)
	if err := client.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	})
	return client, events
}

// awaitJob waits for a job of the kind to complete (failing on any failed
// job), bounded by a context timeout.
func awaitJob(t *testing.T, events <-chan *river.Event, kind string) *rivertype.JobRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		select {
		case ev := <-events:
			if ev.Kind == river.EventKindJobFailed {
				t.Fatalf("job %s failed: %v", ev.Job.Kind, ev.Job.Errors)
			}
			if ev.Job.Kind == kind {
				return ev.Job
			}
		case <-ctx.Done():
			t.Fatalf("no %s job completed", kind)
		}
	}
}

// TestBurstOfChangesIsOneRefresh: 500 changes to a company's rating inputs
// (penalties, orders, driver profiles, document validity, each its own
// transaction) leave one refresh mark, due 30 s after the first; once due,
// the claim enqueues one refresh job, which stores the current month's
// snapshots of every active driver (without marking the month rated); a
// second claim finds nothing to do. Another company is not marked.
func TestBurstOfChangesIsOneRefresh(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	quietCompany := ratingtest.New(t, db)
	quietCompany.Driver()
	drivers := []uuid.UUID{f.Driver(), f.Driver(), f.Driver()}
	f.Exec(`DELETE FROM rating_refresh_due`) // the fixtures' own inserts marked both companies
	loc, _ := time.LoadLocation("Europe/Prague")
	month := rating.CurrentPeriod(loc, time.Now())
	day := month.First().String()

	for i := 0; i < 500; i++ {
		d := drivers[i%len(drivers)]
		switch i % 4 {
		case 0:
			f.Exec(`INSERT INTO orders (company_id, driver_id, order_date, status) VALUES ($1, $2, $3::date, 'completed')`, f.Company, d, day)
		case 1:
			f.Exec(`UPDATE drivers SET phone = '+420 600 ' || $2::int WHERE id = $1`, d, i)
		case 2:
			f.Exec(`UPDATE driver_documents SET valid_until = $2::date + $3::int WHERE driver_id = $1 AND type = 'passport'`, d, day, i)
		case 3:
			f.Penalty(d, day, "10.00", "pending", false)
		}
	}
	ratingtest.New(t, db) // unrelated noise: a new company marks nothing for f
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1`, f.Company); n != 1 {
		t.Fatalf("%d refresh marks for the company after 500 changes, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1 AND due_at > now() AND due_at <= now() + interval '30 seconds'`, f.Company); n != 1 {
		t.Error("the mark is not due within the next 30 s")
	}
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1`, quietCompany.Company); n != 0 {
		t.Error("a company without changes was marked")
	}

	client, events := startClient(t, db)
	ctx := context.Background()
	// Not due yet: the claim enqueues nothing.
	if _, err := client.Insert(ctx, jobs.ClaimRatingRefreshesArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	awaitJob(t, events, jobs.ClaimRatingRefreshesArgs{}.Kind())
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = $1`, jobs.RefreshCurrentRatingsArgs{}.Kind()); n != 0 {
		t.Fatalf("%d refresh jobs before the mark is due", n)
	}
	// The debounce delay passes.
	f.Exec(`UPDATE rating_refresh_due SET due_at = now() WHERE company_id = $1`, f.Company)
	if _, err := client.Insert(ctx, jobs.ClaimRatingRefreshesArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	job := awaitJob(t, events, jobs.RefreshCurrentRatingsArgs{}.Kind())
	if _, err := client.Insert(ctx, jobs.ClaimRatingRefreshesArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	awaitJob(t, events, jobs.ClaimRatingRefreshesArgs{}.Kind())

	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = $1`, jobs.RefreshCurrentRatingsArgs{}.Kind()); n != 1 {
		t.Errorf("%d refresh jobs for 500 changes, want 1", n)
	}
	if n := count(t, db, `SELECT count(*) FROM river_job WHERE kind = $1 AND args->>'company_id' = $2`, job.Kind, f.Company.String()); n != 1 {
		t.Errorf("the refresh job is not the company's (args %s)", job.EncodedArgs)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2 AND rank_percentile IS NOT NULL`, f.Company, month.First()); n != 3 {
		t.Errorf("%d current-month snapshots after the refresh, want 3", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots s JOIN rating_components c ON c.snapshot_id = s.id
		WHERE s.company_id = $1 AND c.metric_name = 'activity' AND c.raw_value > 0`, f.Company); n != 3 {
		t.Errorf("%d snapshots count the orders of the burst, want 3", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_runs WHERE company_id = $1`, f.Company); n != 0 {
		t.Error("the refresh marked the current month as rated")
	}
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1`, f.Company); n != 0 {
		t.Error("the refresh's own writes marked the company again")
	}
}

// TestHourlyRefreshMarksEveryCompany: the hourly job makes a refresh due now
// for every company with an active driver (and brings an already pending
// mark forward), and none for a company without one.
func TestHourlyRefreshMarksEveryCompany(t *testing.T) {
	db := pgtest.New(t)
	a, b, empty := ratingtest.New(t, db), ratingtest.New(t, db), ratingtest.New(t, db)
	a.Driver()
	b.Driver()
	empty.Exec(`DELETE FROM rating_refresh_due`)
	a.Exec(`INSERT INTO rating_refresh_due (company_id, due_at) VALUES ($1, now() + interval '1 hour')`, a.Company)
	w := &jobs.RefreshAllRatingsWorker{Rating: rating.NewService(db)}
	if err := w.Work(context.Background(), &river.Job[jobs.RefreshAllRatingsArgs]{JobRow: &rivertype.JobRow{ID: 1}}); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = ANY($1) AND due_at <= now()`, []any{a.Company, b.Company}); n != 2 {
		t.Errorf("%d of 2 companies due now", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_refresh_due WHERE company_id = $1`, empty.Company); n != 0 {
		t.Error("a company without drivers was marked")
	}
}
