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

// Work queues the jobs: a plain delivery job for an endpoint whose next
// delivery is due (not the wake-up: a worker killed while it ran the
// wake-up leaves that job "running", holding the wake-up's unique slot
// until River rescues it an hour later; a plain job that finds the
// endpoint busy ends at once), the wake-up for one waiting for a retry.
func (w *SweepWebhooksWorker) Work(ctx context.Context, _ *river.Job[SweepWebhooksArgs]) error {
	due, waiting, err := w.Sender.DueEndpoints(ctx)
	if err != nil || len(due)+len(waiting) == 0 {
		return err
	}
	params := make([]river.InsertManyParams, 0, len(due)+len(waiting))
	for _, id := range due {
		params = append(params, river.InsertManyParams{Args: webhooks.DeliverArgs{EndpointID: id}})
	}
	for _, id := range waiting {
		params = append(params, river.InsertManyParams{Args: webhooks.DeliverArgs{EndpointID: id, Wake: true}})
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}
