package drivers

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Who may reach which driver, and what of it they see, is decided here and
// in internal/holders only (docs/development.md, "Access"). The loaders keep
// the check order of docs/errors.md: the role (403 Forbidden, before any
// query), the live driver (404; another company's, which row-level security
// hides, 403 AccessDenied), the own record of a caller limited to its own
// (403 AccessDenied).

// loadDriver loads the live driver id for the caller's action a, once: the
// full record, locked until the transaction ends when lock is set (an
// update or delete). The happy path is one statement; only when it finds
// no row is the owner asked for, to tell 403 from 404.
func loadDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (Driver, error) {
	if err := p.Require(a); err != nil {
		return Driver{}, err
	}
	var d Driver
	found := false
	b := &pgx.Batch{}
	queueDriver(b, p.CompanyID, id, lock, &d, &found)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Driver{}, fmt.Errorf("load driver %s: %w", id, err)
	}
	return reached(ctx, db, p, id, d, found, a)
}

// readDriver loads the live driver id with its documents as the caller
// may see them, in one round trip, for the caller's action a and reading
// (auth.DriversRead; a page that edits or deletes a driver shows it
// first). The documents are read before the record checks have run: they
// are of the caller's company only and are dropped with the driver when a
// check fails.
func readDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (Driver, error) {
	if err := p.Require(a); err != nil {
		return Driver{}, err
	}
	var d Driver
	found := false
	b := &pgx.Batch{}
	queueDriver(b, p.CompanyID, id, false, &d, &found)
	if grant := p.Grant(auth.DocumentsList); grant != auth.Deny {
		documents.QueueForDriver(b, p.CompanyID, id, p.Today(), grant != auth.NoFiles, &d.Documents)
	}
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return Driver{}, fmt.Errorf("read driver %s: %w", id, err)
	}
	return reached(ctx, db, p, id, d, found, a, auth.DriversRead)
}

// reached is the record step of the loaders: a driver the lookup did not
// find is another company's (403) or none (404); a found one must be
// reachable for every action of as.
func reached(ctx context.Context, db postgres.DBTX, p auth.Principal, id uuid.UUID, d Driver, found bool, as ...auth.Action) (Driver, error) {
	if !found {
		return Driver{}, holders.Hidden(ctx, db, p, "drivers", id, apperr.NotFound("msg.common.not_found.driver"))
	}
	for _, a := range as {
		if err := holders.Reach(p, a, d.CompanyID, d.ID); err != nil {
			return Driver{}, err
		}
	}
	return d, nil
}

// collection is the check of a collection of the caller's company for
// action a (a list, an export, a count, a create, an import): the role,
// and the driver a caller limited to its own is narrowed to (nil: the
// whole company).
func collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	return holders.Collection(p, a)
}

// CheckCreate refuses a caller who may not create drivers (403): the
// create form asks before it shows itself, as the create does.
func (s *Service) CheckCreate(p auth.Principal) error {
	_, err := collection(p, auth.DriversCreate)
	return err
}

// checkOwnFields refuses an update of other than the caller's own fields
// (the phone, the addresses, the bank fields) by a caller limited to its
// own record: 403 Forbidden.
func checkOwnFields(p auth.Principal, in Input) error {
	if p.Grant(auth.DriversUpdate) != auth.Own {
		return nil
	}
	return checkDriverFields(in)
}

// EditableFields are the fields the caller may change on a driver's
// record: nil for all of them, the own fields for a caller limited to its
// own record (the edit form shows only those).
func EditableFields(p auth.Principal) map[string]bool {
	if p.Grant(auth.DriversUpdate) == auth.Own {
		return auth.DriverEditableFields
	}
	return nil
}

// personalShown reports whether the caller may read the personal fields
// (auth.PersonalFields, docs/permissions.md).
func personalShown(p auth.Principal) bool { return p.Grant(auth.DriversPersonal) != auth.Deny }

// expiryShown reports whether the caller may see which document of a
// driver expires when (the next expiry): those who may list documents; a
// role that may not (the accountant) sees the counts by status only.
func expiryShown(p auth.Principal) bool { return p.Grant(auth.DocumentsList) != auth.Deny }

// forCaller withholds the personal fields from a caller who may not read
// them: the values are cleared here, in the service, so no front can show
// them, and MarshalJSON leaves their keys out.
func (d Driver) forCaller(p auth.Principal) Driver {
	if personalShown(p) {
		return d
	}
	d.BirthDate, d.RodneCislo, d.RegistrationAddress, d.ResidenceAddress = nil, nil, nil, nil
	d.BankCountry, d.BankAccount, d.IBAN, d.SWIFT = nil, nil, nil, nil
	d.personalHidden = true
	return d
}
