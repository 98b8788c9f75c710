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
// for a driver caller, the caller's own record (403 AccessDenied). The
// lookup is by id alone on purpose: another company's driver must answer
// 403, not 404.
func CheckDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID) (DriverRef, error) {
	if err := p.Require(a); err != nil {
		return DriverRef{}, err
	}
	d := DriverRef{ID: driverID}
	err := db.QueryRow(ctx, `SELECT company_id, hire_date FROM drivers WHERE id = $1 AND deleted_at IS NULL`, driverID).
		Scan(&d.CompanyID, &d.HireDate)
	if postgres.IsNotFound(err) {
		return DriverRef{}, apperr.NotFound("msg.common.not_found.driver")
	}
	if err != nil {
		return DriverRef{}, fmt.Errorf("load driver %s: %w", driverID, err)
	}
	if err := p.CheckDriver(a, d.CompanyID, driverID); err != nil {
		return DriverRef{}, err
	}
	return d, nil
}
