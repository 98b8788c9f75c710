package webhooks

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to the endpoints (docs/development.md, "Access"): admins only
// (auth.WebhooksManage), and only the caller's company's endpoints.

// manage is the check of the company's endpoints as a collection (the
// list, a create), and the role check a write runs before it opens its
// transaction: 403 Forbidden before any query.
func manage(p auth.Principal) error {
	_, err := holders.Collection(p, auth.WebhooksManage)
	return err
}

// loadEndpoint loads endpoint id for the caller, in the check order of
// docs/errors.md: the role (403 Forbidden), the endpoint exists (404), it is
// the caller's company (403 AccessDenied). lock takes the row's lock for a
// write in db's transaction.
func loadEndpoint(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, lock bool) (Endpoint, error) {
	if err := manage(p); err != nil {
		return Endpoint{}, err
	}
	q := `SELECT company_id, ` + endpointColumns + ` FROM webhook_endpoints WHERE id = $1`
	if lock {
		q += ` FOR UPDATE`
	}
	var (
		e       Endpoint
		company uuid.UUID
	)
	err := db.QueryRow(ctx, q, id).Scan(&company, &e.ID, &e.URL, &e.Events, &e.Enabled, &e.Description, &e.DisabledReason, &e.CreatedAt)
	if postgres.IsNotFound(err) {
		return Endpoint{}, holders.Hidden(ctx, db, p, "webhook_endpoints", id, apperr.NotFound("msg.webhooks.not_found"))
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("load webhook endpoint %s: %w", id, err)
	}
	if err := holders.Reach(p, auth.WebhooksManage, company, uuid.Nil); err != nil {
		return Endpoint{}, err
	}
	e.companyID = company
	return e, nil
}
