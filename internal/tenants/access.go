package tenants

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to the company's users (docs/development.md, "Access"): admins
// only (auth.UsersManage), and only the caller's company's users.

// manageUsers is the check of the company's users as a collection (the
// list), and the role check a change runs before it opens its transaction:
// 403 Forbidden before any query.
func manageUsers(p auth.Principal) error {
	_, err := holders.Collection(p, auth.UsersManage)
	return err
}

// loadUser loads user id for the caller (locked for a change in db's
// transaction when lock is set), in the check order of docs/errors.md: the role (403
// Forbidden), the user exists (404), it is the caller's company (403
// AccessDenied).
func loadUser(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, lock bool) (User, error) {
	if err := manageUsers(p); err != nil {
		return User{}, err
	}
	var (
		u       User
		company uuid.UUID
	)
	q := `SELECT company_id, ` + userColumns + ` FROM users u WHERE u.id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	err := db.QueryRow(ctx, q, id).
		Scan(append([]any{&company}, u.fields()...)...)
	if postgres.IsNotFound(err) {
		return User{}, holders.Hidden(ctx, db, p, "users", id, apperr.NotFound("msg.common.not_found.user"))
	}
	if err != nil {
		return User{}, fmt.Errorf("load user %s: %w", id, err)
	}
	if err := holders.Reach(p, auth.UsersManage, company, uuid.Nil); err != nil {
		return User{}, err
	}
	return u, nil
}
