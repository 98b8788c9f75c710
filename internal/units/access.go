package units

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Who may reach which transport unit is decided here and in
// internal/holders only (docs/development.md, "Access"), in the check order
// of docs/errors.md: the role (403 Forbidden, before any query), the unit
// (404; another company's, which row-level security hides, 403
// AccessDenied), and for a driver, that the unit is its own (403
// AccessDenied).

// The actions of the units.
const (
	readUnits  = auth.UnitsRead
	writeUnits = auth.UnitsWrite
)

// loadUnit loads unit id for the caller's action a, locked until the
// transaction ends when lock is set.
func loadUnit(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (Unit, error) {
	if err := p.Require(a); err != nil {
		return Unit{}, err
	}
	u, found, err := unitRow(ctx, db, id, lock)
	if err != nil {
		return Unit{}, err
	}
	if !found {
		return Unit{}, holders.Hidden(ctx, db, p, "transport_units", id, apperr.NotFound("msg.common.not_found.unit"))
	}
	if err := holders.Reach(p, a, u.companyID, u.Driver.ID); err != nil {
		return Unit{}, err
	}
	return u, nil
}

// collection is the check of the company's units for action a (a list, an
// assignment, the free records): the role, and the driver a caller
// limited to its own is narrowed to (nil: the whole company).
func collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	return holders.Collection(p, a)
}

// loadDriver checks the caller may read driver id's readiness: a driver
// caller its own only.
func loadDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID) (holders.Driver, error) {
	return holders.LoadDriver(ctx, db, p, readUnits, id)
}

// part is a driver, vehicle or trailer named by an assignment's body.
type part struct {
	ID     uuid.UUID
	Status string
	Type   string
	Number string
}

// loadPart loads the live driver, vehicle or trailer id (table drivers,
// vehicles, trailers) of the caller's company that an assignment names,
// share-locked so that a concurrent termination or sale waits for the
// assignment: 404 when there is none, 403 AccessDenied for another
// company's.
func loadPart(ctx context.Context, db postgres.DBTX, p auth.Principal, table string, id uuid.UUID) (part, error) {
	typ := "type"
	if table == "drivers" {
		typ = "''"
	}
	r := part{ID: id}
	err := db.QueryRow(ctx, `SELECT status, `+typ+`, internal_number FROM `+table+`
		WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL FOR SHARE`, p.CompanyID, id).Scan(&r.Status, &r.Type, &r.Number)
	if postgres.IsNotFound(err) {
		return part{}, holders.Hidden(ctx, db, p, table, id, notFoundOf(table))
	}
	if err != nil {
		return part{}, fmt.Errorf("load %s %s: %w", table, id, err)
	}
	return r, nil
}

// notFoundOf is the 404 of a missing driver, vehicle or trailer.
func notFoundOf(table string) error {
	switch table {
	case "drivers":
		return apperr.NotFound("msg.common.not_found.driver")
	case "vehicles":
		return apperr.NotFound("msg.common.not_found.vehicle")
	}
	return apperr.NotFound("msg.common.not_found.trailer")
}
