package units

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// AssignInput is the body of POST /transport-units.
type AssignInput struct {
	DriverID  *uuid.UUID `json:"driver_id"`
	VehicleID *uuid.UUID `json:"vehicle_id"`
	TrailerID *uuid.UUID `json:"trailer_id"`
	// AssignedAt defaults to now.
	AssignedAt *time.Time `json:"assigned_at"`
}

// TrailerInput is the body of PUT /transport-units/{id}: the trailer to
// take (null drops it). Given tells a null from a missing key.
type TrailerInput struct {
	TrailerID *uuid.UUID
	Given     bool
	invalid   bool
}

// UnmarshalJSON reads {"trailer_id": id | null}.
func (in *TrailerInput) UnmarshalJSON(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	raw, ok := m["trailer_id"]
	if !ok {
		return nil
	}
	in.Given = true
	if string(raw) == "null" {
		return nil
	}
	var id uuid.UUID
	if err := json.Unmarshal(raw, &id); err != nil {
		in.invalid = true
		return nil
	}
	in.TrailerID = &id
	return nil
}

// UnassignInput is the body of POST /transport-units/{id}/unassign.
type UnassignInput struct {
	// UnassignedAt defaults to now.
	UnassignedAt *time.Time `json:"unassigned_at"`
}

// Assign creates a unit of a driver, a vehicle and optionally a trailer
// (docs/dispatch.md): each may be in one active unit only (409 naming the
// unit that holds it, with its unit_id; the unique indexes hold it under
// concurrent requests), a terminated driver, a sold or inactive vehicle
// and an inactive trailer are 409, a trailer needs a truck (lkv, 422). Its
// readiness is worked out at once; the assignment is audited and emits
// transport_unit.assigned.
func (s *Service) Assign(ctx context.Context, p auth.Principal, read func(*AssignInput) error) (Unit, error) {
	if _, err := collection(p, writeUnits); err != nil {
		return Unit{}, err
	}
	var in AssignInput
	if err := read(&in); err != nil {
		return Unit{}, err
	}
	var v apperr.Validation
	if in.DriverID == nil {
		v.Add("driver_id", "msg.units.driver_required")
	}
	if in.VehicleID == nil {
		v.Add("vehicle_id", "msg.units.vehicle_required")
	}
	if err := v.Err(); err != nil {
		return Unit{}, err
	}
	at := time.Now().UTC()
	if in.AssignedAt != nil {
		at = in.AssignedAt.UTC()
	}
	var out Unit
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		if err := s.checkParts(ctx, tx, p, *in.DriverID, *in.VehicleID, in.TrailerID); err != nil {
			return err
		}
		var id uuid.UUID
		if err := tx.QueryRow(ctx, `INSERT INTO transport_units (company_id, driver_id, vehicle_id, trailer_id, assigned_at)
			VALUES ($1, $2, $3, $4, $5) RETURNING id`, p.CompanyID, *in.DriverID, *in.VehicleID, in.TrailerID, at).Scan(&id); err != nil {
			return fmt.Errorf("insert transport unit: %w", err)
		}
		if err := refresh(ctx, tx, p.CompanyID, []uuid.UUID{id}); err != nil {
			return err
		}
		u, _, err := unitRow(ctx, tx, id, false)
		if err != nil {
			return err
		}
		out = u
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "transport_unit", EntityID: id, Action: "assigned", NewValues: auditValues(u)}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, p.CompanyID, webhooks.UnitAssigned, about(u, u))
	})
	if what := takenBy(err); what != "" {
		return Unit{}, s.taken(ctx, p, what, in.DriverID, in.VehicleID, in.TrailerID)
	}
	if err != nil {
		return Unit{}, err
	}
	return out, nil
}

// taken is the 409 of an assignment the unique indexes refused, read
// after its transaction ended (the unit in the way has committed).
func (s *Service) taken(ctx context.Context, p auth.Principal, what string, driverID, vehicleID, trailerID *uuid.UUID) error {
	id := driverID
	switch what {
	case "vehicle":
		id = vehicleID
	case "trailer":
		id = trailerID
	}
	return holding(ctx, s.db, p.CompanyID, what, *id)
}

// checkParts loads the driver, the vehicle and the trailer an assignment
// names (404, 403) and checks they may be assigned: 422 for a trailer
// behind a vehicle that is not a truck, 409 for a terminated driver, a sold
// or inactive vehicle, an inactive trailer, and for one already in an
// active unit (the unique indexes check that again at the insert).
func (s *Service) checkParts(ctx context.Context, tx pgx.Tx, p auth.Principal, driverID, vehicleID uuid.UUID, trailerID *uuid.UUID) error {
	d, err := loadPart(ctx, tx, p, "drivers", driverID)
	if err != nil {
		return err
	}
	veh, err := loadPart(ctx, tx, p, "vehicles", vehicleID)
	if err != nil {
		return err
	}
	var trl *part
	if trailerID != nil {
		t, err := loadPart(ctx, tx, p, "trailers", *trailerID)
		if err != nil {
			return err
		}
		trl = &t
		if veh.Type != "lkv" {
			return apperr.Invalid("trailer_id", "msg.units.trailer_needs_truck")
		}
	}
	switch {
	case d.Status == "terminated":
		return apperr.Conflict("msg.units.driver_terminated", "driver", d.Number)
	case veh.Status == "sold" || veh.Status == "inactive":
		return apperr.Conflict("msg.units.vehicle_unavailable", "vehicle", veh.Number)
	case trl != nil && trl.Status == "inactive":
		return apperr.Conflict("msg.units.trailer_inactive", "trailer", trl.Number)
	}
	for _, c := range []struct {
		what string
		id   *uuid.UUID
	}{{"driver", &driverID}, {"vehicle", &vehicleID}, {"trailer", trailerID}} {
		if c.id == nil {
			continue
		}
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM transport_units WHERE company_id = $1 AND `+c.what+`_id = $2
			AND unassigned_at IS NULL AND deleted_at IS NULL)`, p.CompanyID, *c.id).Scan(&taken); err != nil {
			return fmt.Errorf("check the unit of %s %s: %w", c.what, *c.id, err)
		}
		if taken {
			return holding(ctx, tx, p.CompanyID, c.what, *c.id)
		}
	}
	return nil
}

// Get returns unit id for reading (a driver: its own unit only).
func (s *Service) Get(ctx context.Context, p auth.Principal, id uuid.UUID) (Unit, error) {
	return loadUnit(ctx, s.db, p, readUnits, id, false)
}

// GetToChange returns unit id for a caller who may change it (assign,
// change the trailer, unassign): the pages' forms ask it before they
// show.
func (s *Service) GetToChange(ctx context.Context, p auth.Principal, id uuid.UUID) (Unit, error) {
	return loadUnit(ctx, s.db, p, writeUnits, id, false)
}

// ChangeTrailer gives an active unit another trailer, or none (a null
// trailer_id): the same checks as an assignment; the change is audited and
// emits transport_unit.updated, and a change of readiness its own event.
// An ended unit is 409.
func (s *Service) ChangeTrailer(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*TrailerInput) error) (Unit, error) {
	var in TrailerInput
	var out Unit
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := loadUnit(ctx, tx, p, writeUnits, id, true)
		if err != nil {
			return err
		}
		if err := read(&in); err != nil {
			return err
		}
		if !in.Given {
			return apperr.Invalid("trailer_id", "msg.units.trailer_id_required")
		}
		if in.invalid {
			return apperr.Invalid("trailer_id", "msg.units.trailer_id_invalid")
		}
		if !cur.Active() {
			return apperr.Conflict("msg.units.ended")
		}
		old := cur.Trailer
		if (old == nil && in.TrailerID == nil) || (old != nil && in.TrailerID != nil && old.ID == *in.TrailerID) {
			out = cur
			return nil
		}
		if in.TrailerID != nil {
			t, err := loadPart(ctx, tx, p, "trailers", *in.TrailerID)
			if err != nil {
				return err
			}
			if cur.Vehicle.Type != "lkv" {
				return apperr.Invalid("trailer_id", "msg.units.trailer_needs_truck")
			}
			if t.Status == "inactive" {
				return apperr.Conflict("msg.units.trailer_inactive", "trailer", t.Number)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE transport_units SET trailer_id = $3 WHERE company_id = $1 AND id = $2`,
			cur.companyID, id, in.TrailerID); err != nil {
			return fmt.Errorf("change the trailer of transport unit %s: %w", id, err)
		}
		if err := refresh(ctx, tx, cur.companyID, []uuid.UUID{id}); err != nil {
			return err
		}
		u, _, err := unitRow(ctx, tx, id, false)
		if err != nil {
			return err
		}
		out = u
		oldValues, newValues := audit.Diff(auditValues(cur), auditValues(u))
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "transport_unit", EntityID: id, Action: "updated",
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		if err := webhooks.Emit(ctx, tx, cur.companyID, webhooks.UnitUpdated, about(u, u)); err != nil {
			return err
		}
		return Flush(ctx, tx, cur.companyID)
	})
	if takenBy(err) == "trailer" {
		return Unit{}, s.taken(ctx, p, "trailer", nil, nil, in.TrailerID)
	}
	if err != nil {
		return Unit{}, err
	}
	return out, nil
}

// Unassign ends an active unit at unassigned_at (default now; not before
// its assignment, 422); the row stays as history. An ended unit is 409.
func (s *Service) Unassign(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*UnassignInput) error) (Unit, error) {
	var out Unit
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := loadUnit(ctx, tx, p, writeUnits, id, true)
		if err != nil {
			return err
		}
		var in UnassignInput
		if err := read(&in); err != nil {
			return err
		}
		at := time.Now().UTC()
		if in.UnassignedAt != nil {
			at = in.UnassignedAt.UTC()
			if at.Before(cur.AssignedAt) {
				return apperr.Invalid("unassigned_at", "msg.units.unassigned_before_assigned")
			}
		} else if at.Before(cur.AssignedAt) {
			at = cur.AssignedAt // assigned ahead: it ends as it starts
		}
		if !cur.Active() {
			return apperr.Conflict("msg.units.ended")
		}
		out, err = end(ctx, tx, p, cur, at)
		return err
	})
	return out, err
}

// end ends unit u at at, audits it and emits transport_unit.unassigned.
func end(ctx context.Context, tx pgx.Tx, p auth.Principal, u Unit, at time.Time) (Unit, error) {
	if err := tx.QueryRow(ctx, `UPDATE transport_units SET unassigned_at = $3 WHERE company_id = $1 AND id = $2
		RETURNING unassigned_at, updated_at`, u.companyID, u.ID, at).Scan(&u.UnassignedAt, &u.UpdatedAt); err != nil {
		return Unit{}, fmt.Errorf("unassign transport unit %s: %w", u.ID, err)
	}
	if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "transport_unit", EntityID: u.ID, Action: "unassigned",
		OldValues: map[string]any{"unassigned_at": nil}, NewValues: map[string]any{"unassigned_at": at}}); err != nil {
		return Unit{}, err
	}
	if err := webhooks.Emit(ctx, tx, u.companyID, webhooks.UnitUnassigned, about(u, u)); err != nil {
		return Unit{}, err
	}
	return u, nil
}

// EndOf ends the active unit of a driver being terminated or a vehicle
// being sold (column driver_id or vehicle_id; id the record), in the
// transaction of that change, as the caller p: audited, with
// transport_unit.unassigned. Nothing when it is in no unit.
func EndOf(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID uuid.UUID, column string, id uuid.UUID) error {
	if column != "driver_id" && column != "vehicle_id" {
		return fmt.Errorf("end the unit of %s: unknown column", column)
	}
	var unitID uuid.UUID
	err := tx.QueryRow(ctx, `SELECT id FROM transport_units WHERE company_id = $1 AND `+column+` = $2
		AND unassigned_at IS NULL AND deleted_at IS NULL FOR UPDATE`, companyID, id).Scan(&unitID)
	if postgres.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("find the unit of %s %s: %w", column, id, err)
	}
	u, _, err := unitRow(ctx, tx, unitID, false)
	if err != nil {
		return err
	}
	at := time.Now().UTC()
	if at.Before(u.AssignedAt) {
		at = u.AssignedAt
	}
	_, err = end(ctx, tx, p, u, at)
	return err
}

// auditValues are a unit's fields as the audit log records them.
func auditValues(u Unit) map[string]any {
	m := map[string]any{"driver_id": u.Driver.ID, "vehicle_id": u.Vehicle.ID, "trailer_id": nil, "assigned_at": u.AssignedAt}
	if u.Trailer != nil {
		m["trailer_id"] = u.Trailer.ID
	}
	return m
}

// Readiness answers whether unit id can do a trip from on to through
// (docs/dispatch.md): as of on (nil: the company's today), a document
// whose valid_until is before through (nil: on) counts as expired from the
// day after its valid_until. through before on is 422.
func (s *Service) Readiness(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*Trip) error) (Readiness, error) {
	u, err := loadUnit(ctx, s.db, p, readUnits, id, false)
	if err != nil {
		return Readiness{}, err
	}
	var trip Trip
	if err := read(&trip); err != nil {
		return Readiness{}, err
	}
	from, to, err := tripDays(p, trip.On, trip.Through)
	if err != nil {
		return Readiness{}, err
	}
	var trailer *uuid.UUID
	if u.Trailer != nil {
		trailer = &u.Trailer.ID
	}
	return readiness(ctx, s.db, u.companyID, u.Driver.ID, &u.Vehicle.ID, trailer, from, to)
}

// DriverReadiness is Readiness for a driver alone (GET
// /drivers/{id}/readiness): its status and its required documents.
func (s *Service) DriverReadiness(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*Trip) error) (Readiness, error) {
	d, err := loadDriver(ctx, s.db, p, driverID)
	if err != nil {
		return Readiness{}, err
	}
	var trip Trip
	if err := read(&trip); err != nil {
		return Readiness{}, err
	}
	from, to, err := tripDays(p, trip.On, trip.Through)
	if err != nil {
		return Readiness{}, err
	}
	return readiness(ctx, s.db, d.CompanyID, d.ID, nil, nil, from, to)
}

// Preview is the readiness a proposed unit would have over the trip's
// days, saving nothing: the board asks it before an assignment. The
// driver, vehicle and trailer must be the caller's company's (404
// otherwise); whether they are free is the assignment's check.
func (s *Service) Preview(ctx context.Context, p auth.Principal, pr Proposal) (Readiness, error) {
	if _, err := collection(p, writeUnits); err != nil {
		return Readiness{}, err
	}
	from, to, err := tripDays(p, pr.On, pr.Through)
	if err != nil {
		return Readiness{}, err
	}
	if _, err := loadPart(ctx, s.db, p, "drivers", pr.DriverID); err != nil {
		return Readiness{}, err
	}
	if _, err := loadPart(ctx, s.db, p, "vehicles", pr.VehicleID); err != nil {
		return Readiness{}, err
	}
	if pr.TrailerID != nil {
		if _, err := loadPart(ctx, s.db, p, "trailers", *pr.TrailerID); err != nil {
			return Readiness{}, err
		}
	}
	return readiness(ctx, s.db, p.CompanyID, pr.DriverID, &pr.VehicleID, pr.TrailerID, from, to)
}

// Trip is the days a readiness is asked for: from On (nil: the company's
// today) through Through (nil: On).
type Trip struct {
	On, Through *civil.Date
}

// tripDays are a trip's first and last day with their defaults.
func tripDays(p auth.Principal, on, through *civil.Date) (civil.Date, civil.Date, error) {
	from := p.Today()
	if on != nil {
		from = *on
	}
	to := from
	if through != nil {
		to = *through
	}
	if to.Before(from) {
		return civil.Date{}, civil.Date{}, apperr.Invalid("through", "msg.units.through_before_on")
	}
	return from, to, nil
}

// about is an event's data with the unit's driver, whose live stream
// carries the events of its own unit (docs/live-updates.md).
func about(u Unit, data any) webhooks.About {
	return webhooks.About{Driver: u.Driver.ID, Data: data}
}
