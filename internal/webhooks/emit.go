package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"

	"github.com/konvoj/konvoj/internal/live"
)

// DeliverArgs delivers an endpoint's due deliveries in order. A job is
// queued with every transaction that writes deliveries for the endpoint;
// the worker takes the endpoint's advisory lock, so one worker at a time
// works a queue (the order of events), and a job that finds it taken leaves
// the work to the holder. A delivery waiting for its retry is woken by one
// Wake job per endpoint (unique while it waits or runs).
type DeliverArgs struct {
	EndpointID uuid.UUID `json:"endpoint_id"`
	Wake       bool      `json:"wake,omitempty"`
}

// Kind names the job in the queue.
func (DeliverArgs) Kind() string { return "deliver_webhooks" }

// InsertOpts: a wake-up job is unique per endpoint while it waits or runs.
func (a DeliverArgs) InsertOpts() river.InsertOpts {
	o := river.InsertOpts{MaxAttempts: 25}
	if a.Wake {
		o.UniqueOpts = river.UniqueOpts{ByArgs: true, ByState: []rivertype.JobState{
			rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
			rivertype.JobStateRetryable, rivertype.JobStateScheduled}}
	}
	return o
}

var (
	inserterOnce sync.Once
	inserter     *river.Client[pgx.Tx]
	inserterErr  error
)

// EnqueueTx queues the delivery jobs of the endpoints on tx, the
// transaction that wrote their deliveries: the jobs exist exactly when the
// deliveries do.
func EnqueueTx(ctx context.Context, tx pgx.Tx, endpoints []uuid.UUID) error {
	if len(endpoints) == 0 {
		return nil
	}
	inserterOnce.Do(func() {
		// An insert-only client: it inserts on the caller's transaction.
		inserter, inserterErr = river.NewClient(riverpgxv5.New(nil), &river.Config{})
	})
	if inserterErr != nil {
		return fmt.Errorf("webhook job client: %w", inserterErr)
	}
	params := make([]river.InsertManyParams, len(endpoints))
	for i, id := range endpoints {
		params[i] = river.InsertManyParams{Args: DeliverArgs{EndpointID: id}}
	}
	if _, err := inserter.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("queue webhook deliveries: %w", err)
	}
	return nil
}

// Emit writes an event of the company on tx, the transaction of the change:
// always the live event of the company's streams (internal/live,
// docs/live-updates.md), and the webhook event with one delivery per enabled
// endpoint that subscribes to it. A rolled back change sends nothing, a
// committed one is delivered even after a crash. data is the entity as the
// API returns it, or About when the driver it concerns is not in it.
func Emit(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, eventType string, data any) error {
	var subject *uuid.UUID
	if a, ok := data.(About); ok {
		subject, data = &a.Driver, a.Data
		if a.Driver == uuid.Nil {
			subject = nil
		}
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	body, err := json.Marshal(Body{Type: eventType, Timestamp: now, Data: data})
	if err != nil {
		return fmt.Errorf("webhook event %s: %w", eventType, err)
	}
	if subject == nil {
		subject = live.SubjectOf(eventType, body)
	}
	// One statement: the live event, and the endpoints that want it.
	rows, err := tx.Query(ctx, `WITH live AS (`+live.InsertSQL(1, 2, 3, 4)+`)
		SELECT id FROM webhook_endpoints
		WHERE company_id = $1 AND enabled AND (events @> ARRAY[$2] OR events @> ARRAY['*'])`,
		companyID, eventType, subject, string(body))
	if err != nil {
		return fmt.Errorf("event %s: %w", eventType, err)
	}
	endpoints, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fmt.Errorf("event %s: %w", eventType, err)
	}
	if len(endpoints) == 0 {
		return nil
	}
	// One job per endpoint and transaction: an endpoint that already got a
	// delivery in this transaction (a bulk import) has its job.
	rows, err = tx.Query(ctx, `SELECT DISTINCT endpoint_id FROM webhook_deliveries
		WHERE endpoint_id = ANY($1) AND status = 'pending' AND xmin = pg_current_xact_id()::xid`, endpoints)
	if err != nil {
		return fmt.Errorf("webhook jobs of this transaction: %w", err)
	}
	queued, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fmt.Errorf("webhook jobs of this transaction: %w", err)
	}
	if _, err := emitBody(ctx, tx, companyID, eventType, now, body, endpoints); err != nil {
		return err
	}
	return EnqueueTx(ctx, tx, slices.DeleteFunc(endpoints, func(id uuid.UUID) bool { return slices.Contains(queued, id) }))
}

// About is an event's data with the driver it concerns, for an entity
// whose JSON does not name its driver (a reviewed file): a driver's live
// stream carries only the events about its own record.
type About struct {
	Driver uuid.UUID
	Data   any
}

// Body is what a delivery sends: the event's type, when it happened and
// the entity.
type Body struct {
	Type      string    `json:"type"`
	Timestamp time.Time `json:"timestamp"`
	Data      any       `json:"data"`
}

// emit writes the event and its deliveries to the endpoints and returns
// the deliveries' ids.
func emit(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, eventType string, data any, endpoints []uuid.UUID) ([]uuid.UUID, error) {
	now := time.Now().UTC().Truncate(time.Microsecond)
	body, err := json.Marshal(Body{Type: eventType, Timestamp: now, Data: data})
	if err != nil {
		return nil, fmt.Errorf("webhook event %s: %w", eventType, err)
	}
	return emitBody(ctx, tx, companyID, eventType, now, body, endpoints)
}

// emitBody writes the event with its body and its deliveries.
func emitBody(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, eventType string, now time.Time, body []byte, endpoints []uuid.UUID) ([]uuid.UUID, error) {
	var eventID uuid.UUID
	if err := tx.QueryRow(ctx, `INSERT INTO webhook_events (company_id, type, occurred_at, body) VALUES ($1, $2, $3, $4) RETURNING id`,
		companyID, eventType, now, string(body)).Scan(&eventID); err != nil {
		return nil, fmt.Errorf("write webhook event %s: %w", eventType, err)
	}
	rows, err := tx.Query(ctx, `INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, next_attempt_at)
		SELECT $1, unnest($2::uuid[]), $3, now() RETURNING id`, companyID, endpoints, eventID)
	if err != nil {
		return nil, fmt.Errorf("write webhook deliveries: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return nil, fmt.Errorf("write webhook deliveries: %w", err)
	}
	return ids, nil
}
