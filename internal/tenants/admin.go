package tenants

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/sessions"
)

// User is a user of the company as its admins see it (docs/security.md,
// "Users"): drivers' users too.
type User struct {
	ID          uuid.UUID
	Email       string
	FirstName   *string
	LastName    *string
	Role        auth.Role
	IsActive    bool
	LastLoginAt *time.Time
	// ActiveSessions is how many web sessions of the user are live (not
	// ended, not past their idle or absolute timeout); bearer tokens are
	// not sessions.
	ActiveSessions int
}

// userColumns are the columns of User on users u, in the order of fields.
var userColumns = `u.id, u.email, u.first_name, u.last_name, u.role, u.is_active, u.last_login_at,
	(SELECT count(*) FROM web_sessions ws WHERE ws.user_id = u.id AND ws.company_id = u.company_id
		AND ws.last_seen_at > now() - make_interval(secs => ` + fmt.Sprint(sessions.IdleTimeout.Seconds()) + `)
		AND ws.created_at > now() - make_interval(secs => ` + fmt.Sprint(sessions.AbsoluteTimeout.Seconds()) + `))::int`

func (u *User) fields() []any {
	return []any{&u.ID, &u.Email, &u.FirstName, &u.LastName, &u.Role, &u.IsActive, &u.LastLoginAt, &u.ActiveSessions}
}

// UserFilter is what the users list asks for.
type UserFilter struct {
	// Search matches the name or the e-mail, ignoring case and accents.
	Search string
	// Role keeps the users of that role ("" for every role).
	Role auth.Role
	// Active keeps the active (true) or deactivated (false) users; nil
	// keeps both.
	Active *bool
	// Page is the numbered page asked for.
	Page paging.Request
}

// likeEscaper escapes LIKE wildcards so a search for "50%" means the text.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// Users lists the caller's company's users, by name then e-mail; read fills
// the filter once the caller may list them (403 before 400).
func (s *Service) Users(ctx context.Context, p auth.Principal, read func(*UserFilter) error) (paging.Page[User], error) {
	if err := manageUsers(p); err != nil {
		return paging.Page[User]{}, err
	}
	var f UserFilter
	if err := read(&f); err != nil {
		return paging.Page[User]{}, err
	}
	where := `u.company_id = $1
		AND ($2 = '' OR konvoj_unaccent(lower(concat_ws(' ', u.first_name, u.last_name, u.email)))
			LIKE '%' || konvoj_unaccent(lower($2)) || '%')
		AND ($3 = '' OR u.role = $3)
		AND ($4::boolean IS NULL OR u.is_active = $4)`
	args := []any{p.CompanyID, likeEscaper.Replace(strings.TrimSpace(f.Search)), string(f.Role), f.Active}
	var (
		total int
		list  []User
	)
	b := &pgx.Batch{}
	b.Queue(`SELECT count(*) FROM users u WHERE `+where, args...).QueryRow(func(row pgx.Row) error {
		return row.Scan(&total)
	})
	b.Queue(`SELECT `+userColumns+` FROM users u WHERE `+where+`
		ORDER BY lower(COALESCE(u.last_name, '')), lower(COALESCE(u.first_name, '')), lower(u.email), u.id
		LIMIT $5 OFFSET $6`, append(args, f.Page.Size, f.Page.Offset())...).Query(func(rows pgx.Rows) error {
		var err error
		list, err = postgres.AppendRows(nil, rows, func(r pgx.Row, u *User) error { return r.Scan(u.fields()...) })
		return err
	})
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return paging.Page[User]{}, fmt.Errorf("list users of company %s: %w", p.CompanyID, err)
	}
	return paging.New(list, total, f.Page), nil
}

// User reads one user of the caller's company (the users page asks before
// a deactivation).
func (s *Service) User(ctx context.Context, p auth.Principal, id uuid.UUID) (User, error) {
	return loadUser(ctx, s.db, p, id, false)
}

// Deactivate refuses user id every request from the next one on, whatever
// its token, and ends its web sessions (the users_end_sessions trigger).
// An admin may not deactivate itself (409).
func (s *Service) Deactivate(ctx context.Context, p auth.Principal, id uuid.UUID) (User, error) {
	return s.setActive(ctx, p, id, false)
}

// Reactivate lets user id in again.
func (s *Service) Reactivate(ctx context.Context, p auth.Principal, id uuid.UUID) (User, error) {
	return s.setActive(ctx, p, id, true)
}

// setActive changes the user's is_active, with an audit row, and drops the
// principals this process holds for it once committed. A user already in
// that state is answered unchanged, with no audit row.
func (s *Service) setActive(ctx context.Context, p auth.Principal, id uuid.UUID, active bool) (User, error) {
	if err := manageUsers(p); err != nil {
		return User{}, err
	}
	var u User
	changed := false
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if u, err = loadUser(ctx, tx, p, id, true); err != nil {
			return err
		}
		if u.ID == p.UserID {
			return apperr.Conflict("msg.users.self")
		}
		if u.IsActive == active {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE users SET is_active = $1, updated_at = now() WHERE id = $2 AND company_id = $3`,
			active, id, p.CompanyID); err != nil {
			return fmt.Errorf("set user %s active %t: %w", id, active, err)
		}
		action := "deactivated"
		if active {
			action = "reactivated"
		}
		changed, u.IsActive = true, active
		if !active {
			u.ActiveSessions = 0 // the trigger ended them with the update
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "user", EntityID: id, Action: action,
			OldValues: map[string]any{"is_active": !active}, NewValues: map[string]any{"is_active": active}})
	})
	if err != nil {
		return User{}, err
	}
	if changed {
		principals.userChanged(id) // after the commit: a request racing it cannot store the old row anew
	}
	return u, nil
}
