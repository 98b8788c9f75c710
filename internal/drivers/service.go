package drivers

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// entityType is the audit log's name for drivers.
const entityType = "driver"

// Create adds a driver with the next DRV- number and its 14 empty document
// records, and audits it, in one transaction. read fills the input once the
// caller may create drivers (a body's 400 comes after the role's 403).
func (s *Service) Create(ctx context.Context, p auth.Principal, read func(*Input) error) (Driver, error) {
	if _, err := collection(p, auth.DriversCreate); err != nil {
		return Driver{}, err
	}
	var in Input
	if err := read(&in); err != nil {
		return Driver{}, err
	}
	companyID := p.CompanyID
	d := Driver{CompanyID: companyID, Status: "active", Flags: json.RawMessage(`{}`), Tags: []string{}}
	if err := s.validate(ctx, p, in, &d, true, nil); err != nil {
		return Driver{}, err
	}
	var out Driver
	err := s.write(ctx, p.CompanyID, func(tx pgx.Tx) error {
		id, err := Insert(ctx, tx, d)
		if err != nil {
			return err
		}
		// The new row's number, readiness and stamps, read once.
		if out, err = loadDriverRow(ctx, tx, companyID, id, false); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: id, Action: "created", NewValues: out.auditValues()}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, companyID, webhooks.DriverCreated, out)
	})
	if err != nil {
		return Driver{}, err
	}
	return out.forCaller(p), nil
}

// Get returns driver id for the caller's action a (reading it, or a page
// showing it before an edit or delete) with its documents: with files for
// callers who may list documents, statuses only for the dispatcher, and
// without the documents for roles that may not list them (the accountant).
// The driver and its documents take one round trip.
func (s *Service) Get(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (Driver, error) {
	d, err := readDriver(ctx, s.db, p, a, id)
	if err != nil {
		return Driver{}, err
	}
	return d.forCaller(p), nil
}

// Read is Get for reading the driver (GET /drivers/{id}).
func (s *Service) Read(ctx context.Context, p auth.Principal, id uuid.UUID) (Driver, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	return s.Get(ctx, p, auth.DriversRead, id)
}

// Update changes the fields present in the input (a partial update) and
// audits the changed fields only. A driver caller may change its own phone,
// addresses and bank fields; any other driver field is 403 Forbidden.
// An update that changes nothing writes nothing and returns the driver.
// The driver is loaded once, locked, in the update's transaction; read
// fills the input after the access checks (403 and 404 before 400), and
// the answer, the audit row and the webhook event come from that record
// and the write's results.
func (s *Service) Update(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*Input) error) (Driver, error) {
	var out Driver
	err := s.write(ctx, p.CompanyID, func(tx pgx.Tx) error {
		cur, err := loadDriver(ctx, tx, p, auth.DriversUpdate, id, true)
		if err != nil {
			return err
		}
		var in Input
		if err := read(&in); err != nil {
			return err
		}
		if err := checkOwnFields(p, in); err != nil {
			return err
		}
		next := cur
		if err := s.validate(ctx, p, in, &next, false, cur.OfficeID); err != nil {
			return err
		}
		oldValues, newValues := audit.Diff(cur.auditValues(), next.auditValues())
		if len(newValues) == 0 {
			out = cur
			return nil
		}
		if err := updateDriver(ctx, tx, &next); err != nil {
			return err
		}
		out = next
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: id, Action: "updated",
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		if err := webhooks.Emit(ctx, tx, cur.CompanyID, webhooks.DriverUpdated, out); err != nil {
			return err
		}
		if !out.inUnit {
			return nil
		}
		return unitsAfter(ctx, tx, p, cur.CompanyID, id, newValues)
	})
	if err != nil {
		return Driver{}, err
	}
	return out.forCaller(p), nil
}

// Delete soft-deletes the driver: it leaves lists and reads (404), its
// e-mail is free again, its documents and files stay. The audit row keeps
// the driver's values as they were; the driver as it was is returned (a
// page names it in its message).
func (s *Service) Delete(ctx context.Context, p auth.Principal, id uuid.UUID) (Driver, error) {
	var cur Driver
	err := s.write(ctx, p.CompanyID, func(tx pgx.Tx) error {
		var err error
		if cur, err = loadDriver(ctx, tx, p, auth.DriversDelete, id, true); err != nil {
			return err
		}
		if err := SoftDelete(ctx, tx, cur.CompanyID, id); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: entityType, EntityID: id, Action: "deleted", OldValues: cur.auditValues()}); err != nil {
			return err
		}
		if err := webhooks.Emit(ctx, tx, cur.CompanyID, webhooks.DriverDeleted, cur); err != nil {
			return err
		}
		// A deleted driver leaves its transport unit (docs/dispatch.md).
		return units.EndOf(ctx, tx, p, cur.CompanyID, "driver_id", id)
	})
	if err != nil {
		return Driver{}, err
	}
	return cur.forCaller(p), nil
}

// validate applies the input to d and checks it against the caller's
// company's facts, including that a newly set office is a live office of
// the company.
func (s *Service) validate(ctx context.Context, p auth.Principal, in Input, d *Driver, creating bool, oldOffice *uuid.UUID) error {
	v := checkInput(in, d, creating, oldOffice, FactsOf(p), func(id uuid.UUID) (bool, error) { return officeExists(ctx, s.db, d.CompanyID, id) })
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
func checkInput(in Input, d *Driver, creating bool, oldOffice *uuid.UUID, facts Facts, office func(uuid.UUID) (bool, error)) checked {
	var c checked
	apply(in, d, creating, facts, &c.v)
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

// write runs a change of the company's drivers in one transaction. Once it
// is committed, the callers this process knows of the company are looked
// up again (tenants.CompanyChanged): a driver caller is linked to its
// driver record by e-mail, and a created, re-mailed or deleted driver
// changes that link. Every write of drivers goes through here, so no write
// can forget it.
func (s *Service) write(ctx context.Context, companyID uuid.UUID, fn func(tx pgx.Tx) error) error {
	if err := postgres.InTx(ctx, s.db, fn); err != nil {
		return err
	}
	tenants.CompanyChanged(companyID)
	return nil
}

// unitsAfter follows a change of a driver in an active transport unit
// (docs/dispatch.md): a terminated driver leaves its unit, and a change of
// what the unit's readiness reads (status, citizenship, tags) tells the
// unit's change of readiness. Other changes cost no statement.
func unitsAfter(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID, id uuid.UUID, changed map[string]any) error {
	if st, ok := changed["status"]; ok && fmt.Sprint(st) == "terminated" {
		if err := units.EndOf(ctx, tx, p, companyID, "driver_id", id); err != nil {
			return err
		}
	}
	for _, k := range []string{"status", "citizenship", "tags"} {
		if _, ok := changed[k]; ok {
			return units.Flush(ctx, tx, companyID)
		}
	}
	return nil
}
