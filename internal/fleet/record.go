package fleet

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// record is a vehicle or a trailer as the store reads and writes it: the
// fields of both, of which a kind uses its own (kindSpec.columns). Vehicle
// and Trailer are its two faces.
type record struct {
	ID                    uuid.UUID
	CompanyID             uuid.UUID
	OfficeID              *uuid.UUID
	InternalNumber        string
	Type                  string
	Status                string
	AssignmentMode        *string
	PlateNumber           string
	VIN                   *string
	Make                  *string
	Model                 *string
	Year                  *int
	FuelType              *string
	EmissionClass         *string
	Color                 *string
	GrossWeightKg         *int
	PayloadKg             *int
	Axles                 *int
	OdometerKm            *int
	FirstRegistrationDate *civil.Date
	HasRefrigeration      bool
	TemperatureMin        *decimal.Decimal
	TemperatureMax        *decimal.Decimal
	VolumeM3              *decimal.Decimal
	Notes                 *string
	Tags                  []string
	IsReady               bool
	CurrentUnit           *CurrentUnit
	Summary               DocumentsSummary
	CreatedAt             time.Time
	UpdatedAt             time.Time
	DeletedAt             *time.Time
}

func (r record) vehicle() Vehicle {
	return Vehicle{ID: r.ID, CompanyID: r.CompanyID, OfficeID: r.OfficeID, InternalNumber: r.InternalNumber, Type: r.Type,
		Status: r.Status, AssignmentMode: r.AssignmentMode, PlateNumber: r.PlateNumber, VIN: r.VIN, Make: r.Make,
		Model: r.Model, Year: r.Year, FuelType: r.FuelType, EmissionClass: r.EmissionClass, Color: r.Color,
		GrossWeightKg: r.GrossWeightKg, PayloadKg: r.PayloadKg, Axles: r.Axles, OdometerKm: r.OdometerKm,
		FirstRegistrationDate: r.FirstRegistrationDate, Notes: r.Notes, Tags: tagsValue(r.Tags), IsReady: r.IsReady,
		CurrentUnit: r.CurrentUnit, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func (r record) trailer() Trailer {
	return Trailer{ID: r.ID, CompanyID: r.CompanyID, OfficeID: r.OfficeID, InternalNumber: r.InternalNumber, Type: r.Type,
		Status: r.Status, PlateNumber: r.PlateNumber, VIN: r.VIN, Make: r.Make, Model: r.Model, Year: r.Year,
		HasRefrigeration: r.HasRefrigeration, TemperatureMin: r.TemperatureMin, TemperatureMax: r.TemperatureMax,
		VolumeM3: r.VolumeM3, Color: r.Color, GrossWeightKg: r.GrossWeightKg, PayloadKg: r.PayloadKg, Axles: r.Axles,
		FirstRegistrationDate: r.FirstRegistrationDate, Notes: r.Notes, Tags: tagsValue(r.Tags), IsReady: r.IsReady,
		CurrentUnit: r.CurrentUnit, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func (v Vehicle) record() record {
	return record{ID: v.ID, CompanyID: v.CompanyID, OfficeID: v.OfficeID, InternalNumber: v.InternalNumber, Type: v.Type,
		Status: v.Status, AssignmentMode: v.AssignmentMode, PlateNumber: v.PlateNumber, VIN: v.VIN, Make: v.Make,
		Model: v.Model, Year: v.Year, FuelType: v.FuelType, EmissionClass: v.EmissionClass, Color: v.Color,
		GrossWeightKg: v.GrossWeightKg, PayloadKg: v.PayloadKg, Axles: v.Axles, OdometerKm: v.OdometerKm,
		FirstRegistrationDate: v.FirstRegistrationDate, Notes: v.Notes, Tags: v.Tags}
}

func (t Trailer) record() record {
	return record{ID: t.ID, CompanyID: t.CompanyID, OfficeID: t.OfficeID, InternalNumber: t.InternalNumber, Type: t.Type,
		Status: t.Status, PlateNumber: t.PlateNumber, VIN: t.VIN, Make: t.Make, Model: t.Model, Year: t.Year,
		HasRefrigeration: t.HasRefrigeration, TemperatureMin: t.TemperatureMin, TemperatureMax: t.TemperatureMax,
		VolumeM3: t.VolumeM3, Color: t.Color, GrossWeightKg: t.GrossWeightKg, PayloadKg: t.PayloadKg, Axles: t.Axles,
		FirstRegistrationDate: t.FirstRegistrationDate, Notes: t.Notes, Tags: t.Tags}
}

// column is a writable column of a kind: its name, the record's value and
// where a read scans it.
type column struct {
	name string
	val  func(r *record) any
	scan func(r *record) any
}

func col[T any](name string, f func(r *record) *T) column {
	return column{name: name, val: func(r *record) any { return *f(r) }, scan: func(r *record) any { return f(r) }}
}

// kindSpec is what differs between vehicles and trailers in the store and
// the service.
type kindSpec struct {
	kind     fleetKind
	table    string // vehicles, trailers
	prefix   string // VEH, TRL
	seq      string // the companies column that numbers them
	types    []string
	statuses []string
	columns  []column
	// events are the webhook events of a create, an update, a delete.
	created, updated, deleted string
}

// The columns both kinds share, then each kind's own.
var (
	officeCol   = col("office_id", func(r *record) **uuid.UUID { return &r.OfficeID })
	typeCol     = col("type", func(r *record) *string { return &r.Type })
	statusCol   = col("status", func(r *record) *string { return &r.Status })
	vinCol      = col("vin", func(r *record) **string { return &r.VIN })
	makeCol     = col("make", func(r *record) **string { return &r.Make })
	modelCol    = col("model", func(r *record) **string { return &r.Model })
	yearCol     = col("year", func(r *record) **int { return &r.Year })
	colorCol    = col("color", func(r *record) **string { return &r.Color })
	grossCol    = col("gross_weight_kg", func(r *record) **int { return &r.GrossWeightKg })
	payloadCol  = col("payload_kg", func(r *record) **int { return &r.PayloadKg })
	axlesCol    = col("axles", func(r *record) **int { return &r.Axles })
	firstRegCol = col("first_registration_date", func(r *record) **civil.Date { return &r.FirstRegistrationDate })
	notesCol    = col("notes", func(r *record) **string { return &r.Notes })
	tagsCol     = column{name: "tags", val: func(r *record) any { return tagsValue(r.Tags) }, scan: func(r *record) any { return &r.Tags }}
	// plateCol reads a missing plate of an old record as "".
	plateCol = column{name: "plate_number", val: func(r *record) any { return r.PlateNumber },
		scan: func(r *record) any { return &plateScan{&r.PlateNumber} }}
)

var vehicles = kindSpec{
	kind: vehicleKind, table: "vehicles", prefix: "VEH", seq: "vehicle_number_seq",
	types: VehicleTypes, statuses: VehicleStatuses,
	columns: []column{officeCol, typeCol, statusCol,
		col("assignment_mode", func(r *record) **string { return &r.AssignmentMode }),
		plateCol, vinCol, makeCol, modelCol, yearCol,
		col("fuel_type", func(r *record) **string { return &r.FuelType }),
		col("emission_class", func(r *record) **string { return &r.EmissionClass }),
		colorCol, grossCol, payloadCol, axlesCol,
		col("odometer_km", func(r *record) **int { return &r.OdometerKm }),
		firstRegCol, notesCol, tagsCol},
	created: webhooks.VehicleCreated, updated: webhooks.VehicleUpdated, deleted: webhooks.VehicleDeleted,
}

var trailers = kindSpec{
	kind: trailerKind, table: "trailers", prefix: "TRL", seq: "trailer_number_seq",
	types: TrailerTypes, statuses: TrailerStatuses,
	columns: []column{officeCol, typeCol, statusCol, plateCol, vinCol, makeCol, modelCol, yearCol,
		col("has_refrigeration", func(r *record) *bool { return &r.HasRefrigeration }),
		col("temperature_min", func(r *record) **decimal.Decimal { return &r.TemperatureMin }),
		col("temperature_max", func(r *record) **decimal.Decimal { return &r.TemperatureMax }),
		col("volume_m3", func(r *record) **decimal.Decimal { return &r.VolumeM3 }),
		colorCol, grossCol, payloadCol, axlesCol, firstRegCol, notesCol, tagsCol},
	created: webhooks.TrailerCreated, updated: webhooks.TrailerUpdated, deleted: webhooks.TrailerDeleted,
}

// has reports whether the kind has the writable field name.
func (k kindSpec) has(name string) bool {
	for _, c := range k.columns {
		if c.name == name {
			return true
		}
	}
	return false
}

// plateScan scans a nullable plate into a string.
type plateScan struct{ s *string }

func (p *plateScan) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*p.s = ""
	case string:
		*p.s = v
	case []byte:
		*p.s = string(v)
	}
	return nil
}

// auditValues are the stored fields of the record as the audit log
// records them (computed fields and stamps left out).
func (k kindSpec) auditValues(r record) map[string]any {
	m := map[string]any{"internal_number": r.InternalNumber}
	for _, c := range k.columns {
		m[c.name] = c.val(&r)
	}
	return m
}

// tagsValue is the tags as stored: never nil.
func tagsValue(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}
