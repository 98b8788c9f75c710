package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// OutboxEmail is one e-mail of the company's outbox as the development
// outbox page shows it (docs/alerts.md, "Seeing the e-mails").
type OutboxEmail struct {
	ID        uuid.UUID
	Kind      string
	Recipient string
	Language  string
	Subject   string
	Text      string
	HTML      string
	Attempts  int
	LastError *string
	SentAt    *time.Time
	CreatedAt time.Time
}

// Outbox returns a page of the caller's company's e-mails, newest first,
// and their total.
func (s *Service) Outbox(ctx context.Context, p auth.Principal, r paging.Request) (paging.Page[OutboxEmail], error) {
	if err := outbox(p); err != nil {
		return paging.Page[OutboxEmail]{}, err
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE company_id = $1`, p.CompanyID).Scan(&total); err != nil {
		return paging.Page[OutboxEmail]{}, fmt.Errorf("count the outbox: %w", err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, kind, recipient, language, subject, text_body, html_body, attempts, last_error, sent_at, created_at
		FROM outbox WHERE company_id = $1
		ORDER BY created_at DESC, id DESC
		LIMIT $2 OFFSET $3`, p.CompanyID, r.Size, r.Offset())
	if err != nil {
		return paging.Page[OutboxEmail]{}, fmt.Errorf("list the outbox: %w", err)
	}
	out, err := postgres.AppendRows(make([]OutboxEmail, 0, r.Size), rows, func(r pgx.Row, e *OutboxEmail) error {
		return r.Scan(&e.ID, &e.Kind, &e.Recipient, &e.Language, &e.Subject, &e.Text, &e.HTML, &e.Attempts, &e.LastError, &e.SentAt, &e.CreatedAt)
	})
	if err != nil {
		return paging.Page[OutboxEmail]{}, fmt.Errorf("list the outbox: %w", err)
	}
	return paging.New(out, total, r), nil
}

// OutboxHTML returns the HTML part of e-mail id of the caller's company's
// outbox.
func (s *Service) OutboxHTML(ctx context.Context, p auth.Principal, id uuid.UUID) (string, error) {
	return loadOutboxHTML(ctx, s.db, p, id)
}
