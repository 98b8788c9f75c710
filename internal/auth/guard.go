package auth

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
)

// How a request is checked (docs/development.md):
// every area's guard is built on Authorize (one record) or Principal.Scope
// (a collection, or a create into one). The guard answers in the order of
// the project's error rules: the role may do this kind of action at all
// (403 Forbidden), the record exists (404 NotFound), it is the caller's
// company and, for a driver caller, its own record (403 AccessDenied). What
// it returns, a Ref, is the proof the services and stores require.

// Owner is what a guard loaded about a record: its company and, for a record
// that hangs off a driver (the driver itself, its documents, transactions,
// penalties, rating), that driver. DriverID is uuid.Nil for a record of the
// company as a whole (its rating configuration).
type Owner struct {
	CompanyID uuid.UUID
	DriverID  uuid.UUID
}

// Loader loads the owner of one record by id, ignoring the company on
// purpose (another company's record must answer 403, not 404); a record that
// does not exist or is soft-deleted is apperr.NotFound.
type Loader func(ctx context.Context, id uuid.UUID) (Owner, error)

// Ref is the proof that the guard ran for one record or a collection. Its
// fields are unexported: only Authorize and Scope make one, so a service or
// store that takes a Ref cannot be reached around the checks.
type Ref struct {
	company uuid.UUID
	id      uuid.UUID // the record; uuid.Nil for a collection
	driver  uuid.UUID // the record's driver, or the caller's own for an own-only collection
	own     bool      // a collection the caller sees only its own driver's part of
}

// errNoGuard is a programming mistake: a service got a Ref no guard made.
var errNoGuard = errors.New("auth: the request was not authorized (zero Ref)")

// Authorize is the guard of one record: role (403 Forbidden), existence
// (load: 404 NotFound, also for uuid.Nil, which is what web.PathID makes of
// a path id that is not a UUID), tenancy and own driver (403 AccessDenied).
func Authorize(ctx context.Context, p Principal, a Action, id uuid.UUID, load Loader) (Ref, error) {
	if err := p.Require(a); err != nil {
		return Ref{}, err
	}
	o, err := load(ctx, id)
	if err != nil {
		return Ref{}, err
	}
	r := Ref{company: o.CompanyID, id: id, driver: o.DriverID}
	if err := r.checkRecord(p, a); err != nil {
		return Ref{}, err
	}
	return r, nil
}

// checkRecord is the tenancy check of one record: another company is 403
// AccessDenied, and so is another driver's record for a caller limited to
// its own. A company record (no driver) is checked by company only.
func (r Ref) checkRecord(p Principal, a Action) error {
	if r.driver == uuid.Nil {
		return p.CheckCompany(r.company)
	}
	return p.CheckDriver(a, r.company, r.driver)
}

// Scope is the guard of a collection of the caller's company (a list, a
// ranking, a create): the role check only. For a role limited to its own
// record the Ref narrows the collection to the caller's driver, and to
// nothing when the caller is linked to no driver record.
func (p Principal) Scope(a Action) (Ref, error) {
	if err := p.Require(a); err != nil {
		return Ref{}, err
	}
	r := Ref{company: p.CompanyID, own: p.Grant(a) == Own}
	if r.own && p.DriverID != nil {
		r.driver = *p.DriverID
	}
	return r, nil
}

// Check is the service's own permission check on a Ref: it re-runs the role
// and tenancy checks of action a against the facts the guard loaded, without
// a query. A Ref made for one action may serve another the caller also may
// do (a page that edits a driver reads it first).
func (r Ref) Check(p Principal, a Action) error {
	if r.company == uuid.Nil {
		return errNoGuard
	}
	if err := p.Require(a); err != nil {
		return err
	}
	if r.id == uuid.Nil {
		if r.company != p.CompanyID || (p.Grant(a) == Own && !r.own) {
			return apperr.AccessDenied()
		}
		return nil
	}
	return r.checkRecord(p, a)
}

// CompanyID is the company of the record or collection.
func (r Ref) CompanyID() uuid.UUID { return r.company }

// ID is the record's id (uuid.Nil for a collection).
func (r Ref) ID() uuid.UUID { return r.id }

// DriverID is the driver the record hangs off (uuid.Nil for a company
// record); for an own-only collection, the caller's driver (uuid.Nil when
// the caller is linked to none, so the collection is empty).
func (r Ref) DriverID() uuid.UUID { return r.driver }

// OwnOnly reports whether a collection is narrowed to DriverID.
func (r Ref) OwnOnly() bool { return r.own }

// Only is the driver an own-only collection is narrowed to, as a query
// argument: nil when the collection is the whole company's. A caller linked
// to no driver gets uuid.Nil, which matches no row.
func (r Ref) Only() *uuid.UUID {
	if !r.own {
		return nil
	}
	d := r.driver
	return &d
}
