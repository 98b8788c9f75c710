package fleet

import (
	"context"

	"github.com/google/uuid"

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
// delete), with its summary, readiness and unit.
func (k kindSpec) load(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (record, error) {
	f, err := holders.LoadFleet(ctx, db, p, a, k.kind, id, lock)
	if err != nil {
		return record{}, err
	}
	return k.loadRow(ctx, db, f.CompanyID, f.ID)
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
