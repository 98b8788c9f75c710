package jobs

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/forms"
)

// PurgeFormTokensInterval is how often old form token claims are deleted
// (docs/web-app.md, "Sending a form twice"): a claim is kept
// forms.KeepClaims, at most this much longer.
const PurgeFormTokensInterval = time.Hour

// PurgeFormTokensArgs is the hourly job that deletes the old form token
// claims of every company.
type PurgeFormTokensArgs struct{}

// Kind names the job in the queue.
func (PurgeFormTokensArgs) Kind() string { return "purge_form_tokens" }

// PurgeFormTokensWorker deletes the old claims, on the owner's pool.
type PurgeFormTokensWorker struct {
	river.WorkerDefaults[PurgeFormTokensArgs]
	DB *pgxpool.Pool
}

// Work purges.
func (w *PurgeFormTokensWorker) Work(ctx context.Context, _ *river.Job[PurgeFormTokensArgs]) error {
	_, err := forms.Purge(ctx, w.DB)
	return err
}
