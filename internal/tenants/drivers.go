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

// DriverRef is the driver a request is about, as far as the tenancy checks
// and the services hanging off a driver need it.
type DriverRef struct {
	ID        uuid.UUID
	CompanyID uuid.UUID
	HireDate  *civil.Date
}

// CheckDriver runs the first checks of every request about one driver
// (docs/errors.md): the role may do the action at all (403 Forbidden), the
// driver exists and is not deleted (404), it is the caller's company and,
// for a driver caller, the caller's own record (403 AccessDenied). Another
// company's driver must answer 403, not 404: row-level security hides it
// from the lookup, and Missing tells the two apart.
func CheckDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID) (DriverRef, error) {
	if err := p.Require(a); err != nil {
		return DriverRef{}, err
	}
	d := DriverRef{ID: driverID}
	err := db.QueryRow(ctx, `SELECT company_id, hire_date FROM drivers WHERE id = $1 AND deleted_at IS NULL`, driverID).
		Scan(&d.CompanyID, &d.HireDate)
	if postgres.IsNotFound(err) {
		return DriverRef{}, Missing(ctx, db, p, "drivers", driverID, apperr.NotFound("msg.common.not_found.driver"))
	}
	if err != nil {
		return DriverRef{}, fmt.Errorf("load driver %s: %w", driverID, err)
	}
	if err := p.CheckDriver(a, d.CompanyID, driverID); err != nil {
		return DriverRef{}, err
	}
	return d, nil
}

// Missing refines err, a caller's query not finding the record id of
// table: when err is a 404 and the record is a live one of another company
// (hidden by row-level security, or filtered out by the query), the answer
// is 403 AccessDenied, since existence is checked before tenancy. Any other
// err is returned as it is.
func Missing(ctx context.Context, db postgres.DBTX, p auth.Principal, table string, id uuid.UUID, err error) error {
	if apperr.KindOf(err) != apperr.KindNotFound {
		return err
	}
	company, found, cerr := postgres.CompanyOf(ctx, db, table, id)
	if cerr != nil {
		return cerr
	}
	if found && company != p.CompanyID {
		return apperr.AccessDenied()
	}
	return err
}
