package holders

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// FleetKind is the kind of a fleet record: a vehicle or a trailer. It is
// also the holder_type of their documents (docs/fleet.md).
type FleetKind string

// The fleet's kinds.
const (
	Vehicle FleetKind = "vehicle"
	Trailer FleetKind = "trailer"
)

// table is where records of the kind live; column is a transport unit's
// column that names one.
func (k FleetKind) table() string  { return string(k) + "s" }
func (k FleetKind) column() string { return string(k) + "_id" }

// notFound is the 404 of a missing record of the kind.
func (k FleetKind) notFound() error {
	if k == Trailer {
		return apperr.NotFound("msg.common.not_found.trailer")
	}
	return apperr.NotFound("msg.common.not_found.vehicle")
}

// Fleet is a live (not soft-deleted) vehicle or trailer the caller may
// reach for an action, with what its documents' rules need of it.
type Fleet struct {
	ID        uuid.UUID
	CompanyID uuid.UUID
	Kind      FleetKind
	// Type is the vehicle's (lkv, pkv) or the trailer's (standard, frigo, …).
	Type string
	// Tags select the tag: requirements of its documents' rules.
	Tags []string
}

// LoadFleet loads vehicle or trailer id for the caller's action a: the
// role (403 Forbidden, before any query), existence (404), the caller's
// company (403 AccessDenied) and, for a role limited to its own records (a
// driver), that it is in the caller's active transport unit (403
// AccessDenied otherwise). With lock the row stays locked for the rest of
// db's transaction.
func LoadFleet(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, kind FleetKind, id uuid.UUID, lock bool) (Fleet, error) {
	if err := p.Require(a); err != nil {
		return Fleet{}, err
	}
	if kind != Vehicle && kind != Trailer {
		return Fleet{}, fmt.Errorf("load fleet record %s: unknown kind %q", id, kind)
	}
	f := Fleet{ID: id, Kind: kind}
	var inOwnUnit bool
	sql := `SELECT r.company_id, r.type, r.tags,
			EXISTS (SELECT FROM transport_units u WHERE u.` + kind.column() + ` = r.id AND u.driver_id = $2
				AND u.unassigned_at IS NULL AND u.deleted_at IS NULL)
		FROM ` + kind.table() + ` r WHERE r.id = $1 AND r.deleted_at IS NULL`
	if lock {
		sql += ` FOR UPDATE OF r`
	}
	err := db.QueryRow(ctx, sql, id, p.DriverID).Scan(&f.CompanyID, &f.Type, &f.Tags, &inOwnUnit)
	if postgres.IsNotFound(err) {
		return Fleet{}, Hidden(ctx, db, p, kind.table(), id, kind.notFound())
	}
	if err != nil {
		return Fleet{}, fmt.Errorf("load %s %s: %w", kind, id, err)
	}
	if err := p.CheckCompany(f.CompanyID); err != nil {
		return Fleet{}, err
	}
	if p.Grant(a) == auth.Own && !inOwnUnit {
		return Fleet{}, apperr.AccessDenied()
	}
	return f, nil
}
