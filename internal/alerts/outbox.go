package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
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
func (s *Service) Outbox(ctx context.Context, p auth.Principal, page, perPage int) ([]OutboxEmail, int, error) {
	if err := outbox(p); err != nil {
		return nil, 0, err
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE company_id = $1`, p.CompanyID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count the outbox: %w", err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, kind, recipient, language, subject, text_body, html_body, attempts, last_error, sent_at, created_at
		FROM outbox WHERE company_id = $1
		ORDER BY created_at DESC, id DESC
		LIMIT $2 OFFSET $3`, p.CompanyID, perPage, (page-1)*perPage)
	if err != nil {
		return nil, 0, fmt.Errorf("list the outbox: %w", err)
	}
	out, err := postgres.AppendRows(make([]OutboxEmail, 0, perPage), rows, func(r pgx.Row, e *OutboxEmail) error {
		return r.Scan(&e.ID, &e.Kind, &e.Recipient, &e.Language, &e.Subject, &e.Text, &e.HTML, &e.Attempts, &e.LastError, &e.SentAt, &e.CreatedAt)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("list the outbox: %w", err)
	}
	return out, total, nil
}

// OutboxHTML returns the HTML part of e-mail id of the caller's company's
// outbox.
func (s *Service) OutboxHTML(ctx context.Context, p auth.Principal, id uuid.UUID) (string, error) {
	return loadOutboxHTML(ctx, s.db, p, id)
}
