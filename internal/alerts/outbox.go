package alerts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
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

// Outbox returns a page of the company's e-mails, newest first, and their
// total. company is Principal.Scope(auth.OutboxRead): the outbox holds
// mail to every admin, HR manager and driver of the company.
func (s *Service) Outbox(ctx context.Context, p auth.Principal, company auth.Ref, page, perPage int) ([]OutboxEmail, int, error) {
	if err := company.Check(p, auth.OutboxRead); err != nil {
		return nil, 0, err
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE company_id = $1`, company.CompanyID()).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("count the outbox: %w", err)
	}
	rows, err := s.db.Query(ctx, `
		SELECT id, kind, recipient, language, subject, text_body, html_body, attempts, last_error, sent_at, created_at
		FROM outbox WHERE company_id = $1
		ORDER BY created_at DESC, id DESC
		LIMIT $2 OFFSET $3`, company.CompanyID(), perPage, (page-1)*perPage)
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

// OutboxHTML returns the HTML part of one e-mail of the company's outbox.
func (s *Service) OutboxHTML(ctx context.Context, p auth.Principal, company auth.Ref, id uuid.UUID) (string, error) {
	if err := company.Check(p, auth.OutboxRead); err != nil {
		return "", err
	}
	var html string
	err := s.db.QueryRow(ctx, `SELECT html_body FROM outbox WHERE company_id = $1 AND id = $2`, company.CompanyID(), id).Scan(&html)
	if errors.Is(err, pgx.ErrNoRows) {
		o, herr := tenants.HiddenOwner(ctx, s.db, p, "outbox", id, apperr.NotFound("msg.outbox.not_found"))
		if herr != nil {
			return "", herr
		}
		return "", p.CheckCompany(o.CompanyID)
	}
	if err != nil {
		return "", fmt.Errorf("outbox e-mail %s: %w", id, err)
	}
	return html, nil
}
