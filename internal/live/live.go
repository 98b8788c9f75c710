// Package live is the live-update outbox and its fan-out
// (docs/live-updates.md): every webhook event and every new in-app
// notification is a row of live_events, written in the transaction of its
// change and numbered at commit in the company's commit order
// (migrations/00055_live_events.sql). A Hub per instance listens for the
// commits' NOTIFY on one dedicated connection, polls as a fallback, and
// hands each new event to the company's open streams in process; a stream
// that resumes reads what it missed with Replay.
package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres"
)

// Channel is the NOTIFY channel of committed events; the payload is the
// company's id.
const Channel = "konvoj_live"

// Window is how long events are kept and can be replayed.
const Window = 24 * time.Hour

// NotificationCreated is the event of a new in-app notification; it goes to
// its recipient only.
const NotificationCreated = "notification.created"

// Event is one committed live event.
type Event struct {
	ID        int64
	CompanyID uuid.UUID
	Type      string
	// DriverID is the driver the event is about (nil: no driver).
	DriverID *uuid.UUID
	// UserID is the recipient of a notification.created.
	UserID *uuid.UUID
	// Body is the webhook body, {"type", "timestamp", "data"}.
	Body      []byte
	CreatedAt time.Time

	// The frames on the wire, made once per event and shared by every
	// stream that sends them (access.go decides which one a caller gets).
	once             sync.Once
	full, restricted []byte
	restrictedErr    error
}

// InsertSQL is the statement (or WITH part) that writes an event, with the
// company, type, driver and body as parameters $company, $type, $driver,
// $body: webhooks.Emit runs it in the statement that looks up the
// endpoints, so an event costs the change no extra round trip.
func InsertSQL(company, typ, driver, body int) string {
	return fmt.Sprintf(`INSERT INTO live_events (company_id, type, driver_id, body) VALUES ($%d, $%d, $%d, $%d)`,
		company, typ, driver, body)
}

// SubjectOf reads the driver an event's body is about: the entity's id for
// a driver.* event, else its driver_id (nil for an event about no driver:
// a vehicle, a trailer, an import, a month's rating).
func SubjectOf(eventType string, body []byte) *uuid.UUID {
	var b struct {
		Data struct {
			ID       *uuid.UUID `json:"id"`
			DriverID *uuid.UUID `json:"driver_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil
	}
	if len(eventType) > 7 && eventType[:7] == "driver." {
		return b.Data.ID
	}
	return b.Data.DriverID
}

const eventColumns = `id, company_id, type, driver_id, user_id, body, created_at`

func scanEvents(rows pgx.Rows) ([]*Event, error) {
	var out []*Event
	for rows.Next() {
		e := &Event{}
		var body string
		if err := rows.Scan(&e.ID, &e.CompanyID, &e.Type, &e.DriverID, &e.UserID, &body, &e.CreatedAt); err != nil {
			rows.Close()
			return nil, err
		}
		e.Body = []byte(body)
		out = append(out, e)
	}
	return out, rows.Err()
}

// ReplayPage is how many events Replay reads at a time.
const ReplayPage = 500

// ErrReset: the events after the given id are no longer all kept (pruned,
// or older than Window); the client must reload.
var ErrReset = errors.New("live: events missed beyond the replay window")

// Replay returns the company's events after id after, at most ReplayPage,
// oldest first, on db (the request pool: row-level security for the
// company as well as the WHERE). ErrReset when what followed after is no
// longer all kept. The first call of a resume checks the window
// (checkWindow); the pages after it do not need to.
func Replay(ctx context.Context, db postgres.DBTX, company uuid.UUID, after int64, checkWindow bool, now time.Time) ([]*Event, error) {
	if checkWindow {
		var pruned int64
		var oldest *time.Time
		if err := db.QueryRow(ctx, `SELECT
				coalesce((SELECT pruned_to FROM live_horizons WHERE company_id = $1), 0),
				(SELECT created_at FROM live_events WHERE company_id = $1 AND id > $2 ORDER BY id LIMIT 1)`,
			company, after).Scan(&pruned, &oldest); err != nil {
			return nil, fmt.Errorf("live replay window: %w", err)
		}
		if after < pruned || (oldest != nil && oldest.Before(now.Add(-Window))) {
			return nil, ErrReset
		}
	}
	rows, err := db.Query(ctx, `SELECT `+eventColumns+` FROM live_events
		WHERE company_id = $1 AND id > $2 ORDER BY id LIMIT $3`, company, after, ReplayPage)
	if err != nil {
		return nil, fmt.Errorf("live replay: %w", err)
	}
	evs, err := scanEvents(rows)
	if err != nil {
		return nil, fmt.Errorf("live replay: %w", err)
	}
	return evs, nil
}

// Head returns the company's newest event id (0 when none): where a stream
// without a Last-Event-ID starts, and the id a reset carries.
func Head(ctx context.Context, db postgres.DBTX, company uuid.UUID) (int64, error) {
	var id int64
	if err := db.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM live_events WHERE company_id = $1`, company).Scan(&id); err != nil {
		return 0, fmt.Errorf("live head: %w", err)
	}
	return id, nil
}

// Prune removes the events older than Window, in every company, and
// records per company the highest id removed (a stream resuming from below
// it is told to reload). It runs on the system pool, from the periodic
// prune job; it returns how many events went.
func Prune(ctx context.Context, db postgres.DBTX, now time.Time) (int64, error) {
	var n int64
	err := db.QueryRow(ctx, `
		WITH gone AS (
			DELETE FROM live_events WHERE created_at < $1 AND id IS NOT NULL RETURNING company_id, id
		), top AS (
			SELECT company_id, max(id) AS id, count(*) AS n FROM gone GROUP BY company_id
		), horizon AS (
			INSERT INTO live_horizons (company_id, pruned_to) SELECT company_id, id FROM top
			ON CONFLICT (company_id) DO UPDATE SET pruned_to = greatest(live_horizons.pruned_to, excluded.pruned_to)
		)
		SELECT coalesce(sum(n), 0) FROM top`, now.Add(-Window)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("prune live events: %w", err)
	}
	return n, nil
}
