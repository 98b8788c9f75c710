package jobs

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/idempotency"
)

// PurgeIdempotencyInterval is how often expired idempotency keys are
// deleted (docs/idempotency.md): a key lives 24 hours, at most this much
// longer.
const PurgeIdempotencyInterval = time.Hour

// PurgeIdempotencyKeysArgs is the hourly job that deletes expired
// idempotency keys of every company.
type PurgeIdempotencyKeysArgs struct{}

// Kind names the job in the queue.
func (PurgeIdempotencyKeysArgs) Kind() string { return "purge_idempotency_keys" }

// PurgeIdempotencyKeysWorker deletes the expired keys, on the owner's pool.
type PurgeIdempotencyKeysWorker struct {
	river.WorkerDefaults[PurgeIdempotencyKeysArgs]
	DB *pgxpool.Pool
}

// Work purges.
func (w *PurgeIdempotencyKeysWorker) Work(ctx context.Context, _ *river.Job[PurgeIdempotencyKeysArgs]) error {
	_, err := idempotency.Purge(ctx, w.DB)
	return err
}
