package imports

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// An import a crash cut off (a killed process, a lost machine) rolls back
// its transaction, so it changed nothing, but its row would stay queued or
// running for ever: nothing else would finish it, and its job is not
// retried. While an import runs, its server writes its heartbeat every
// HeartbeatInterval; FailInterrupted, at every server's start and every
// minute (a River job, once across instances), marks failed an import
// running without a heartbeat for StaleAfter, and one queued for StaleAfter
// without a job that will run it. A cut-off import thus ends failed within
// two minutes (docs/import-export.md).

// HeartbeatInterval is how often a running import's heartbeat is written.
const HeartbeatInterval = 10 * time.Second

// StaleAfter is how old a running import's heartbeat (a queued import)
// must be to be taken as cut off: six missed heartbeats.
const StaleAfter = time.Minute

// JobKind names the job of a large import in the queue.
const JobKind = "driver_import"

// FailInterrupted marks failed, with the message msg.imports.interrupted,
// the imports of every company that a crash cut off, and returns how many.
// It runs on the system pool.
func FailInterrupted(ctx context.Context, db *pgxpool.Pool) (int64, error) {
	// A live job starts its import at once, so a queued import whose job
	// is running (as River keeps a crashed job until it gives it up) was cut
	// off before it started; a job snoozed while its company was busy is
	// scheduled.
	tag, err := db.Exec(ctx, `UPDATE imports i SET status = 'failed', failure = 'msg.imports.interrupted', finished_at = now()
		WHERE i.status IN ('queued', 'running')
		  AND coalesce(i.heartbeat_at, i.created_at) < now() - make_interval(secs => $1)
		  AND (i.status = 'running' OR NOT EXISTS (
		      SELECT FROM river_job j WHERE j.kind = $2 AND j.args->>'import_id' = i.id::text
		        AND j.state IN ('available', 'pending', 'retryable', 'scheduled')))`, StaleAfter.Seconds(), JobKind)
	if err != nil {
		return 0, fmt.Errorf("fail interrupted imports: %w", err)
	}
	return tag.RowsAffected(), nil
}

// beat writes the running import's heartbeat every HeartbeatInterval until
// stop is called.
func (s *Service) beat(ctx context.Context, company, id uuid.UUID) (stop func()) {
	ctx = context.WithoutCancel(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if _, err := s.db.Exec(ctx, `UPDATE imports SET heartbeat_at = now() WHERE company_id = $1 AND id = $2 AND status = 'running'`,
					company, id); err != nil {
					s.Log.Warn("import heartbeat", slog.String("import_id", id.String()), slog.Any("error", err))
				}
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
