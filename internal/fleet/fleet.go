// Package fleet manages a company's vehicles and trailers (docs/fleet.md):
// create (with the record's VEH- or TRL- number and its empty document
// records), read, partial update, soft delete and the list dispatchers work
// in (filters, accent-insensitive search, sorting, offset and signed-cursor
// pagination, the change feed, document summaries and readiness computed
// in SQL).
//
// The service is the security boundary: every method takes the caller's
// Principal and the ids, and the loaders of access.go decide access (the
// permission matrix and tenancy checks, in the order of docs/errors.md) as
// they load the record the method then works on.
package fleet

import (
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/paging"
)

// The values of the vehicles' and trailers' closed fields (docs/fleet.md).
var (
	VehicleTypes     = []string{"lkv", "pkv"}
	VehicleStatuses  = []string{"active", "in_service", "inactive", "sold"}
	AssignmentModes  = []string{"assigned", "pool", "unassigned"}
	FuelTypes        = []string{"diesel", "petrol", "electric", "hybrid"}
	TrailerTypes     = []string{"standard", "mega", "frigo", "van", "tautliner"}
	TrailerStatuses  = []string{"active", "in_service", "inactive"}
	SortFields       = []string{"internal_number", "plate_number", "created_at"}
	FrigoTag         = "frigo"
	readyStatuses    = []string{"valid", "warning", "expiring_soon"}
	defaultSortField = "internal_number"
)

// Vehicle is the full vehicle object (create, read and update answers).
type Vehicle struct {
	ID             uuid.UUID  `json:"id"`
	CompanyID      uuid.UUID  `json:"company_id"`
	OfficeID       *uuid.UUID `json:"office_id"`
	InternalNumber string     `json:"internal_number"`
	// Type is lkv (truck) or pkv (light vehicle).
	Type   string `json:"type"`
	Status string `json:"status"`
	// AssignmentMode is how a light vehicle is used (assigned, pool,
	// unassigned); null for a truck.
	AssignmentMode        *string     `json:"assignment_mode"`
	PlateNumber           string      `json:"plate_number"`
	VIN                   *string     `json:"vin"`
	Make                  *string     `json:"make"`
	Model                 *string     `json:"model"`
	Year                  *int        `json:"year"`
	FuelType              *string     `json:"fuel_type"`
	EmissionClass         *string     `json:"emission_class"`
	Color                 *string     `json:"color"`
	GrossWeightKg         *int        `json:"gross_weight_kg"`
	PayloadKg             *int        `json:"payload_kg"`
	Axles                 *int        `json:"axles"`
	OdometerKm            *int        `json:"odometer_km"`
	FirstRegistrationDate *civil.Date `json:"first_registration_date"`
	Notes                 *string     `json:"notes"`
	// Tags select the tag: requirements of the document rules (adr, …).
	Tags    []string `json:"tags"`
	IsReady bool     `json:"is_ready"`
	// CurrentUnit is the active transport unit the vehicle is in, or nil.
	CurrentUnit *CurrentUnit `json:"current_unit"`
	// Documents are its documents with status, on a single read only
	// (ReadVehicle; docs/fleet.md).
	Documents []documents.Document `json:"documents,omitempty"`
	CreatedAt time.Time            `json:"created_at"`
	UpdatedAt time.Time            `json:"updated_at"`
}

// Trailer is the full trailer object (create, read and update answers).
type Trailer struct {
	ID             uuid.UUID  `json:"id"`
	CompanyID      uuid.UUID  `json:"company_id"`
	OfficeID       *uuid.UUID `json:"office_id"`
	InternalNumber string     `json:"internal_number"`
	// Type is standard, mega, frigo, van or tautliner.
	Type             string  `json:"type"`
	Status           string  `json:"status"`
	PlateNumber      string  `json:"plate_number"`
	VIN              *string `json:"vin"`
	Make             *string `json:"make"`
	Model            *string `json:"model"`
	Year             *int    `json:"year"`
	HasRefrigeration bool    `json:"has_refrigeration"`
	// TemperatureMin and TemperatureMax are the refrigerated range in °C.
	TemperatureMin        *decimal.Decimal `json:"temperature_min"`
	TemperatureMax        *decimal.Decimal `json:"temperature_max"`
	VolumeM3              *decimal.Decimal `json:"volume_m3"`
	Color                 *string          `json:"color"`
	GrossWeightKg         *int             `json:"gross_weight_kg"`
	PayloadKg             *int             `json:"payload_kg"`
	Axles                 *int             `json:"axles"`
	FirstRegistrationDate *civil.Date      `json:"first_registration_date"`
	Notes                 *string          `json:"notes"`
	// Tags select the tag: requirements of the document rules; a trailer
	// with refrigeration always carries frigo.
	Tags        []string     `json:"tags"`
	IsReady     bool         `json:"is_ready"`
	CurrentUnit *CurrentUnit `json:"current_unit"`
	// Documents are its documents with status, on a single read only
	// (ReadTrailer; docs/fleet.md).
	Documents []documents.Document `json:"documents,omitempty"`
	CreatedAt time.Time            `json:"created_at"`
	UpdatedAt time.Time            `json:"updated_at"`
}

// CurrentUnit is the active transport unit a vehicle or trailer is in.
type CurrentUnit struct {
	ID     uuid.UUID  `json:"id"`
	Driver UnitDriver `json:"driver"`
	// Vehicle is the unit's vehicle, given on a trailer's unit only.
	Vehicle *UnitRecord `json:"vehicle,omitempty"`
	// Trailer is the unit's trailer, null when it has none.
	Trailer *UnitRecord `json:"trailer"`
}

// UnitDriver is the driver of a transport unit.
type UnitDriver struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	FirstName      string    `json:"first_name"`
	LastName       string    `json:"last_name"`
}

// UnitRecord is a vehicle or trailer of a transport unit.
type UnitRecord struct {
	ID             uuid.UUID `json:"id"`
	InternalNumber string    `json:"internal_number"`
	PlateNumber    *string   `json:"plate_number"`
}

// DocumentsSummary counts a record's documents by status, as the drivers
// list's summary does.
type DocumentsSummary struct {
	Total        int `json:"total"`
	Valid        int `json:"valid"`
	Warning      int `json:"warning"`
	ExpiringSoon int `json:"expiring_soon"`
	Expired      int `json:"expired"`
	NoData       int `json:"no_data"`
}

// VehicleItem is a vehicle as the list shows it: the full object with its
// documents' summary.
type VehicleItem struct {
	Vehicle
	DocumentsSummary DocumentsSummary `json:"documents_summary"`
	// DeletedAt is set on a soft-deleted vehicle, which only the change
	// feed with include_deleted=true shows (the key is absent otherwise).
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
}

// TrailerItem is a trailer as the list shows it.
type TrailerItem struct {
	Trailer
	DocumentsSummary DocumentsSummary `json:"documents_summary"`
	DeletedAt        *time.Time       `json:"deleted_at,omitempty"`
}

// VehicleList is one page of vehicles.
type VehicleList struct {
	paging.Page[VehicleItem]
}

// TrailerList is one page of trailers.
type TrailerList struct {
	paging.Page[TrailerItem]
}

// Service manages vehicles and trailers.
type Service struct {
	db        *pgxpool.Pool
	cursorKey []byte
}

// NewService returns a fleet service. cursorKey signs list cursors (HMAC-
// SHA256); it must be secret and the same on every instance.
func NewService(db *pgxpool.Pool, cursorKey []byte) *Service {
	return &Service{db: db, cursorKey: cursorKey}
}
