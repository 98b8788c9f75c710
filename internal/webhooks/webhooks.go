// Package webhooks tells a company's other systems what changed
// (docs/webhooks.md): admins register endpoints; the services write each
// event, and one delivery per matching endpoint, in the transaction of the
// change (Emit, a transactional outbox); River workers deliver them signed
// as the Standard Webhooks specification says, retrying with backoff, in
// event order per endpoint, and never to an address inside the network
// (the SSRF guard, at registration and at every connection).
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/textin"
)

// Event types (docs/webhooks.md, "Events").
const (
	DriverCreated              = "driver.created"
	DriverUpdated              = "driver.updated"
	DriverDeleted              = "driver.deleted"
	VehicleCreated             = "vehicle.created"
	VehicleUpdated             = "vehicle.updated"
	VehicleDeleted             = "vehicle.deleted"
	TrailerCreated             = "trailer.created"
	TrailerUpdated             = "trailer.updated"
	TrailerDeleted             = "trailer.deleted"
	DocumentFileUploaded       = "document.file_uploaded"
	DocumentUpdated            = "document.updated"
	DocumentStatusChanged      = "document.status_changed"
	DocumentReviewCompleted    = "document.review_completed"
	TransactionCreated         = "finance_transaction.created"
	TransactionApproved        = "finance_transaction.approved"
	TransactionPaid            = "finance_transaction.paid"
	TransactionCancelled       = "finance_transaction.cancelled"
	TransactionDeleted         = "finance_transaction.deleted"
	PeriodClosed               = "finance_period.closed"
	PeriodPaid                 = "finance_period.paid"
	PeriodReopened             = "finance_period.reopened"
	PenaltyCreated             = "penalty.created"
	PenaltyDisputed            = "penalty.disputed"
	PenaltyAccepted            = "penalty.accepted"
	PenaltyResolved            = "penalty.resolved"
	RatingMonthCompleted       = "rating.month_completed"
	ImportCompleted            = "import.completed"
	UnitAssigned               = "transport_unit.assigned"
	UnitUpdated                = "transport_unit.updated"
	UnitUnassigned             = "transport_unit.unassigned"
	UnitReadinessChanged       = "transport_unit.readiness_changed"
	TestEvent                  = "webhook.test"
	allEvents                  = "*"
	maxURL, maxDescription     = 2000, 500
	secretPrefix, secretLength = "whsec_", 24
)

// MaxEndpoints is how many endpoints a company may have: each one is a
// queue the workers serve and a target of every event.
const MaxEndpoints = 20

// Events are the event types an endpoint may subscribe to, in the order
// the page lists them.
var Events = []string{
	DriverCreated, DriverUpdated, DriverDeleted,
	VehicleCreated, VehicleUpdated, VehicleDeleted, TrailerCreated, TrailerUpdated, TrailerDeleted,
	DocumentFileUploaded, DocumentUpdated, DocumentStatusChanged, DocumentReviewCompleted,
	TransactionCreated, TransactionApproved, TransactionPaid, TransactionCancelled, TransactionDeleted,
	PeriodClosed, PeriodPaid, PeriodReopened,
	PenaltyCreated, PenaltyDisputed, PenaltyAccepted, PenaltyResolved,
	RatingMonthCompleted, ImportCompleted,
	UnitAssigned, UnitUpdated, UnitUnassigned, UnitReadinessChanged,
}

// Endpoint is a registered receiver as the API shows it; Secret is set
// only in the answers of create and rotate-secret.
type Endpoint struct {
	ID          uuid.UUID `json:"id"`
	URL         string    `json:"url"`
	Events      []string  `json:"events"`
	Enabled     bool      `json:"enabled"`
	Description string    `json:"description"`
	// DisabledReason is "failing" when Konvoj disabled the endpoint after
	// five days of failed deliveries, else null.
	DisabledReason *string   `json:"disabled_reason"`
	CreatedAt      time.Time `json:"created_at"`
	Secret         string    `json:"secret,omitempty"`
	// companyID is the company the endpoint belongs to, as its loader
	// found it: the writes name the row by it.
	companyID uuid.UUID
}

// Input is the body of create and update: update changes only the fields
// it holds.
type Input struct {
	URL         *string   `json:"url"`
	Events      *[]string `json:"events"`
	Enabled     *bool     `json:"enabled"`
	Description *string   `json:"description"`
}

// Delivery is one event's delivery to one endpoint, with its last attempt.
type Delivery struct {
	ID             uuid.UUID  `json:"id"`
	EventID        uuid.UUID  `json:"event_id"`
	Event          string     `json:"event"`
	Status         string     `json:"status"` // pending, delivered, failed
	Attempts       int        `json:"attempts"`
	StatusCode     *int       `json:"status_code"`
	DurationMS     *int       `json:"duration_ms"`
	Error          *string    `json:"error"`
	LastAttemptAt  *time.Time `json:"last_attempt_at"`
	NextAttemptAt  *time.Time `json:"next_attempt_at"`
	DeliveredAt    *time.Time `json:"delivered_at"`
	CreatedAt      time.Time  `json:"created_at"`
	EventCreatedAt time.Time  `json:"event_timestamp"`
}

// Service manages a company's endpoints (admins only: auth.WebhooksManage).
type Service struct {
	db    *pgxpool.Pool
	guard Guard
	// Enqueue queues the delivery job of endpoints on tx (a River insert);
	// nil: the scheduler's next sweep finds them.
	Enqueue func(ctx context.Context, tx pgx.Tx, endpoints []uuid.UUID) error
}

// NewService returns the endpoints service on the request pool; guard
// checks the URLs of new and changed endpoints.
func NewService(db *pgxpool.Pool, guard Guard) *Service {
	return &Service{db: db, guard: guard, Enqueue: EnqueueTx}
}

const endpointColumns = `id, url, events, enabled, description, disabled_reason, created_at`

func scanEndpoint(row pgx.Row, e *Endpoint) error {
	return row.Scan(&e.ID, &e.URL, &e.Events, &e.Enabled, &e.Description, &e.DisabledReason, &e.CreatedAt)
}

// List returns the caller's company's endpoints, oldest first.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Endpoint, error) {
	if err := manage(p); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `SELECT `+endpointColumns+` FROM webhook_endpoints WHERE company_id = $1 ORDER BY created_at, id`,
		p.CompanyID)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, scanEndpoint)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	if out == nil {
		out = []Endpoint{}
	}
	return out, nil
}

// Get returns endpoint id of the caller's company.
func (s *Service) Get(ctx context.Context, p auth.Principal, id uuid.UUID) (Endpoint, error) {
	return loadEndpoint(ctx, s.db, p, id, false)
}

// NewSecret is a signing secret: whsec_ and the base64 of 24 random bytes.
func NewSecret() string {
	b := make([]byte, secretLength)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24)
	return secretPrefix + base64.StdEncoding.EncodeToString(b)
}

// validate checks the input; create needs url and events. It returns the
// normalized events.
func (s *Service) validate(ctx context.Context, in Input, create bool) error {
	var v apperr.Validation
	if in.URL != nil || create {
		switch {
		case in.URL == nil || strings.TrimSpace(*in.URL) == "":
			v.Add("url", "msg.common.required", "field", i18n.M("field.webhook.url"))
		case textin.Bad(*in.URL):
			v.Add("url", "msg.common.text_invalid", "field", i18n.M("field.webhook.url"))
		case utf8.RuneCountInString(*in.URL) > maxURL:
			v.Add("url", "msg.common.too_long", "field", i18n.M("field.webhook.url"), "max", maxURL)
		default:
			*in.URL = strings.TrimSpace(*in.URL)
			if err := s.guard.CheckURL(ctx, *in.URL); err != nil {
				var ue *URLError
				if !errors.As(err, &ue) {
					return err
				}
				switch ue.Reason {
				case ReasonHTTPS:
					v.Add("url", "msg.webhooks.url_https")
				case ReasonCredentials:
					v.Add("url", "msg.webhooks.url_credentials")
				case ReasonPrivate:
					v.Add("url", "msg.webhooks.url_private")
				case ReasonUnresolvable:
					v.Add("url", "msg.webhooks.url_unresolvable")
				case ReasonPort:
					v.Add("url", "msg.webhooks.url_port")
				default:
					v.Add("url", "msg.webhooks.url_invalid")
				}
			}
		}
	}
	if in.Events != nil || create {
		switch {
		case in.Events == nil || len(*in.Events) == 0:
			v.Add("events", "msg.webhooks.events_required")
		default:
			for _, e := range *in.Events {
				if e != allEvents && !slices.Contains(Events, e) {
					v.Add("events", "msg.webhooks.event_unknown", "event", e)
					break
				}
			}
			if slices.Contains(*in.Events, allEvents) {
				*in.Events = []string{allEvents}
			} else {
				slices.Sort(*in.Events)
				*in.Events = slices.Compact(*in.Events)
			}
		}
	}
	if in.Description != nil {
		switch {
		case textin.Bad(*in.Description):
			v.Add("description", "msg.common.text_invalid", "field", i18n.M("field.webhook.description"))
		case utf8.RuneCountInString(*in.Description) > maxDescription:
			v.Add("description", "msg.common.too_long", "field", i18n.M("field.webhook.description"), "max", maxDescription)
		default:
			*in.Description = strings.TrimSpace(textin.StripBidi(*in.Description))
		}
	}
	return v.Err()
}

// Create registers an endpoint and returns it with its secret, which is
// shown this once; a company that has MaxEndpoints already gets 409. read
// fills the input after the role check (403 before 400).
func (s *Service) Create(ctx context.Context, p auth.Principal, read func(*Input) error) (Endpoint, error) {
	if err := manage(p); err != nil {
		return Endpoint{}, err
	}
	var in Input
	if err := read(&in); err != nil {
		return Endpoint{}, err
	}
	if err := s.validate(ctx, in, true); err != nil {
		return Endpoint{}, err
	}
	enabled := in.Enabled == nil || *in.Enabled
	desc := ""
	if in.Description != nil {
		desc = *in.Description
	}
	secret := NewSecret()
	var e Endpoint
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		// The count runs under a lock of the company's endpoints, held to
		// the commit, so creates racing each other cannot pass the cap
		// together (a statement after the lock sees what they committed).
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended('konvoj.webhook_endpoints:' || $1::text, 0))`,
			p.CompanyID); err != nil {
			return fmt.Errorf("lock webhook endpoints of %s: %w", p.CompanyID, err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE company_id = $1`, p.CompanyID).Scan(&n); err != nil {
			return fmt.Errorf("count webhook endpoints: %w", err)
		}
		if n >= MaxEndpoints {
			return apperr.Conflict("msg.webhooks.limit", "max", MaxEndpoints)
		}
		err := scanEndpoint(tx.QueryRow(ctx, `
			INSERT INTO webhook_endpoints (company_id, url, events, enabled, description, secret)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING `+endpointColumns,
			p.CompanyID, *in.URL, *in.Events, enabled, desc, secret), &e)
		if err != nil {
			return fmt.Errorf("create webhook endpoint: %w", err)
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "webhook_endpoint", EntityID: e.ID, Action: "created",
			NewValues: map[string]any{"url": e.URL, "events": e.Events, "enabled": e.Enabled, "description": e.Description}})
	})
	if err != nil {
		return Endpoint{}, err
	}
	e.Secret, e.companyID = secret, p.CompanyID
	return e, nil
}

// Update changes the fields of endpoint id that the input holds; read
// fills the input once the endpoint is found the caller's (403 and 404
// before 400). Enabling an endpoint clears its failure record and sends
// what waited meanwhile.
func (s *Service) Update(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*Input) error) (Endpoint, error) {
	// The endpoint is loaded before the transaction: the URL check of
	// validate may resolve a host name, which must not hold a connection
	// in a transaction.
	before, err := loadEndpoint(ctx, s.db, p, id, false)
	if err != nil {
		return Endpoint{}, err
	}
	var in Input
	if err := read(&in); err != nil {
		return Endpoint{}, err
	}
	if err := s.validate(ctx, in, false); err != nil {
		return Endpoint{}, err
	}
	after := before
	if in.URL != nil {
		after.URL = *in.URL
	}
	if in.Events != nil {
		after.Events = *in.Events
	}
	if in.Enabled != nil {
		after.Enabled = *in.Enabled
	}
	if in.Description != nil {
		after.Description = *in.Description
	}
	oldV, newV := audit.Diff(endpointValues(before), endpointValues(after))
	if len(newV) == 0 {
		return before, nil
	}
	var out Endpoint
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		err := scanEndpoint(tx.QueryRow(ctx, `
			UPDATE webhook_endpoints SET url = $3, events = $4, enabled = $5, description = $6, updated_at = now(),
				disabled_reason = CASE WHEN $5 THEN NULL ELSE disabled_reason END,
				failing_since = CASE WHEN $5 AND NOT enabled THEN NULL ELSE failing_since END
			WHERE company_id = $1 AND id = $2 RETURNING `+endpointColumns,
			before.companyID, id, after.URL, after.Events, after.Enabled, after.Description), &out)
		if postgres.IsNotFound(err) {
			return apperr.NotFound("msg.webhooks.not_found")
		}
		if err != nil {
			return fmt.Errorf("update webhook endpoint %s: %w", id, err)
		}
		if out.Enabled && !before.Enabled && s.Enqueue != nil {
			if err := s.Enqueue(ctx, tx, []uuid.UUID{id}); err != nil {
				return err
			}
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "webhook_endpoint", EntityID: id, Action: "updated",
			OldValues: oldV, NewValues: newV})
	})
	out.companyID = before.companyID
	return out, err
}

func endpointValues(e Endpoint) map[string]any {
	return map[string]any{"url": e.URL, "events": strings.Join(e.Events, ","), "enabled": e.Enabled, "description": e.Description}
}

// Delete removes endpoint id and its delivery log and returns what it was.
func (s *Service) Delete(ctx context.Context, p auth.Principal, id uuid.UUID) (Endpoint, error) {
	if err := manage(p); err != nil {
		return Endpoint{}, err
	}
	var e Endpoint
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if e, err = loadEndpoint(ctx, tx, p, id, false); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM webhook_endpoints WHERE company_id = $1 AND id = $2`, e.companyID, id); err != nil {
			return fmt.Errorf("delete webhook endpoint %s: %w", id, err)
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "webhook_endpoint", EntityID: id, Action: "deleted",
			OldValues: map[string]any{"url": e.URL}})
	})
	return e, err
}

// RotateSecret gives endpoint id a new secret and returns it, shown this
// once; deliveries from now on are signed with it.
func (s *Service) RotateSecret(ctx context.Context, p auth.Principal, id uuid.UUID) (Endpoint, error) {
	if err := manage(p); err != nil {
		return Endpoint{}, err
	}
	secret := NewSecret()
	var e Endpoint
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		before, err := loadEndpoint(ctx, tx, p, id, true)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET secret = $3, updated_at = now() WHERE company_id = $1 AND id = $2`,
			before.companyID, id, secret); err != nil {
			return fmt.Errorf("rotate webhook secret %s: %w", id, err)
		}
		e = before
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "webhook_endpoint", EntityID: id, Action: "webhook.secret_rotated"})
	})
	if err != nil {
		return Endpoint{}, err
	}
	e.Secret = secret
	return e, nil
}

// SendTest queues a webhook.test event to endpoint id alone, whatever
// events it subscribes to. A disabled endpoint is 409.
func (s *Service) SendTest(ctx context.Context, p auth.Principal, id uuid.UUID) (Delivery, error) {
	if err := manage(p); err != nil {
		return Delivery{}, err
	}
	var d Delivery
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		e, err := loadEndpoint(ctx, tx, p, id, false)
		if err != nil {
			return err
		}
		if !e.Enabled {
			return apperr.Conflict("msg.webhooks.test_disabled")
		}
		ids, err := emit(ctx, tx, e.companyID, TestEvent, map[string]any{"webhook_id": e.ID, "url": e.URL}, []uuid.UUID{e.ID})
		if err != nil {
			return err
		}
		if s.Enqueue != nil {
			if err := s.Enqueue(ctx, tx, []uuid.UUID{e.ID}); err != nil {
				return err
			}
		}
		d, err = s.delivery(ctx, tx, e, ids[0])
		return err
	})
	return d, err
}

const deliveryColumns = `d.id, d.event_id, e.type, d.status, d.attempts, d.last_status_code, d.last_duration_ms, d.last_error,
	d.last_attempt_at, d.next_attempt_at, d.delivered_at, d.created_at, e.occurred_at`

func scanDelivery(row pgx.Row, d *Delivery) error {
	return row.Scan(&d.ID, &d.EventID, &d.Event, &d.Status, &d.Attempts, &d.StatusCode, &d.DurationMS, &d.Error,
		&d.LastAttemptAt, &d.NextAttemptAt, &d.DeliveredAt, &d.CreatedAt, &d.EventCreatedAt)
}

// delivery reads delivery id of endpoint e (loaded for the caller).
func (s *Service) delivery(ctx context.Context, db postgres.DBTX, e Endpoint, id uuid.UUID) (Delivery, error) {
	var d Delivery
	err := scanDelivery(db.QueryRow(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id AND e.company_id = d.company_id
		WHERE d.company_id = $1 AND d.endpoint_id = $2 AND d.id = $3`, e.companyID, e.ID, id), &d)
	if postgres.IsNotFound(err) {
		return Delivery{}, apperr.NotFound("msg.webhooks.delivery_not_found")
	}
	if err != nil {
		return Delivery{}, fmt.Errorf("load webhook delivery %s: %w", id, err)
	}
	return d, nil
}

// Deliveries returns endpoint id, a page of its deliveries, newest first,
// and their total. page reads the page asked for once the endpoint is
// found the caller's (403 and 404 before a bad query's 400).
func (s *Service) Deliveries(ctx context.Context, p auth.Principal, id uuid.UUID, page func() (paging.Request, error)) (Endpoint, paging.Page[Delivery], error) {
	e, err := loadEndpoint(ctx, s.db, p, id, false)
	if err != nil {
		return Endpoint{}, paging.Page[Delivery]{}, err
	}
	r, err := page()
	if err != nil {
		return Endpoint{}, paging.Page[Delivery]{}, err
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM webhook_deliveries WHERE company_id = $1 AND endpoint_id = $2`,
		e.companyID, id).Scan(&total); err != nil {
		return Endpoint{}, paging.Page[Delivery]{}, fmt.Errorf("count webhook deliveries: %w", err)
	}
	rows, err := s.db.Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id AND e.company_id = d.company_id
		WHERE d.company_id = $1 AND d.endpoint_id = $2
		ORDER BY d.created_at DESC, d.id DESC LIMIT $3 OFFSET $4`, e.companyID, id, r.Size, r.Offset())
	if err != nil {
		return Endpoint{}, paging.Page[Delivery]{}, fmt.Errorf("list webhook deliveries: %w", err)
	}
	out, err := postgres.AppendRows(make([]Delivery, 0, r.Size), rows, scanDelivery)
	if err != nil {
		return Endpoint{}, paging.Page[Delivery]{}, fmt.Errorf("list webhook deliveries: %w", err)
	}
	return e, paging.New(out, total, r), nil
}

// Redeliver sends a delivery's event to endpoint id again, as a new
// delivery (the log keeps the old one). A delivery of another endpoint is
// 404.
func (s *Service) Redeliver(ctx context.Context, p auth.Principal, id, deliveryID uuid.UUID) (Delivery, error) {
	if err := manage(p); err != nil {
		return Delivery{}, err
	}
	var d Delivery
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		e, err := loadEndpoint(ctx, tx, p, id, false)
		if err != nil {
			return err
		}
		old, err := s.delivery(ctx, tx, e, deliveryID)
		if err != nil {
			return err
		}
		var newID uuid.UUID
		if err := tx.QueryRow(ctx, `INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, next_attempt_at)
			VALUES ($1, $2, $3, now()) RETURNING id`, e.companyID, id, old.EventID).Scan(&newID); err != nil {
			return fmt.Errorf("redeliver %s: %w", deliveryID, err)
		}
		if s.Enqueue != nil {
			if err := s.Enqueue(ctx, tx, []uuid.UUID{id}); err != nil {
				return err
			}
		}
		d, err = s.delivery(ctx, tx, e, newID)
		return err
	})
	return d, err
}
