// Package drivers manages a company's drivers: create (with the driver's 14
// document records and its DRV- number), read, partial update, soft delete,
// and the list HR works in (filters, accent-insensitive search, sorting,
// offset and signed-cursor pagination, document summaries computed in SQL).
//
// The service is the security boundary: every method takes the caller's
// Principal and the ids, and the loaders of access.go decide access (the
// permission matrix and tenancy checks, in the order of docs/errors.md) as
// they load the record the method then works on.
package drivers

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
)

// Statuses are the driver statuses.
var Statuses = []string{"active", "on_leave", "inactive", "terminated"}

// ActiveStatuses are the statuses of a driver at work, active or on leave:
// the home pages count these drivers unless a filter says otherwise
// (docs/web-app.md, "Home pages").
var ActiveStatuses = []string{"active", "on_leave"}

// Driver is the full driver object (create, read and update responses).
type Driver struct {
	ID                  uuid.UUID       `json:"id"`
	CompanyID           uuid.UUID       `json:"company_id"`
	OfficeID            *uuid.UUID      `json:"office_id"`
	InternalNumber      string          `json:"internal_number"`
	FirstName           string          `json:"first_name"`
	LastName            string          `json:"last_name"`
	MiddleName          *string         `json:"middle_name"`
	BirthDate           *civil.Date     `json:"birth_date"`
	Citizenship         *string         `json:"citizenship"`
	RodneCislo          *string         `json:"rodne_cislo"`
	Email               string          `json:"email"`
	Phone               *string         `json:"phone"`
	RegistrationAddress *string         `json:"registration_address"`
	ResidenceAddress    *string         `json:"residence_address"`
	Status              string          `json:"status"`
	HireDate            *civil.Date     `json:"hire_date"`
	FireDate            *civil.Date     `json:"fire_date"`
	ContractFrom        *civil.Date     `json:"contract_from"`
	ContractTo          *civil.Date     `json:"contract_to"`
	ContractIndefinite  bool            `json:"contract_indefinite"`
	WorkLocation        *string         `json:"work_location"`
	BankCountry         *string         `json:"bank_country"`
	BankAccount         *string         `json:"bank_account"`
	IBAN                *string         `json:"iban"`
	SWIFT               *string         `json:"swift"`
	Flags               json.RawMessage `json:"flags"`
	// Tags put the driver in requirement groups (a document rule
	// required_for tag:<tag>); lower case, at most MaxTags.
	Tags []string `json:"tags"`
	// Language is the driver's language for e-mails (cs, en, pl, uk, ro);
	// nil: the company's.
	Language *string `json:"language"`
	IsReady  bool    `json:"is_ready"`
	// RequiredTypes are the document types the company's rules require of
	// the driver (by citizenship and tags), set by the single-driver read:
	// the pages call a document of another type without a file "not
	// uploaded" rather than missing.
	RequiredTypes []string `json:"-"`
	// Documents is filled on the single-driver read only: with files for
	// callers who may list documents, statuses only for the dispatcher, and
	// left out (the key is absent) for roles that may not list documents.
	Documents []documents.Document `json:"documents,omitempty"`
	CreatedAt time.Time            `json:"created_at"`
	UpdatedAt time.Time            `json:"updated_at"`
	// personalHidden: the caller may not read the personal fields
	// (auth.PersonalFields); they are cleared and their keys left out.
	personalHidden bool
	// inUnit: an update found the driver in an active transport unit
	// (docs/dispatch.md), whose readiness the change may have changed.
	inUnit bool
}

// PersonalHidden reports whether the personal fields were withheld from
// the caller (docs/permissions.md): a page leaves them out.
func (d Driver) PersonalHidden() bool { return d.personalHidden }

// MarshalJSON writes the driver; without the personal fields' keys when
// they are withheld.
func (d Driver) MarshalJSON() ([]byte, error) {
	v, err := d.Encoded()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// plainDriver is a Driver without its MarshalJSON.
type plainDriver Driver

// Encoded is what the driver's JSON encodes, for a response to encode
// directly: encoding a Driver costs twice as much, for encoding/json reads
// a MarshalJSON's output through again (documents and files included).
func (d Driver) Encoded() (any, error) {
	if !d.personalHidden {
		return plainDriver(d), nil
	}
	b, err := json.Marshal(plainDriver(d))
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, k := range auth.PersonalFields {
		delete(m, k)
	}
	return m, nil
}

// ListItem is a driver as the list shows it.
type ListItem struct {
	ID               uuid.UUID        `json:"id"`
	InternalNumber   string           `json:"internal_number"`
	FirstName        string           `json:"first_name"`
	LastName         string           `json:"last_name"`
	Email            string           `json:"email"`
	Phone            *string          `json:"phone"`
	Citizenship      *string          `json:"citizenship"`
	Status           string           `json:"status"`
	HireDate         *civil.Date      `json:"hire_date"`
	IsReady          bool             `json:"is_ready"`
	DocumentsSummary DocumentsSummary `json:"documents_summary"`
	// NextExpiry, NextDue and Expired are not part of the specification's
	// list item: the API adds each only when the client asks (include).
	NextExpiry *NextExpiry `json:"-"`
	// NextDue is the driver's next document coming due: of its documents
	// with a current file and a valid_until from today on, the earliest
	// (ties broken by type code); nil when none.
	NextDue *NextExpiry `json:"-"`
	// Expired are the driver's documents with a current file whose own
	// valid_until has passed, the longest expired first (ties by type
	// code); NextExpiry is the first of them, else NextDue.
	Expired   []NextExpiry `json:"-"`
	CreatedAt time.Time    `json:"created_at"`
	UpdatedAt time.Time    `json:"updated_at"`
	// DeletedAt is set on a soft-deleted driver, which only the change
	// feed with include_deleted=true shows (the key is absent otherwise).
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
}

// NextExpiry is a driver's most urgent document: of its documents that
// have a current file and a valid_until, the one with the earliest
// valid_until (an expired one, when there is one), ties broken by type
// code. Documents without a file (no_data) or without an expiry are never
// the next expiry; a driver with none has a null NextExpiry.
type NextExpiry struct {
	DocumentID   uuid.UUID  `json:"document_id"`
	DocumentType string     `json:"document_type"`
	ValidUntil   civil.Date `json:"valid_until"`
	// DaysUntilExpiry counts from today in the company's time zone;
	// negative when expired.
	DaysUntilExpiry int    `json:"days_until_expiry"`
	Status          string `json:"status"`
}

// DocumentsSummary counts a driver's documents by status.
type DocumentsSummary struct {
	Total        int `json:"total"`
	Valid        int `json:"valid"`
	Warning      int `json:"warning"`
	ExpiringSoon int `json:"expiring_soon"`
	Expired      int `json:"expired"`
	NoData       int `json:"no_data"`
}

// Service manages drivers.
type Service struct {
	db        *pgxpool.Pool
	cursorKey []byte
}

// NewService returns a drivers service. cursorKey signs list cursors (HMAC-
// SHA256); it must be secret and the same on every instance.
func NewService(db *pgxpool.Pool, cursorKey []byte) *Service {
	return &Service{db: db, cursorKey: cursorKey}
}

// auditValues are the stored fields of a driver as the audit log records
// them (computed fields and timestamps left out).
func (d Driver) auditValues() map[string]any {
	return map[string]any{
		"office_id":            d.OfficeID,
		"internal_number":      d.InternalNumber,
		"first_name":           d.FirstName,
		"last_name":            d.LastName,
		"middle_name":          d.MiddleName,
		"birth_date":           d.BirthDate,
		"citizenship":          d.Citizenship,
		"rodne_cislo":          d.RodneCislo,
		"email":                d.Email,
		"phone":                d.Phone,
		"registration_address": d.RegistrationAddress,
		"residence_address":    d.ResidenceAddress,
		"status":               d.Status,
		"hire_date":            d.HireDate,
		"fire_date":            d.FireDate,
		"contract_from":        d.ContractFrom,
		"contract_to":          d.ContractTo,
		"contract_indefinite":  d.ContractIndefinite,
		"work_location":        d.WorkLocation,
		"bank_country":         d.BankCountry,
		"bank_account":         d.BankAccount,
		"iban":                 d.IBAN,
		"swift":                d.SWIFT,
		"flags":                d.Flags,
		"tags":                 d.Tags,
		"language":             d.Language,
	}
}
