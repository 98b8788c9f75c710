package imports

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// jobArgs is an import's job as the queue holds it.
type jobArgs struct {
	ImportID uuid.UUID `json:"import_id"`
}

func (jobArgs) Kind() string { return JobKind }

// Which imports FailInterrupted takes as cut off: running without a
// heartbeat for a minute, queued for a minute without a job that will run
// it (none, or one River still holds as running); never a live one.
func TestFailInterrupted(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx := context.Background()
	company := fixtures.Company(t, db)
	client, err := river.NewClient(riverpgxv5.New(db), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]uuid.UUID{}
	for _, c := range []struct {
		name, status, age, heartbeat, job string
		failed                            bool
	}{
		{"running, heartbeat 5 s ago", "running", "10 minutes", "5 seconds", "running", false},
		{"running, heartbeat 2 min ago", "running", "10 minutes", "2 minutes", "running", true},
		{"running within a request, heartbeat 2 min ago", "running", "10 minutes", "2 minutes", "", true},
		{"queued 2 min ago, job available", "queued", "2 minutes", "", "available", false},
		{"queued 2 min ago, job snoozed", "queued", "2 minutes", "", "scheduled", false},
		{"queued 2 min ago, job held as running", "queued", "2 minutes", "", "running", true},
		{"queued 2 min ago, job discarded", "queued", "2 minutes", "", "discarded", true},
		{"queued 2 min ago, no job", "queued", "2 minutes", "", "", true},
		{"queued 5 s ago, no job yet", "queued", "5 seconds", "", "", false},
		{"done long ago", "done", "1 day", "1 day", "", false},
	} {
		var id uuid.UUID
		err := db.QueryRow(ctx, `INSERT INTO imports (company_id, user_role, status, dry_run, filename, created_at, heartbeat_at)
			VALUES ($1, 'hr_manager', $2, false, 'a.csv', now() - $3::interval, now() - NULLIF($4, '')::interval) RETURNING id`,
			company, c.status, c.age, c.heartbeat).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		ids[c.name] = id
		if c.job != "" {
			res, err := client.Insert(ctx, jobArgs{ImportID: id}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(ctx, `UPDATE river_job SET state = $2::river_job_state, attempt = 1, attempted_at = now(),
				scheduled_at = CASE WHEN $2::text = 'scheduled' THEN now() + interval '1 minute' ELSE scheduled_at END,
				finalized_at = CASE WHEN $2::text = 'discarded' THEN now() END WHERE id = $1`, res.Job.ID, c.job); err != nil {
				t.Fatal(err)
			}
		}
		defer func() {
			var status string
			var failure *string
			if err := db.QueryRow(ctx, `SELECT status, failure FROM imports WHERE id = $1`, id).Scan(&status, &failure); err != nil {
				t.Fatal(err)
			}
			if got := status == "failed" && failure != nil && *failure == "msg.imports.interrupted"; got != c.failed {
				t.Errorf("%s: %s %v, want failed: %v", c.name, status, failure, c.failed)
			}
		}()
	}
	n, err := FailInterrupted(ctx, db)
	if err != nil || n != 5 {
		t.Errorf("FailInterrupted: %d, %v; want 5", n, err)
	}
}
