package webhooks

import (
	"context"
	"fmt"
	"time"

	"github.com/konvoj/konvoj/internal/postgres"
)

// Retention of the delivery log (docs/webhooks.md, "Retention"): the
// outbox would otherwise grow with every event forever.
const (
	// KeepDelivered is how long a delivered delivery stays in the log,
	// from its delivery.
	KeepDelivered = 30 * 24 * time.Hour
	// KeepFailed is how long a delivery that failed for good stays, from
	// its last attempt: longer, so an admin back from leave can still see
	// what failed and redeliver it.
	KeepFailed = 90 * 24 * time.Hour
)

// Pruned counts what Prune removed.
type Pruned struct {
	Deliveries, Events int64
}

// Prune removes, for every company, the deliveries delivered more than
// KeepDelivered ago and those failed for good more than KeepFailed ago,
// then the events no delivery refers to any more (the same age or older).
// Pending deliveries are never removed: they are the queue. It runs on the
// system pool, from the periodic prune job.
func Prune(ctx context.Context, db postgres.DBTX, now time.Time) (Pruned, error) {
	var out Pruned
	tag, err := db.Exec(ctx, `DELETE FROM webhook_deliveries
		WHERE (status = 'delivered' AND coalesce(delivered_at, created_at) < $1)
		   OR (status = 'failed' AND coalesce(last_attempt_at, created_at) < $2)`,
		now.Add(-KeepDelivered), now.Add(-KeepFailed))
	if err != nil {
		return out, fmt.Errorf("prune webhook deliveries: %w", err)
	}
	out.Deliveries = tag.RowsAffected()
	// An event is written with its deliveries in one transaction, so an old
	// event without any is one whose deliveries were pruned (or whose
	// endpoint was deleted): nothing can send or redeliver it again.
	tag, err = db.Exec(ctx, `DELETE FROM webhook_events e
		WHERE e.created_at < $1
		  AND NOT EXISTS (SELECT FROM webhook_deliveries d WHERE d.event_id = e.id AND d.company_id = e.company_id)`,
		now.Add(-KeepDelivered))
	if err != nil {
		return out, fmt.Errorf("prune webhook events: %w", err)
	}
	out.Events = tag.RowsAffected()
	return out, nil
}
