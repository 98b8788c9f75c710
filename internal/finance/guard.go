package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
)

// Record is the kind of record a finance path names besides the driver.
type Record string

// The records of a driver's finance.
const (
	TransactionRecord Record = "transaction"
	PeriodRecord      Record = "period"
	PenaltyRecord     Record = "penalty"
)

// Ref is the proof that the finance guard ran: the driver's (company,
// driver, hire date) and, from AuthorizeRecord, one record of that driver.
type Ref struct {
	tenants.DriverRef
	kind   Record
	record uuid.UUID
}

// Authorize is the finance area's guard for a driver's transactions,
// periods, aggregates and penalties as a whole (the drivers' guard,
// tenants.AuthorizeDriver).
func (s *Service) Authorize(ctx context.Context, p auth.Principal, a auth.Action, driverID uuid.UUID) (Ref, error) {
	d, err := tenants.AuthorizeDriver(ctx, s.db, p, a, driverID)
	if err != nil {
		return Ref{}, err
	}
	return Ref{DriverRef: d}, nil
}

// AuthorizeRecord is the guard for one record of the driver (a path with
// two ids): Authorize, then the record must be one of that driver's, not
// deleted (404 otherwise, before the input is read).
func (s *Service) AuthorizeRecord(ctx context.Context, p auth.Principal, a auth.Action, driverID uuid.UUID, kind Record, id uuid.UUID) (Ref, error) {
	r, err := s.Authorize(ctx, p, a, driverID)
	if err != nil {
		return Ref{}, err
	}
	companyID, driver := r.CompanyID(), r.ID()
	switch kind {
	case TransactionRecord:
		_, err = getTransaction(ctx, s.db, companyID, driver, id, false)
	case PenaltyRecord:
		_, err = getPenalty(ctx, s.db, companyID, driver, id, false)
	case PeriodRecord:
		err = periodExists(ctx, s.db, companyID, driver, id)
	default:
		err = fmt.Errorf("finance: unknown record kind %q", kind)
	}
	if err != nil {
		return Ref{}, err
	}
	r.kind, r.record = kind, id
	return r, nil
}

// check is a service method's own check of its Ref: the role and tenancy
// checks of action a again (auth.Ref.Check) and, for a method about one
// record, that the guard loaded a record of that kind.
func (r Ref) check(p auth.Principal, a auth.Action, kind Record) (uuid.UUID, error) {
	if err := r.Check(p, a); err != nil {
		return uuid.Nil, err
	}
	if r.kind != kind {
		return uuid.Nil, fmt.Errorf("finance: a %q guard was given where a %q one is needed", r.kind, kind)
	}
	return r.record, nil
}

// AuthorizePenalty is the guard of a path that names a penalty by its id
// alone (its evidence files): the role may do the action (403 Forbidden),
// the penalty exists (404), it is the caller's company (403 AccessDenied);
// then the penalty's driver goes through AuthorizeRecord, so a driver
// caller reaches only its own penalties (403 AccessDenied).
func (s *Service) AuthorizePenalty(ctx context.Context, p auth.Principal, a auth.Action, penaltyID uuid.UUID) (Ref, error) {
	if err := p.Require(a); err != nil {
		return Ref{}, err
	}
	// By id alone on purpose: another company's penalty is 403, not 404
	// (tenants.HiddenOwner finds it past row-level security).
	var driverID uuid.UUID
	err := s.db.QueryRow(ctx, `SELECT driver_id FROM penalties WHERE id = $1 AND deleted_at IS NULL`, penaltyID).Scan(&driverID)
	if postgres.IsNotFound(err) {
		o, err := tenants.HiddenOwner(ctx, s.db, p, "penalties", penaltyID, apperr.NotFound("msg.common.not_found.penalty"))
		if err != nil {
			return Ref{}, err
		}
		return Ref{}, p.CheckCompany(o.CompanyID)
	}
	if err != nil {
		return Ref{}, fmt.Errorf("find penalty %s: %w", penaltyID, err)
	}
	return s.AuthorizeRecord(ctx, p, a, driverID, PenaltyRecord, penaltyID)
}
