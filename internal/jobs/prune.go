package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// The outboxes' retention (docs/webhooks.md, "Retention"; docs/alerts.md,
// "E-mail: the outbox"): webhook deliveries and events, and e-mails, are
// written for every change and alert and would otherwise be kept forever.
// A daily job, also at start, removes what is past its retention, in every
// company; what still waits to be sent is kept.

// PruneOutboxInterval is how often the prune runs.
const PruneOutboxInterval = 24 * time.Hour

// PruneOutboxArgs is the periodic prune.
type PruneOutboxArgs struct{}

// Kind names the job in the queue.
func (PruneOutboxArgs) Kind() string { return "prune_outbox" }

// PruneOutboxWorker prunes, on the system pool.
type PruneOutboxWorker struct {
	river.WorkerDefaults[PruneOutboxArgs]
	DB  *pgxpool.Pool
	Log *slog.Logger
	// Now is the clock of the retention (tests); nil is time.Now.
	Now func() time.Time
}

// Work prunes the webhook outbox, the e-mail outbox, then the live
// events older than live.Window (docs/live-updates.md).
func (w *PruneOutboxWorker) Work(ctx context.Context, _ *river.Job[PruneOutboxArgs]) error {
	now := time.Now()
	if w.Now != nil {
		now = w.Now()
	}
	hooks, err := webhooks.Prune(ctx, w.DB, now)
	if err != nil {
		return err
	}
	mails, err := alerts.PruneOutbox(ctx, w.DB, now)
	if err != nil {
		return err
	}
	events, err := live.Prune(ctx, w.DB, now)
	if err != nil {
		return err
	}
	if hooks.Deliveries+hooks.Events+mails+events > 0 {
		w.Log.InfoContext(ctx, "outbox pruned", slog.Int64("webhook_deliveries", hooks.Deliveries),
			slog.Int64("webhook_events", hooks.Events), slog.Int64("emails", mails), slog.Int64("live_events", events))
	}
	return nil
}
