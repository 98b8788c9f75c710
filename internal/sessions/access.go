package sessions

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to the web sessions (docs/development.md, "Access"): every role
// may list and end its own user's sessions (auth.SessionsOwn); the service
// never looks at another user's.

// mine is the check of the caller's sessions as a collection (the list,
// ending the others): the role (403 Forbidden).
func mine(p auth.Principal) error {
	_, err := holders.Collection(p, auth.SessionsOwn)
	return err
}

// loadSession loads session id of the caller's user, in the check order of
// docs/errors.md: the role (403 Forbidden), the session exists and is the
// caller's user's (404: another user's session is not shown to exist),
// another company's is 403 AccessDenied.
func loadSession(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID) (Session, error) {
	if err := mine(p); err != nil {
		return Session{}, err
	}
	notFound := apperr.NotFound("msg.common.not_found.session")
	var x Session
	err := db.QueryRow(ctx, `SELECT id, company_id, user_id, user_agent, ip_address, created_at, last_seen_at
		FROM web_sessions WHERE id = $1 AND company_id = $2`, id, p.CompanyID).
		Scan(&x.ID, &x.CompanyID, &x.UserID, &x.UserAgent, &x.IPAddress, &x.CreatedAt, &x.LastSeenAt)
	if postgres.IsNotFound(err) {
		return Session{}, holders.Hidden(ctx, db, p, "web_sessions", id, notFound)
	}
	if err != nil {
		return Session{}, fmt.Errorf("load session %s: %w", id, err)
	}
	if x.UserID != p.UserID {
		return Session{}, notFound
	}
	return x, nil
}
