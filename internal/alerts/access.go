package alerts

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to the notifications and the outbox (docs/development.md,
// "Access"): every user reaches its own notifications and e-mail choices
// (auth.NotificationsOwn), never another user's; the outbox is the
// company's (auth.OutboxRead).

// mine is the check of the caller's notifications as a collection (the
// list, the bell, mark all read, the settings): the role (403 Forbidden).
func mine(p auth.Principal) error {
	_, err := holders.Collection(p, auth.NotificationsOwn)
	return err
}

// loadNotification loads notification id of the caller's user, in the
// check order of docs/errors.md: the role (403 Forbidden), the notification
// exists and is the caller's user's (404: another user's is not shown to
// exist), another company's is 403 AccessDenied. It returns whether the
// notification is read already.
func loadNotification(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID) (read bool, err error) {
	if err := mine(p); err != nil {
		return false, err
	}
	notFound := apperr.NotFound("msg.common.not_found.notification")
	var owner uuid.UUID
	err = db.QueryRow(ctx, `SELECT user_id, read_at IS NOT NULL FROM notifications WHERE id = $1 AND company_id = $2`,
		id, p.CompanyID).Scan(&owner, &read)
	if postgres.IsNotFound(err) {
		return false, holders.Hidden(ctx, db, p, "notifications", id, notFound)
	}
	if err != nil {
		return false, fmt.Errorf("load notification %s: %w", id, err)
	}
	if owner != p.UserID {
		return false, notFound
	}
	return read, nil
}

// outbox is the check of the company's outbox as a collection: the role
// (403 Forbidden). The outbox holds mail to every admin, HR manager and
// driver of the company.
func outbox(p auth.Principal) error {
	_, err := holders.Collection(p, auth.OutboxRead)
	return err
}

// loadOutboxHTML loads the HTML part of e-mail id of the caller's
// company's outbox: the role (403 Forbidden), the e-mail exists (404),
// another company's is 403 AccessDenied.
func loadOutboxHTML(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID) (string, error) {
	if err := outbox(p); err != nil {
		return "", err
	}
	var html string
	err := db.QueryRow(ctx, `SELECT html_body FROM outbox WHERE company_id = $1 AND id = $2`, p.CompanyID, id).Scan(&html)
	if postgres.IsNotFound(err) {
		return "", holders.Hidden(ctx, db, p, "outbox", id, apperr.NotFound("msg.outbox.not_found"))
	}
	if err != nil {
		return "", fmt.Errorf("outbox e-mail %s: %w", id, err)
	}
	return html, nil
}
