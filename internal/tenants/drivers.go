package tenants

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
// auth.Authorize. Another company's driver must answer 403, not 404: the
// lookup is by id alone, and HiddenOwner finds the driver row-level
// security hides.
func AuthorizeDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID) (DriverRef, error) {
	return AuthorizeDriverWith(ctx, db, p, a, driverID, nil)
}

// AuthorizeDriverWith is AuthorizeDriver whose lookup takes along the
// statements that queue adds to its batch: one round trip for the guard
// and the read it guards instead of two (docs/performance.md, "One round
// trip for a guarded read"). The role check runs before anything is sent;
// the statements run before the record checks, so they must read only the
// caller's company (p.CompanyID, which row-level security enforces too),
// and their results may be used only when the guard returns no error: the
// callbacks of queue keep what they scan, and the caller throws it away on
// an error. A nil queue sends the lookup alone.
func AuthorizeDriverWith(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID, queue func(b *pgx.Batch)) (DriverRef, error) {
	var hire *civil.Date
	ref, err := auth.Authorize(ctx, p, a, driverID, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		o := auth.Owner{DriverID: id}
		found := false
		b := &pgx.Batch{}
		b.Queue(`SELECT company_id, hire_date FROM drivers WHERE id = $1 AND deleted_at IS NULL`, id).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&o.CompanyID, &hire)
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
			return o, fmt.Errorf("load driver %s: %w", id, err)
		}
		if !found {
			return HiddenOwner(ctx, db, p, "drivers", id, apperr.NotFound("msg.common.not_found.driver"))
		}
		return o, nil
	})
	if err != nil {
		return DriverRef{}, err
	}
	return DriverRef{Ref: ref, hireDate: hire}, nil
}

// HiddenOwner is the existence step of a guard whose lookup by id found
// nothing. On the request pool row-level security hides other companies'
// records, yet the check order answers 403 AccessDenied for another
// company's record and 404 only for one that does not exist: so the owner
// of the live row id of table is asked past the policies
// (postgres.CompanyOf). A row of another company gives its owner, which the
// guard then refuses; no such row, or one of the caller's company that the
// lookup left out on purpose (a deleted driver's document), gives notFound.
func HiddenOwner(ctx context.Context, db postgres.DBTX, p auth.Principal, table string, id uuid.UUID, notFound error) (auth.Owner, error) {
	company, found, err := postgres.CompanyOf(ctx, db, table, id)
	if err != nil {
		return auth.Owner{}, err
	}
	if !found || company == p.CompanyID {
		return auth.Owner{}, notFound
	}
	return auth.Owner{CompanyID: company}, nil
}

// AuthorizeCompany is the guard of a record of a company as a whole (its
// rating configuration, its document rules) named by the company's id: the
// role (403 Forbidden), the company exists (404), it is the caller's (403
// AccessDenied).
func AuthorizeCompany(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, companyID uuid.UUID) (auth.Ref, error) {
	return auth.Authorize(ctx, p, a, companyID, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		if id == p.CompanyID {
			return auth.Owner{CompanyID: id}, nil // the caller's company exists: its principal says so
		}
		// Row-level security shows the caller's company only: whether
		// another one exists is asked past it.
		return HiddenOwner(ctx, db, p, "companies", id, apperr.NotFound("msg.common.not_found.company"))
	})
}
