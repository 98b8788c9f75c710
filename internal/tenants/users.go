package tenants

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
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
	return nil
}

// DirectoryUser is a known user, for the development sign-in page.
type DirectoryUser struct {
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
	rows, err := s.db.Query(ctx, `
		SELECT c.id, c.name, u.external_id, u.email, COALESCE(trim(concat_ws(' ', u.first_name, u.last_name)), ''), u.role
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
