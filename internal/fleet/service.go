package fleet

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/patch"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// CreateVehicle adds a vehicle with the next VEH- number and an empty
// document record of each type that applies to it, and audits it, in one
// transaction. read fills the input once the caller may create vehicles
// (a body's 400 comes after the role's 403).
func (s *Service) CreateVehicle(ctx context.Context, p auth.Principal, read func(*Input) error) (Vehicle, error) {
	r, err := s.create(ctx, p, vehicles, read)
	return r.vehicle(), err
}

// CreateTrailer adds a trailer with the next TRL- number, as CreateVehicle.
func (s *Service) CreateTrailer(ctx context.Context, p auth.Principal, read func(*Input) error) (Trailer, error) {
	r, err := s.create(ctx, p, trailers, read)
	return r.trailer(), err
}

// GetVehicle returns vehicle id for the caller's action a (reading it, or
// a page showing it before an edit or delete).
func (s *Service) GetVehicle(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (Vehicle, error) {
	r, err := vehicles.load(ctx, s.db, p, a, id, false)
	return r.vehicle(), err
}

// GetTrailer is GetVehicle for a trailer.
func (s *Service) GetTrailer(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (Trailer, error) {
	r, err := trailers.load(ctx, s.db, p, a, id, false)
	return r.trailer(), err
}

// ReadVehicle is GetVehicle for reading the vehicle (GET /vehicles/{id}).
// It carries the vehicle's documents with status (and their files for the
// callers who may handle them).
func (s *Service) ReadVehicle(ctx context.Context, p auth.Principal, id uuid.UUID) (Vehicle, error) {
	v, err := s.GetVehicle(ctx, p, auth.FleetRead, id)
	if err != nil {
		return Vehicle{}, err
	}
	if v.Documents, err = s.documentsOf(ctx, p, documents.HolderVehicle, v.CompanyID, v.ID, v.Type); err != nil {
		return Vehicle{}, err
	}
	return v, nil
}

// ReadTrailer is GetTrailer for reading the trailer (GET /trailers/{id}).
func (s *Service) ReadTrailer(ctx context.Context, p auth.Principal, id uuid.UUID) (Trailer, error) {
	t, err := s.GetTrailer(ctx, p, auth.FleetRead, id)
	if err != nil {
		return Trailer{}, err
	}
	if t.Documents, err = s.documentsOf(ctx, p, documents.HolderTrailer, t.CompanyID, t.ID, t.Type); err != nil {
		return Trailer{}, err
	}
	return t, nil
}

// documentsOf is the documents of a record the caller has loaded, as
// GET /vehicles/{id}/documents lists them; never nil, so that a single
// read always carries the key.
func (s *Service) documentsOf(ctx context.Context, p auth.Principal, holderType string, companyID, id uuid.UUID, kind string) ([]documents.Document, error) {
	docs, err := documents.ForHolder(ctx, s.db, companyID, holderType, id, kind, p.Today(), documents.FleetFiles(p))
	if err != nil {
		return nil, fmt.Errorf("documents of %s %s: %w", holderType, id, err)
	}
	if docs == nil {
		docs = []documents.Document{}
	}
	return docs, nil
}

// UpdateVehicle changes the fields present in the input (a partial update)
// and audits the changed fields only; an update that changes nothing
// writes nothing. The vehicle is loaded once, locked, in the update's
// transaction; read fills the input after the access checks (403 and 404
// before 400). A changed type adds the document records that now apply.
func (s *Service) UpdateVehicle(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*Input) error) (Vehicle, error) {
	r, err := s.update(ctx, p, vehicles, id, read)
	return r.vehicle(), err
}

// UpdateTrailer is UpdateVehicle for a trailer.
func (s *Service) UpdateTrailer(ctx context.Context, p auth.Principal, id uuid.UUID, read func(*Input) error) (Trailer, error) {
	r, err := s.update(ctx, p, trailers, id, read)
	return r.trailer(), err
}

// DeleteVehicle soft-deletes the vehicle: it leaves lists and reads (404),
// its plate and VIN are free again, its documents stay. A vehicle in an
// active transport unit is 409 Conflict. The vehicle as it was is
// returned (a page names it in its message).
func (s *Service) DeleteVehicle(ctx context.Context, p auth.Principal, id uuid.UUID) (Vehicle, error) {
	r, err := s.delete(ctx, p, vehicles, id)
	return r.vehicle(), err
}

// DeleteTrailer is DeleteVehicle for a trailer.
func (s *Service) DeleteTrailer(ctx context.Context, p auth.Principal, id uuid.UUID) (Trailer, error) {
	r, err := s.delete(ctx, p, trailers, id)
	return r.trailer(), err
}

// answer is the record as the API returns it, for the webhook event.
func (k kindSpec) answer(r record) any {
	if k.kind == trailerKind {
		return r.trailer()
	}
	return r.vehicle()
}

func (s *Service) create(ctx context.Context, p auth.Principal, k kindSpec, read func(*Input) error) (record, error) {
	if _, err := collection(p, auth.FleetWrite); err != nil {
		return record{}, err
	}
	var in Input
	if err := read(&in); err != nil {
		return record{}, err
	}
	r := record{CompanyID: p.CompanyID, Status: "active", Tags: []string{}}
	if err := s.validate(ctx, p, k, in, &r, true, nil); err != nil {
		return record{}, err
	}
	var out record
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		id, err := k.insert(ctx, tx, r)
		if err != nil {
			return err
		}
		if out, err = k.loadRow(ctx, tx, p.CompanyID, id, false); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: string(k.kind), EntityID: id, Action: "created", NewValues: k.auditValues(out)}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, p.CompanyID, k.created, k.answer(out))
	})
	if err != nil {
		return record{}, err
	}
	return out, nil
}

func (s *Service) update(ctx context.Context, p auth.Principal, k kindSpec, id uuid.UUID, read func(*Input) error) (record, error) {
	var out record
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		cur, err := k.load(ctx, tx, p, auth.FleetWrite, id, true)
		if err != nil {
			return err
		}
		var in Input
		if err := read(&in); err != nil {
			return err
		}
		next := cur
		if err := s.validate(ctx, p, k, in, &next, false, cur.OfficeID); err != nil {
			return err
		}
		oldValues, newValues := audit.Diff(k.auditValues(cur), k.auditValues(next))
		if len(newValues) == 0 {
			out = cur
			return nil
		}
		if next.Type != cur.Type {
			if err := k.addDocuments(ctx, tx, cur.CompanyID, id, next.Type); err != nil {
				return err
			}
		}
		if err := k.update(ctx, tx, &next, p.Today()); err != nil {
			return err
		}
		out = next
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: string(k.kind), EntityID: id, Action: "updated",
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		if out.CurrentUnit != nil {
			if err := unitsAfter(ctx, tx, p, k, cur.CompanyID, id, newValues); err != nil {
				return err
			}
			if out.Status == "sold" {
				out.CurrentUnit = nil // it left its unit
			}
		}
		return webhooks.Emit(ctx, tx, cur.CompanyID, k.updated, k.answer(out))
	})
	if err != nil {
		return record{}, err
	}
	return out, nil
}

func (s *Service) delete(ctx context.Context, p auth.Principal, k kindSpec, id uuid.UUID) (record, error) {
	var cur record
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if cur, err = k.load(ctx, tx, p, auth.FleetWrite, id, true); err != nil {
			return err
		}
		if cur.CurrentUnit != nil {
			return apperr.Conflict("msg.fleet.in_active_unit")
		}
		if err := k.softDelete(ctx, tx, cur.CompanyID, id); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: string(k.kind), EntityID: id, Action: "deleted", OldValues: k.auditValues(cur)}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, cur.CompanyID, k.deleted, k.answer(cur))
	})
	if err != nil {
		return record{}, err
	}
	return cur, nil
}

// validate applies the input to r and checks it, including that a newly
// set office is a live office of the company; a trailer with
// refrigeration gets the frigo tag.
func (s *Service) validate(ctx context.Context, p auth.Principal, k kindSpec, in Input, r *record, creating bool, oldOffice *uuid.UUID) error {
	var v apperr.Validation
	k.apply(in, r, creating, patch.Facts{Today: p.Today()}, &v)
	if r.OfficeID != nil && !v.Has("office_id") && (oldOffice == nil || *oldOffice != *r.OfficeID) {
		ok, err := officeExists(ctx, s.db, r.CompanyID, *r.OfficeID)
		if err != nil {
			return err
		}
		if !ok {
			v.Add("office_id", "msg.drivers.office_unknown")
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	if k.kind == trailerKind {
		r.Tags = withFrigo(*r)
	}
	return nil
}

// unitsAfter follows a change of a vehicle or trailer in an active transport unit
// (docs/dispatch.md): a sold vehicle leaves its unit, and a change of what
// the unit's readiness reads (status, type, tags) tells the unit's change
// of readiness. Other changes cost no statement.
func unitsAfter(ctx context.Context, tx pgx.Tx, p auth.Principal, k kindSpec, companyID, id uuid.UUID, changed map[string]any) error {
	if st, ok := changed["status"]; ok && k.kind == vehicleKind && fmt.Sprint(st) == "sold" {
		if err := units.EndOf(ctx, tx, p, companyID, "vehicle_id", id); err != nil {
			return err
		}
	}
	for _, c := range []string{"status", "type", "tags"} {
		if _, ok := changed[c]; ok {
			return units.Flush(ctx, tx, companyID)
		}
	}
	return nil
}
