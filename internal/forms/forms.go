// Package forms keeps a web form from creating its record twice: each
// create form carries a one-time token (NewToken), and the first
// submission claims it in the database before the create runs. A second
// submission of the same form (a double click, a reload that posts again,
// a second tab) finds the claim and creates nothing: it is sent where the
// first one went, or told that the first is still being saved
// (docs/web-app.md, "Sending a form twice").
package forms

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// KeepClaims is how long a claim is kept after the first submission
// (docs/web-app.md, "Sending a form twice"): the second submissions it
// stops (a double click, a reload, a second tab) come within minutes, and
// a claim left unfinished by a server that stopped mid-create frees its
// form again after this long.
const KeepClaims = 24 * time.Hour

// Service stores the claims, company-scoped.
type Service struct {
	db *pgxpool.Pool
}

// NewService returns the form token service.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }

// NewToken is a fresh token for a form.
func NewToken() string { return uuid.NewString() }

// Claim is the outcome of claiming a token.
type Claim struct {
	token uuid.UUID
	// Fresh: this submission is the first; run the create, then Finish
	// (or Release on a refusal).
	Fresh bool
	// Done is where the first submission went, when it succeeded ("" while
	// it is still running).
	Done string
}

// Claim claims the form's token for the caller's company. A token that is
// missing or malformed is 400 (the form was not one of ours); a token
// claimed by a submission still running is 409.
func (s *Service) Claim(ctx context.Context, p auth.Principal, token string) (Claim, error) {
	id, err := uuid.Parse(token)
	if err != nil {
		return Claim{}, apperr.BadRequest("msg.forms.token")
	}
	c := Claim{token: id}
	tag, err := s.db.Exec(ctx, `INSERT INTO form_submissions (company_id, token, user_id) VALUES ($1, $2, $3)
		ON CONFLICT DO NOTHING`, p.CompanyID, id, userID(p))
	if err != nil {
		return Claim{}, fmt.Errorf("claim form token: %w", err)
	}
	if tag.RowsAffected() == 1 {
		c.Fresh = true
		return c, nil
	}
	var done *string
	err = s.db.QueryRow(ctx, `SELECT result_url FROM form_submissions WHERE company_id = $1 AND token = $2`,
		p.CompanyID, id).Scan(&done)
	if postgres.IsNotFound(err) {
		// Released in between: the first submission was refused.
		return s.Claim(ctx, p, token)
	}
	if err != nil {
		return Claim{}, fmt.Errorf("read form token: %w", err)
	}
	if done == nil {
		return Claim{}, apperr.Conflict("msg.forms.in_progress")
	}
	c.Done = *done
	return c, nil
}

// Finish records where the first submission went (the new record's page).
func (s *Service) Finish(ctx context.Context, p auth.Principal, c Claim, url string) error {
	_, err := s.db.Exec(ctx, `UPDATE form_submissions SET result_url = $3 WHERE company_id = $1 AND token = $2`,
		p.CompanyID, c.token, url)
	if err != nil {
		return fmt.Errorf("finish form token: %w", err)
	}
	return nil
}

// Release gives the token back after a refused submission, so the
// corrected form can be sent again.
func (s *Service) Release(ctx context.Context, p auth.Principal, c Claim) error {
	_, err := s.db.Exec(ctx, `DELETE FROM form_submissions WHERE company_id = $1 AND token = $2 AND result_url IS NULL`,
		p.CompanyID, c.token)
	if err != nil {
		return fmt.Errorf("release form token: %w", err)
	}
	return nil
}

// Purge deletes the claims older than KeepClaims of every company; the
// job runs it on the owner's pool.
func Purge(ctx context.Context, db postgres.DBTX) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM form_submissions WHERE created_at < now() - make_interval(secs => $1)`,
		KeepClaims.Seconds())
	if err != nil {
		return 0, fmt.Errorf("purge old form tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

func userID(p auth.Principal) *uuid.UUID {
	if p.UserID == uuid.Nil {
		return nil
	}
	id := p.UserID
	return &id
}
