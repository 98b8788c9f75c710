package fleet

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Who may reach which vehicle or trailer is decided here and in
// internal/holders only (docs/development.md, "Access"), in the check order
// of docs/errors.md: the role (403 Forbidden, before any query), the live
// record (404; another company's, which row-level security hides, 403
// AccessDenied), and for a driver, that the record is in its active
// transport unit (403 AccessDenied).

// fleetKind is the kind of a record, vehicle or trailer, as internal/holders
// names it: the loader's argument and its documents' holder_type.
type fleetKind = holders.FleetKind

// The two kinds.
const (
	vehicleKind = holders.Vehicle
	trailerKind = holders.Trailer
)

// load loads the live record id of the kind for the caller's action a,
// locked until the transaction ends when lock is set (an update or a
// delete), with its summary, readiness and unit, in one statement: the
// role first (403 Forbidden, before any query), then the record of the
// caller's company (none: 404, or 403 AccessDenied when it is another
// company's), then for a driver that it is in the driver's active unit.
func (k kindSpec) load(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (record, error) {
	if err := p.Require(a); err != nil {
		return record{}, err
	}
	r, err := k.loadRow(ctx, db, p.CompanyID, id, lock)
	if errors.Is(err, errNoRecord) {
		return record{}, holders.Hidden(ctx, db, p, k.table, id, k.notFoundErr())
	}
	if err != nil {
		return record{}, err
	}
	if p.Grant(a) == auth.Own && (p.DriverID == nil || r.CurrentUnit == nil || r.CurrentUnit.Driver.ID != *p.DriverID) {
		return record{}, apperr.AccessDenied()
	}
	return r, nil
}

// collection is the check of the company's vehicles or trailers for action
// a (a list, a create): the role, and the driver a caller limited to its
// own is narrowed to (nil: the whole company), who sees the records of its
// active unit only.
func collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	return holders.Collection(p, a)
}

// CheckWrite refuses a caller who may not create, change or delete
// vehicles and trailers (403): a form asks before it shows itself.
func (s *Service) CheckWrite(p auth.Principal) error {
	_, err := collection(p, auth.FleetWrite)
	return err
}
