package drivers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// entityType is the audit log's name for drivers.
const entityType = "driver"

// Authorize is the drivers area's guard (tenants.AuthorizeDriver): the
// role may do the action, the driver exists, it is the caller's company and,
// for a driver caller, its own record. Handlers call it before they read the
// request's input; the Ref it returns is what the other methods take.
// Collections and creates are guarded by Principal.Scope.
func (s *Service) Authorize(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (auth.Ref, error) {
	d, err := tenants.AuthorizeDriver(ctx, s.db, p, a, id)
	return d.Ref, err
}

// Create adds a driver with the next DRV- number and its 14 empty document
// records, and audits it, in one transaction. company is the caller's
// company as Principal.Scope(auth.DriversCreate) proved it.
func (s *Service) Create(ctx context.Context, p auth.Principal, company auth.Ref, in Input) (Driver, error) {
	if err := company.Check(p, auth.DriversCreate); err != nil {
		return Driver{}, err
	}
	d := Driver{CompanyID: company.CompanyID(), Status: "active", Flags: json.RawMessage(`{}`), Tags: []string{}}
	if err := s.validate(ctx, company.CompanyID(), in, &d, true, nil); err != nil {
		return Driver{}, err
	}
	var out Driver
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		id, err := Insert(ctx, tx, d)
		if err != nil {
			return err
		}
		if out, err = getDriver(ctx, tx, company, id, false); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: id, Action: "created", NewValues: out.auditValues()}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, company.CompanyID(), webhooks.DriverCreated, out)
	})
	if err != nil {
		return Driver{}, err
	}
	tenants.CompanyChanged(company.CompanyID()) // a driver caller with its e-mail is linked to it now
	return out.forCaller(p), nil
}

// Get returns the full driver with its documents: with files for callers
// who may list documents, statuses only for the dispatcher, and without the
// documents for roles that may not list them (the accountant).
func (s *Service) Get(ctx context.Context, p auth.Principal, ref auth.Ref) (Driver, error) {
	if err := ref.Check(p, auth.DriversRead); err != nil {
		return Driver{}, err
	}
	d, found, err := s.readWithDocuments(ctx, p, ref.CompanyID(), ref.ID())
	if err != nil {
		return Driver{}, err
	}
	if !found {
		return Driver{}, apperr.NotFound("msg.common.not_found.driver") // deleted since the guard
	}
	return d.forCaller(p), nil
}

// Read is Authorize and Get in one, for a request that reads one driver
// (GET /drivers/{id}): the guard's existence and company checks look at the
// driver row Get returns, so the whole answer takes one round trip. The
// checks and their order are the guard's (tenants.AuthorizeDriver): the
// role, then the live driver by id (another company's row, which the
// company filter and row-level security leave out, is found by
// tenants.HiddenOwner: 403, not 404), then the company and own record.
func (s *Service) Read(ctx context.Context, p auth.Principal, id uuid.UUID) (Driver, error) {
	var d Driver
	_, err := auth.Authorize(ctx, p, auth.DriversRead, id, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		var found bool
		var err error
		if d, found, err = s.readWithDocuments(ctx, p, p.CompanyID, id); err != nil {
			return auth.Owner{}, err
		}
		if !found {
			return tenants.HiddenOwner(ctx, s.db, p, "drivers", id, apperr.NotFound("msg.common.not_found.driver"))
		}
		return auth.Owner{CompanyID: d.CompanyID, DriverID: d.ID}, nil
	})
	if err != nil {
		return Driver{}, err
	}
	return d.forCaller(p), nil
}

// readWithDocuments loads the company's live driver id with its documents
// as the caller may see them, in one round trip; found is false when the
// company has no such driver. The documents are read before the caller's
// record checks have run (Read): the caller uses them only when those pass.
func (s *Service) readWithDocuments(ctx context.Context, p auth.Principal, companyID, id uuid.UUID) (d Driver, found bool, err error) {
	b := &pgx.Batch{}
	queueDriver(b, companyID, id, false, &d, &found)
	if grant := p.Grant(auth.DocumentsList); grant != auth.Deny {
		documents.QueueForDriver(b, companyID, id, p.Today(), grant != auth.NoFiles, &d.Documents)
	}
	if err := s.db.SendBatch(ctx, b).Close(); err != nil {
		return Driver{}, false, fmt.Errorf("read driver %s: %w", id, err)
	}
	return d, found, nil
}

// Update changes the fields present in the input (a partial update) and
// audits the changed fields only. A driver caller may change its own phone,
// addresses and bank fields; any other driver field is 403 Forbidden.
// An update that changes nothing writes nothing and returns the driver.
func (s *Service) Update(ctx context.Context, p auth.Principal, ref auth.Ref, in Input) (Driver, error) {
	if err := ref.Check(p, auth.DriversUpdate); err != nil {
		return Driver{}, err
	}
	id := ref.ID()
	var out Driver
	emailChanged := false
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := getDriver(ctx, tx, ref, ref.ID(), true)
		if err != nil {
			return err
		}
		if p.Grant(auth.DriversUpdate) == auth.Own {
			if err := in.checkDriverFields(); err != nil {
				return err
			}
		}
		next := cur
		if err := s.validate(ctx, ref.CompanyID(), in, &next, false, cur.OfficeID); err != nil {
			return err
		}
		oldValues, newValues := audit.Diff(cur.auditValues(), next.auditValues())
		if len(newValues) == 0 {
			out = cur
			return nil
		}
		emailChanged = !strings.EqualFold(next.Email, cur.Email)
		if err := updateDriver(ctx, tx, ref, next); err != nil {
			return err
		}
		if out, err = getDriver(ctx, tx, ref, ref.ID(), false); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: id, Action: "updated",
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, ref.CompanyID(), webhooks.DriverUpdated, out)
	})
	if err != nil {
		return Driver{}, err
	}
	if emailChanged {
		tenants.CompanyChanged(ref.CompanyID()) // driver callers are linked by e-mail
	}
	return out.forCaller(p), nil
}

// Delete soft-deletes the driver: it leaves lists and reads (404), its
// e-mail is free again, its documents and files stay. The audit row keeps
// the driver's values as they were.
func (s *Service) Delete(ctx context.Context, p auth.Principal, ref auth.Ref) error {
	if err := ref.Check(p, auth.DriversDelete); err != nil {
		return err
	}
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := getDriver(ctx, tx, ref, ref.ID(), true)
		if err != nil {
			return err
		}
		if err := SoftDelete(ctx, tx, ref.CompanyID(), ref.ID()); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: ref.ID(), Action: "deleted", OldValues: cur.auditValues()}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, ref.CompanyID(), webhooks.DriverDeleted, cur)
	})
	if err != nil {
		return err
	}
	tenants.CompanyChanged(ref.CompanyID()) // its driver caller is linked to no record now
	return nil
}

// validate applies the input to d and checks it, including that a newly
// set office is a live office of the company.
func (s *Service) validate(ctx context.Context, companyID uuid.UUID, in Input, d *Driver, creating bool, oldOffice *uuid.UUID) error {
	v := checkInput(in, d, creating, oldOffice, func(id uuid.UUID) (bool, error) { return officeExists(ctx, s.db, companyID, id) })
	return v.err
}

// checked is the outcome of checkInput: the field messages, or an error
// of the office lookup.
type checked struct {
	v   apperr.Validation
	err error
}

// checkInput is the validation of a create or update (the import runs it
// too, with its offices looked up once): the field rules, the rules across
// fields, and that a newly set office is live (office reports that).
func checkInput(in Input, d *Driver, creating bool, oldOffice *uuid.UUID, office func(uuid.UUID) (bool, error)) checked {
	var c checked
	in.apply(d, creating, &c.v)
	if d.OfficeID != nil && !c.v.Has("office_id") && (oldOffice == nil || *oldOffice != *d.OfficeID) {
		ok, err := office(*d.OfficeID)
		if err != nil {
			c.err = err
			return c
		}
		if !ok {
			c.v.Add("office_id", "msg.drivers.office_unknown")
		}
	}
	c.err = c.v.Err()
	return c
}
