// Package units manages transport units (docs/dispatch.md): a driver with
// a vehicle and optionally a trailer, from its assignment until it is
// unassigned, and whether the unit is ready to drive, explained.
//
// Readiness is worked out in SQL, set-wise (konvoj_unit_readiness,
// migrations/00053_transport_unit_readiness.sql): for the stored units of
// a company or a few of them, for a proposed unit (Preview) and for a trip
// over a range of days. It is stored on the unit's row and kept current by
// triggers on every write that can change it; each change of is_ready is
// queued and turned into the webhook event and the notifications by Flush,
// which the services call before they commit, and by the start of each
// company day (StartDay).
//
// The service is the security boundary: every method takes the caller's
// Principal, and the loaders of access.go decide access.
package units

import (
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/paging"
)

// The reasons' codes (docs/dispatch.md, "Readiness").
const (
	DriverNotActive  = "driver_not_active"
	VehicleNotActive = "vehicle_not_active"
	TrailerNotActive = "trailer_not_active"
	DocumentExpired  = "document_expired"
	DocumentMissing  = "document_missing"
)

// The stages of a unit's notification.
const (
	StageNotReady = "not_ready"
	StageReady    = "ready"
)

// KindUnit is the notification kind of a unit's change of readiness.
const KindUnit = "transport_unit"

// Unit is a transport unit as the API returns it.
type Unit struct {
	ID      uuid.UUID   `json:"id"`
	Driver  UnitDriver  `json:"driver"`
	Vehicle UnitVehicle `json:"vehicle"`
	// Trailer is the unit's trailer, null when it has none.
	Trailer      *UnitVehicle `json:"trailer"`
	AssignedAt   time.Time    `json:"assigned_at"`
	UnassignedAt *time.Time   `json:"unassigned_at"`
	Readiness
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	companyID uuid.UUID
}

// Active reports whether the unit is still assigned.
func (u Unit) Active() bool { return u.UnassignedAt == nil }

// UnitDriver is the driver of a unit.
type UnitDriver struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	FirstName      string    `json:"first_name"`
	LastName       string    `json:"last_name"`
}

// UnitVehicle is the vehicle or the trailer of a unit.
type UnitVehicle struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	PlateNumber    string    `json:"plate_number"`
	Type           string    `json:"type"`
}

// Readiness is whether a unit (or a driver alone) is ready, why not, and
// until when.
type Readiness struct {
	IsReady bool `json:"is_ready"`
	// NotReadyReasons are in the order driver, vehicle, trailer; empty
	// when ready.
	NotReadyReasons []Reason `json:"not_ready_reasons"`
	// ReadyUntil is the last day it stays ready if nothing changes: the
	// earliest valid_until among its required documents. Nil when none
	// expires or when it is not ready.
	ReadyUntil *civil.Date `json:"ready_until"`
}

// Reason is one thing that keeps a unit from being ready.
type Reason struct {
	Code       string    `json:"code"`
	HolderType string    `json:"holder_type"`
	HolderID   uuid.UUID `json:"holder_id"`
	// DocumentType is the document's type, for the document reasons.
	DocumentType string `json:"document_type,omitempty"`
	// Since is the first day the document is expired (the day after its
	// valid_until), for document_expired.
	Since *civil.Date `json:"since,omitempty"`
}

// ReadinessChange is the data of transport_unit.readiness_changed.
type ReadinessChange struct {
	Unit            Unit `json:"unit"`
	PreviousIsReady bool `json:"previous_is_ready"`
}

// ListParams are the units list's filters and page.
type ListParams struct {
	// Active: true (the default) the assigned units, false the ended ones
	// (the history).
	Active    *bool
	IsReady   *bool
	OfficeIDs []uuid.UUID
	DriverID  *uuid.UUID
	VehicleID *uuid.UUID
	TrailerID *uuid.UUID
	// Search matches the driver's name, the internal numbers and the
	// plates (accent- and case-insensitive).
	Search string
	Page   paging.Request
}

// Free is a driver, vehicle or trailer that is active and in no active
// unit: what the board offers to assign.
type Free struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	// Name is a driver's full name; empty for a vehicle or trailer.
	Name string `json:"name,omitempty"`
	// PlateNumber and Type are a vehicle's or trailer's.
	PlateNumber string `json:"plate_number,omitempty"`
	Type        string `json:"type,omitempty"`
	IsReady     bool   `json:"is_ready"`
}

// Proposal is a unit that is not saved: the board's preview of an
// assignment over a trip's days.
type Proposal struct {
	DriverID  uuid.UUID
	VehicleID uuid.UUID
	TrailerID *uuid.UUID
	// On and Through are the trip's first and last day (nil: today, and
	// On).
	On, Through *civil.Date
}

// Service manages transport units.
type Service struct {
	db *pgxpool.Pool
}

// NewService returns a units service on the request pool.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }
