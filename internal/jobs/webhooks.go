package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/webhooks"
)

// Webhook deliveries (docs/webhooks.md): Emit writes the deliveries and
// queues a deliver_webhooks job per endpoint in the change's transaction;
// the job sends the endpoint's due deliveries in event order, and the
// endpoint's wake-up job waits for the next retry. A periodic sweep, also
// at start, queues the job of every endpoint with pending deliveries.

// WebhookSweepInterval is how often the sweep runs.
const WebhookSweepInterval = time.Minute

// DeliverWebhooksWorker works one endpoint's queue.
type DeliverWebhooksWorker struct {
	river.WorkerDefaults[webhooks.DeliverArgs]
	Sender *webhooks.Sender
}

// Timeout leaves room for the sender's own budget and one last attempt.
func (w *DeliverWebhooksWorker) Timeout(*river.Job[webhooks.DeliverArgs]) time.Duration {
	return 2 * time.Minute
}

// Work sends what is due. When the next delivery waits for its retry, the
// endpoint's wake-up job waits with it (a wake-up job snoozes; another job
// queues the wake-up, unique per endpoint, and ends).
func (w *DeliverWebhooksWorker) Work(ctx context.Context, job *river.Job[webhooks.DeliverArgs]) error {
	wait, more, err := w.Sender.DeliverEndpoint(ctx, job.Args.EndpointID)
	switch {
	case err != nil:
		return err
	case !more:
		return nil
	case wait == 0 || job.Args.Wake:
		return river.JobSnooze(wait)
	}
	wake := webhooks.DeliverArgs{EndpointID: job.Args.EndpointID, Wake: true}
	opts := wake.InsertOpts()
	opts.ScheduledAt = time.Now().Add(wait)
	if _, err := river.ClientFromContext[pgx.Tx](ctx).Insert(ctx, wake, &opts); err != nil {
		return fmt.Errorf("queue the webhook wake-up of %s: %w", job.Args.EndpointID, err)
	}
	return nil
}

// SweepWebhooksArgs is the periodic sweep.
type SweepWebhooksArgs struct{}

// Kind names the job in the queue.
func (SweepWebhooksArgs) Kind() string { return "sweep_webhooks" }

// SweepWebhooksWorker queues the jobs of endpoints with pending deliveries.
type SweepWebhooksWorker struct {
	river.WorkerDefaults[SweepWebhooksArgs]
	Sender *webhooks.Sender
}

// Work queues the jobs.
func (w *SweepWebhooksWorker) Work(ctx context.Context, _ *river.Job[SweepWebhooksArgs]) error {
	ids, err := w.Sender.DueEndpoints(ctx)
	if err != nil || len(ids) == 0 {
		return err
	}
	params := make([]river.InsertManyParams, len(ids))
	for i, id := range ids {
		params[i] = river.InsertManyParams{Args: webhooks.DeliverArgs{EndpointID: id, Wake: true}}
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}
