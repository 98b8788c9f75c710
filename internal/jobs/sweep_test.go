package jobs_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
)

// TestSweepUploadsThroughRiver: the hourly job, run by River, deletes the
// object of a pending record two hours old whose row never committed, and
// the record (the sweep itself: documents.TestSweepOrphans).
func TestSweepUploadsThroughRiver(t *testing.T) {
	db := pgtest.New(t)
	files := storagetest.NewLocal(t)
	ctx := context.Background()
	company := fixtures.Company(t, db)
	id := uuid.New()
	folder := company.String() + "/" + uuid.NewString() + "/passport"
	path := folder + "/v1_" + id.String() + ".pdf"
	if err := files.Put(ctx, path, strings.NewReader("x"), 1, "application/pdf"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO pending_objects (id, company_id, row_table, folder, storage_disk, created_at)
		VALUES ($1, $2, 'document_files', $3, 'local', now() - interval '2 hours')`, id, company, folder); err != nil {
		t.Fatal(err)
	}

	client, err := jobs.NewClient(db, rating.NewService(db), quiet, jobs.Options{Files: files, PollInterval: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	events, unsubscribe := client.Subscribe(river.EventKindJobCompleted, river.EventKindJobFailed)
	defer unsubscribe()
	if err := client.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(stopCtx)
	})
	if _, err := client.Insert(ctx, jobs.SweepUploadsArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if ev.Kind != river.EventKindJobCompleted || ev.Job.Kind != (jobs.SweepUploadsArgs{}).Kind() {
			t.Fatalf("job %s: %s %v", ev.Job.Kind, ev.Kind, ev.Job.Errors)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the sweep job did not complete")
	}
	if ok, err := files.Exists(ctx, path); err != nil || ok {
		t.Errorf("orphaned object still stored (%v)", err)
	}
	if n := count(t, db, `SELECT count(*) FROM pending_objects`); n != 0 {
		t.Errorf("%d pending records left", n)
	}
}
