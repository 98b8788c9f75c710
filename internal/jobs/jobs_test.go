package jobs_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
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

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

var jan = rating.MonthOf(2026, time.January)

func count(t *testing.T, db *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func work(ctx context.Context, w *jobs.RateCompanyMonthWorker, company uuid.UUID, p rating.Period) error {
	return w.Work(ctx, &river.Job[jobs.RateCompanyMonthArgs]{
		JobRow: &rivertype.JobRow{ID: 1, Attempt: 1},
		Args:   jobs.RateCompanyMonthArgs{CompanyID: company, Period: p.String()},
	})
}

func seed(f *ratingtest.Fixtures, drivers int) {
	for i := 0; i < drivers; i++ {
		d := f.Driver()
		if i%2 == 0 {
			f.Penalty(d, "2026-01-10", "100.00", "pending", false)
		}
	}
}

// TestJobTwiceIsOneSnapshotPerDriver: the job is idempotent.
func TestJobTwiceIsOneSnapshotPerDriver(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	seed(f, 5)
	w := &jobs.RateCompanyMonthWorker{Rating: rating.NewService(db), Log: quiet}
	for i := 0; i < 2; i++ {
		if err := work(context.Background(), w, f.Company, jan); err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2`, f.Company, jan.First()); n != 5 {
		t.Errorf("%d snapshots, want 5", n)
	}
	if n := count(t, db, `SELECT count(*) FROM (SELECT driver_id FROM rating_snapshots GROUP BY driver_id, rating_period HAVING count(*) > 1) x`); n != 0 {
		t.Errorf("%d drivers with duplicate snapshots", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_components`); n != 30 {
		t.Errorf("%d components, want 30", n)
	}
}

// cancelTracer cancels the run's context when it is about to issue the
// statement after the snapshots' (the component rows' insert, which every
// run issues, a month's first included): the snapshots are written inside
// the transaction but not committed.
type cancelTracer struct {
	cancel atomic.Pointer[context.CancelFunc]
	fired  atomic.Bool
}

func (c *cancelTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	if strings.Contains(data.SQL, "INSERT INTO rating_components") {
		if cancel := c.cancel.Swap(nil); cancel != nil {
			c.fired.Store(true)
			(*cancel)()
		}
	}
	return ctx
}

func (c *cancelTracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestJobCancelledPartWayLeavesNoPartialMonth: a run whose context is
// cancelled after its snapshots were written (as when the server stops in
// the middle) leaves no snapshot of the month visible; the retry completes it.
func TestJobCancelledPartWayLeavesNoPartialMonth(t *testing.T) {
	tracer := &cancelTracer{}
	db, _ := pgtest.NewWithURL(t, tracer)
	f := ratingtest.New(t, db)
	seed(f, 4)
	w := &jobs.RateCompanyMonthWorker{Rating: rating.NewService(db), Log: quiet}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tracer.cancel.Store(&cancel)
	err := work(ctx, w, f.Company, jan)
	if !tracer.fired.Load() {
		t.Fatal("the run never reached the component statement")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err %v, want context.Canceled", err)
	}
	for _, table := range []string{"rating_snapshots", "rating_components", "rating_runs"} {
		if n := count(t, db, `SELECT count(*) FROM `+table); n != 0 {
			t.Errorf("%d rows in %s after the cancelled run", n, table)
		}
	}

	if err := work(context.Background(), w, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE rank_percentile IS NOT NULL`); n != 4 {
		t.Errorf("%d complete snapshots after the retry, want 4", n)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_runs`); n != 1 {
		t.Errorf("%d rating runs, want 1", n)
	}
}

// TestMonthlyJobThroughRiver runs the real queue: the periodic scheduler
// (run on start) enqueues the month just ended for a due company, a worker
// rates it, and enqueuing the same company and month again is skipped as a
// duplicate.
func TestMonthlyJobThroughRiver(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	f.Exec(`UPDATE companies SET created_at = now() - interval '1 year' WHERE id = $1`, f.Company)
	seed(f, 3)
	notDue := ratingtest.New(t, db) // created this month
	notDue.Driver()

	svc := rating.NewService(db)
	client, err := jobs.NewClient(db, svc, quiet, jobs.Options{Periodic: true, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	events, unsubscribe := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer unsubscribe()
	ctx := context.Background()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	})

	loc, _ := time.LoadLocation("Europe/Prague")
	last := rating.CurrentPeriod(loc, time.Now()).Prev()
	deadline := time.After(30 * time.Second)
	for rated := false; !rated; {
		select {
		case ev := <-events:
			if ev.Kind == river.EventKindJobFailed {
				t.Fatalf("job %s failed: %v", ev.Job.Kind, ev.Job.Errors)
			}
			rated = ev.Job.Kind == jobs.RateCompanyMonthArgs{}.Kind()
		case <-deadline:
			t.Fatal("no rate_company_month job completed")
		}
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2`, f.Company, last.First()); n != 3 {
		t.Errorf("%d snapshots of %s, want 3", n, last)
	}
	if n := count(t, db, `SELECT count(*) FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2`, notDue.Company, last.First()); n != 0 {
		t.Errorf("the company created this month was rated for last month (%d snapshots)", n)
	}
	res, err := client.Insert(ctx, jobs.RateCompanyMonthArgs{CompanyID: f.Company, Period: last.String()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.UniqueSkippedAsDuplicate {
		t.Error("a second job for the same company and month was queued")
	}
}
