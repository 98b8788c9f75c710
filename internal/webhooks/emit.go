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

// Emit writes an event of the company and one delivery per enabled endpoint
// that subscribes to it, on tx, the transaction of the change: a rolled
// back change sends nothing, a committed one is delivered even after a
// crash. data is the entity as the API returns it. Nothing is written when
// no endpoint wants the event.
func Emit(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, eventType string, data any) error {
	rows, err := tx.Query(ctx, `SELECT id FROM webhook_endpoints
		WHERE company_id = $1 AND enabled AND (events @> ARRAY[$2] OR events @> ARRAY['*'])`, companyID, eventType)
	if err != nil {
		return fmt.Errorf("webhook endpoints of %s: %w", eventType, err)
	}
	endpoints, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fmt.Errorf("webhook endpoints of %s: %w", eventType, err)
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
	if _, err := emit(ctx, tx, companyID, eventType, data, endpoints); err != nil {
		return err
	}
	return EnqueueTx(ctx, tx, slices.DeleteFunc(endpoints, func(id uuid.UUID) bool { return slices.Contains(queued, id) }))
}

// Wanted reports whether an enabled endpoint of the company wants any of
// the event types, so a bulk change (an import) reads its entities back
// for events only when someone listens.
func Wanted(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, eventTypes ...string) (bool, error) {
	var ok bool
	if err := tx.QueryRow(ctx, `SELECT `+WantedSQL(1, 2), companyID, eventTypes).Scan(&ok); err != nil {
		return false, fmt.Errorf("webhook endpoints: %w", err)
	}
	return ok, nil
}

// WantedSQL is Wanted's test as an SQL expression, for a caller that asks
// it in a statement it runs anyway: the company is the parameter $company,
// the event types (a text array) $events.
func WantedSQL(company, events int) string {
	return fmt.Sprintf(`EXISTS (SELECT FROM webhook_endpoints
		WHERE company_id = $%d AND enabled AND (events && $%d::text[] OR events @> ARRAY['*']))`, company, events)
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
