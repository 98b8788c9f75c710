// Package holders loads, for a caller, the records that other records hang
// off (a driver and everything of theirs: documents, finance, penalties,
// rating; a company and its settings) and decides whether the caller may
// reach them, in the check order of docs/errors.md: the role may do the
// action at all (403 Forbidden), the record exists (404 NotFound), it is the
// caller's company and, for a caller limited to its own record, its own
// (403 AccessDenied).
//
// The areas' stores call these when they load a record of a driver or of a
// company for a caller (docs/development.md, "Access"); nothing else decides
// access.
package holders

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Driver is a live (not soft-deleted) driver the caller may reach for an
// action, with what the areas that hang off a driver need of it.
type Driver struct {
	ID        uuid.UUID
	CompanyID uuid.UUID
	// HireDate is the driver's hire date: finance dates and the rating
	// months start there.
	HireDate *civil.Date
}

// LoadDriver loads driver id for the caller's action a: role, existence,
// company and own record, in that order.
func LoadDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (Driver, error) {
	return LoadDriverWith(ctx, db, p, a, id, nil)
}

// LoadDriverWith is LoadDriver whose lookup takes along the statements that
// queue adds to its batch: one round trip for the driver and the read that
// needs it (docs/performance.md, "One round trip for a guarded read"). The
// role check runs before anything is sent; the queued statements run before
// the record checks, so they must read only the caller's company
// (p.CompanyID, which row-level security enforces too), and their results
// may be used only when LoadDriverWith returns no error. A nil queue sends
// the lookup alone.
func LoadDriverWith(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, queue func(b *pgx.Batch)) (Driver, error) {
	if err := p.Require(a); err != nil {
		return Driver{}, err
	}
	d := Driver{ID: id}
	found := false
	b := &pgx.Batch{}
	b.Queue(`SELECT company_id, hire_date FROM drivers WHERE id = $1 AND deleted_at IS NULL`, id).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&d.CompanyID, &d.HireDate)
		if postgres.IsNotFound(err) {
			return nil
		}
		found = err == nil
		return err
	})
	if queue != nil {
		queue(b)
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Driver{}, fmt.Errorf("load driver %s: %w", id, err)
	}
	if !found {
		return Driver{}, Hidden(ctx, db, p, "drivers", id, apperr.NotFound("msg.common.not_found.driver"))
	}
	if err := p.CheckDriver(a, d.CompanyID, d.ID); err != nil {
		return Driver{}, err
	}
	return d, nil
}

// Reach is the record step of a loader that found the row itself (a
// document, a penalty, a transaction, with its driver): the role may do the
// action, and the row is of the caller's company and, for a caller limited
// to its own record, of its own driver. driverID is uuid.Nil for a record of
// the company as a whole.
func Reach(p auth.Principal, a auth.Action, companyID, driverID uuid.UUID) error {
	if err := p.Require(a); err != nil {
		return err
	}
	if driverID == uuid.Nil {
		return p.CheckCompany(companyID)
	}
	return p.CheckDriver(a, companyID, driverID)
}

// Hidden is the answer of a loader whose lookup by id found nothing. On the
// request pool row-level security hides other companies' rows, yet the check
// order answers 403 AccessDenied for another company's record and 404 only
// for one that does not exist: so the owner of the live row id of table is
// asked past the policies (postgres.CompanyOf). A row of another company is
// AccessDenied; no such row, or one of the caller's company that the lookup
// left out on purpose (a deleted driver's document), is notFound.
func Hidden(ctx context.Context, db postgres.DBTX, p auth.Principal, table string, id uuid.UUID, notFound error) error {
	company, found, err := postgres.CompanyOf(ctx, db, table, id)
	if err != nil {
		return err
	}
	if !found || company == p.CompanyID {
		return notFound
	}
	return apperr.AccessDenied()
}

// Company checks a record of a company as a whole (its rating
// configuration, its document rules, its month-end) named by the company's
// id: the role (403 Forbidden), the company exists (404), it is the
// caller's (403 AccessDenied).
func Company(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, companyID uuid.UUID) error {
	if err := p.Require(a); err != nil {
		return err
	}
	if companyID == p.CompanyID {
		return nil // the caller's company exists: its principal says so
	}
	return Hidden(ctx, db, p, "companies", companyID, apperr.NotFound("msg.common.not_found.company"))
}

// Collection is the check of a collection of the caller's company (a list,
// a ranking, an export, a create into it): the role may do the action (403
// Forbidden). For a role limited to its own record, only is the caller's
// driver (uuid.Nil, which matches no row, when the caller is linked to
// none); for the others only is nil: the whole company.
func Collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	if err := p.Require(a); err != nil {
		return nil, err
	}
	if p.Grant(a) != auth.Own {
		return nil, nil
	}
	d := uuid.Nil
	if p.DriverID != nil {
		d = *p.DriverID
	}
	return &d, nil
}
