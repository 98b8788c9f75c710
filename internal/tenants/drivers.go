package tenants

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// DriverRef is the proof that the guard ran for a request about one driver
// (auth.Ref: company and driver id), with what the areas hanging off a
// driver need of it besides.
type DriverRef struct {
	auth.Ref
	hireDate *civil.Date
}

// HireDate is the driver's hire date, as the guard loaded it.
func (d DriverRef) HireDate() *civil.Date { return d.hireDate }

// AuthorizeDriver is the guard of every request about one driver (the
// driver itself, its documents, finance, penalties and rating): role,
// existence (not soft-deleted), company and own record, in the order of
// auth.Authorize. The lookup is by id alone on purpose: another company's
// driver must answer 403, not 404.
func AuthorizeDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID) (DriverRef, error) {
	var hire *civil.Date
	ref, err := auth.Authorize(ctx, p, a, driverID, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		o := auth.Owner{DriverID: id}
		err := db.QueryRow(ctx, `SELECT company_id, hire_date FROM drivers WHERE id = $1 AND deleted_at IS NULL`, id).
			Scan(&o.CompanyID, &hire)
		if postgres.IsNotFound(err) {
			return o, apperr.NotFound("msg.common.not_found.driver")
		}
		if err != nil {
			return o, fmt.Errorf("load driver %s: %w", id, err)
		}
		return o, nil
	})
	if err != nil {
		return DriverRef{}, err
	}
	return DriverRef{Ref: ref, hireDate: hire}, nil
}
