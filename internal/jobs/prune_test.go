package jobs_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// The prune job removes, in every company, webhook deliveries delivered
// more than 30 days ago and failed ones last tried more than 90 days ago,
// the events left without a delivery, and e-mails sent more than 30 days
// ago or never sent in 90 days. Newer rows, pending deliveries, and events
// another delivery still needs stay; each company's rows are judged by
// their own age only.
func TestPruneOutbox(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	a, b := fixtures.Company(t, db), fixtures.Company(t, db)
	endpoint := func(company uuid.UUID) uuid.UUID {
		var id uuid.UUID
		if err := db.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
			VALUES ($1, 'https://hooks.example.test/', '{*}', 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA') RETURNING id`, company).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	ea, eb := endpoint(a), endpoint(b)
	// delivery writes an event (its type is the case's name) and one
	// delivery of it, created, tried and (when delivered) delivered age ago.
	delivery := func(company, ep uuid.UUID, name, status, age string) uuid.UUID {
		var event uuid.UUID
		if err := db.QueryRow(ctx, `
			WITH ev AS (INSERT INTO webhook_events (company_id, type, occurred_at, body, created_at)
				VALUES ($1, $3, now() - $5::interval, '{}', now() - $5::interval) RETURNING id),
			d AS (INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, attempts, created_at, last_attempt_at, delivered_at)
				SELECT $1, $2, ev.id, $4, 1, now() - $5::interval, now() - $5::interval,
					CASE WHEN $4 = 'delivered' THEN now() - $5::interval END FROM ev RETURNING event_id)
			SELECT event_id FROM d`, company, ep, name, status, age).Scan(&event); err != nil {
			t.Fatal(err)
		}
		return event
	}
	delivery(a, ea, "a.delivered_31d", "delivered", "31 days")
	delivery(a, ea, "a.delivered_29d", "delivered", "29 days")
	delivery(a, ea, "a.failed_60d", "failed", "60 days")
	delivery(a, ea, "a.failed_91d", "failed", "91 days")
	delivery(a, ea, "a.pending_120d", "pending", "120 days")
	// An old event redelivered lately: its old delivery goes, the event stays.
	shared := delivery(a, ea, "a.redelivered", "delivered", "40 days")
	if _, err := db.Exec(ctx, `INSERT INTO webhook_deliveries (company_id, endpoint_id, event_id, status, attempts, delivered_at)
		VALUES ($1, $2, $3, 'delivered', 1, now() - interval '1 day')`, a, ea, shared); err != nil {
		t.Fatal(err)
	}
	delivery(b, eb, "b.delivered_31d", "delivered", "31 days")
	delivery(b, eb, "b.delivered_1d", "delivered", "1 day")

	email := func(company uuid.UUID, subject string, sent bool, age string) {
		if _, err := db.Exec(ctx, `INSERT INTO outbox (company_id, kind, recipient, language, subject, text_body, html_body, sent_at, created_at)
			VALUES ($1, 'document_alert', 'hr@example.test', 'en', $2, 'text', '<p>html</p>',
				CASE WHEN $3 THEN now() - $4::interval END, now() - $4::interval)`, company, subject, sent, age); err != nil {
			t.Fatal(err)
		}
	}
	email(a, "a.sent_31d", true, "31 days")
	email(a, "a.sent_2d", true, "2 days")
	email(b, "b.unsent_91d", false, "91 days")
	email(b, "b.unsent_30d", false, "30 days")

	client, events := startClient(t, db)
	if _, err := client.Insert(ctx, jobs.PruneOutboxArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	awaitJob(t, events, jobs.PruneOutboxArgs{}.Kind())

	check := func(what, query string, want ...string) {
		t.Helper()
		got := column(t, db, query)
		if !slices.Equal(got, want) {
			t.Errorf("%s after the prune: %v, want %v", what, got, want)
		}
	}
	check("events", `SELECT type FROM webhook_events ORDER BY type`,
		"a.delivered_29d", "a.failed_60d", "a.pending_120d", "a.redelivered", "b.delivered_1d")
	check("deliveries", `SELECT e.type || ':' || d.status FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id ORDER BY 1`,
		"a.delivered_29d:delivered", "a.failed_60d:failed", "a.pending_120d:pending", "a.redelivered:delivered", "b.delivered_1d:delivered")
	check("e-mails", `SELECT subject FROM outbox ORDER BY subject`, "a.sent_2d", "b.unsent_30d")
	if got := column(t, db, `SELECT id::text FROM webhook_endpoints`); len(got) != 2 {
		t.Errorf("endpoints after the prune: %v", got)
	}
}

// column reads a query's one text column.
func column(t *testing.T, db *pgxpool.Pool, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return out
}
