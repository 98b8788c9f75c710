package tenants

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// SetLanguage stores the caller's preferred language (a personal setting:
// no audit row). Only languages the pages speak are accepted.
func (s *Service) SetLanguage(ctx context.Context, p auth.Principal, lang string) error {
	l, ok := i18n.Parse(lang)
	if !ok {
		return apperr.Invalid("language", "msg.common.language")
	}
	tag, err := s.db.Exec(ctx, `UPDATE users SET preferred_language = $1, updated_at = now() WHERE id = $2 AND company_id = $3`,
		string(l), p.UserID, p.CompanyID)
	if err != nil {
		return fmt.Errorf("set language of user %s: %w", p.UserID, err)
	}
	if tag.RowsAffected() == 0 {
		return apperr.NotFound("msg.common.not_found.user")
	}
	principals.userChanged(p.UserID) // the next request speaks the new language
	return nil
}

// DirectoryUser is a known user, for the development sign-in page.
type DirectoryUser struct {
	// Subject signs in as exactly this user: its id as text, which
	// auth.Identity.UserID maps back to the id whatever the row's
	// external_id holds (the just-in-time upsert then updates this row).
	Subject string
	Email   string
	Name    string
	Role    auth.Role
}

// DirectoryCompany is a company with its known users.
type DirectoryCompany struct {
	ID    uuid.UUID
	Name  string
	Users []DirectoryUser
}

// Directory lists companies (oldest first, at most limit) with their users
// by role. It crosses tenants, so only the development sign-in page
// (AUTH_DEV_LOGIN, never on in production) may call it.
func (s *Service) Directory(ctx context.Context, limit int) ([]DirectoryCompany, error) {
	rows, err := s.system.Query(ctx, `
		SELECT c.id, c.name, u.id::text, u.email, COALESCE(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.role
		FROM (SELECT id, name, created_at FROM companies ORDER BY created_at, id LIMIT $1) c
		LEFT JOIN users u ON u.company_id = c.id AND u.is_active
		ORDER BY c.created_at, c.id,
			array_position(ARRAY['admin','hr_manager','accountant','dispatcher','driver'], u.role), u.email`, limit)
	if err != nil {
		return nil, fmt.Errorf("list directory: %w", err)
	}
	defer rows.Close()
	var out []DirectoryCompany
	for rows.Next() {
		var (
			id                      uuid.UUID
			name                    string
			sub, email, uname, role *string
		)
		if err := rows.Scan(&id, &name, &sub, &email, &uname, &role); err != nil {
			return nil, fmt.Errorf("scan directory: %w", err)
		}
		if len(out) == 0 || out[len(out)-1].ID != id {
			out = append(out, DirectoryCompany{ID: id, Name: name})
		}
		if sub != nil {
			c := &out[len(out)-1]
			c.Users = append(c.Users, DirectoryUser{Subject: *sub, Email: deref(email), Name: deref(uname), Role: auth.Role(deref(role))})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list directory: %w", err)
	}
	return out, nil
}

// DevIdentity is the identity the development sign-in uses for an e-mail
// and role in a company. An existing user with that e-mail
// (case-insensitive) and role is reused, the active, named and oldest
// first, so signing in again never makes a second user and a deactivated
// user is refused rather than replaced; otherwise the subject is
// derived from the company, role and e-mail, so the next sign-in with them
// is the user this one creates. Like Directory, it serves only the
// development sign-in page (AUTH_DEV_LOGIN).
func (s *Service) DevIdentity(ctx context.Context, company uuid.UUID, email string, role auth.Role) (auth.Identity, error) {
	id := auth.Identity{CompanyID: company.String(), Email: email, Role: role,
		Subject: "dev|" + company.String() + "|" + string(role) + "|" + strings.ToLower(email)}
	var subject, stored string
	// Like Principal: the lookup sees the named company only.
	err := s.db.QueryRow(postgres.WithCompany(ctx, company), `
		SELECT id::text, email FROM users
		WHERE company_id = $1 AND lower(email) = lower($2) AND role = $3
		ORDER BY NOT is_active, (first_name IS NULL AND last_name IS NULL), created_at, id
		LIMIT 1`, company, email, string(role)).Scan(&subject, &stored)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return id, nil
	case err != nil:
		return auth.Identity{}, fmt.Errorf("find user %s of company %s: %w", email, company, err)
	}
	id.Subject, id.Email = subject, stored
	return id, nil
}
