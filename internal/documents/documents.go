// Package documents holds drivers' compliance documents (one record per type
// per driver), their versioned files and the expiry status rules.
package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
)

// Types are the 14 document types every driver has, in display order.
var Types = []string{
	"passport", "visa_biometrics", "residence_permit", "work_permit",
	"a1_eu", "a1_switzerland", "declaration", "health_insurance",
	"travel_insurance", "drivers_license", "adr_certificate",
	"tachograph_card", "code_95", "medical_examination",
}

// The holder types: whose documents they are (docs/fleet.md).
const (
	HolderDriver  = "driver"
	HolderVehicle = "vehicle"
	HolderTrailer = "trailer"
)

// VehicleTypes and TrailerTypes are the built-in document types of
// vehicles and of trailers, in display order (konvoj_builtin_document_types).
var (
	VehicleTypes = []string{"technical_inspection", "liability_insurance", "tachograph_calibration",
		"community_licence_copy", "adr_vehicle_certificate", "registration_certificate"}
	TrailerTypes = []string{"technical_inspection", "liability_insurance", "adr_vehicle_certificate",
		"atp_certificate", "registration_certificate"}
)

// BuiltInTypes are the built-in document types of a holder type.
func BuiltInTypes(holderType string) []string {
	switch holderType {
	case HolderVehicle:
		return VehicleTypes
	case HolderTrailer:
		return TrailerTypes
	}
	return Types
}

// noExpiryTypes are the built-in types whose documents have no expiry (a
// valid_until is 422).
var noExpiryTypes = []string{"registration_certificate"}

// Statuses are the document statuses, best first.
var Statuses = []string{"valid", "warning", "expiring_soon", "expired", "no_data"}

// Status computes a document's status (docs/drivers-and-documents.md); the SQL function
// konvoj_document_status is the same rule for set-based queries.
func Status(hasFile bool, validUntil *civil.Date, today civil.Date) string {
	switch {
	case !hasFile:
		return "no_data"
	case validUntil == nil:
		return "valid"
	}
	days := today.DaysUntil(*validUntil)
	switch {
	case days < 0:
		return "expired"
	case days < 15:
		return "expiring_soon"
	case days <= 30:
		return "warning"
	}
	return "valid"
}

// FileSummary is a file as listed inside a document.
type FileSummary struct {
	ID               uuid.UUID `json:"id"`
	Filename         string    `json:"filename"`
	OriginalFilename string    `json:"original_filename"`
	MimeType         string    `json:"mime_type"`
	SizeBytes        int64     `json:"size_bytes"`
	Version          int       `json:"version"`
	IsCurrent        bool      `json:"is_current"`
	UploadedAt       time.Time `json:"uploaded_at"`
	Review
}

// Document is a document record as the API shows it.
type Document struct {
	ID uuid.UUID `json:"id"`
	// HolderType and HolderID name whose document it is: a driver's, a
	// vehicle's or a trailer's (docs/fleet.md). A driver's keeps DriverID
	// too; a fleet document has none (left out of the JSON).
	HolderType string      `json:"holder_type"`
	HolderID   uuid.UUID   `json:"holder_id"`
	DriverID   uuid.UUID   `json:"driver_id,omitzero"`
	Type       string      `json:"type"`
	Number     *string     `json:"number"`
	Country    *string     `json:"country"`
	ValidFrom  *civil.Date `json:"valid_from"`
	ValidUntil *civil.Date `json:"valid_until"`
	// Status is the effective status: the worse of the document's own
	// and its cap's (docs/drivers-and-documents.md, "Validity chains").
	Status string `json:"status"`
	// LimitedBy is the type of the capping document while its status is
	// the worse one (null otherwise).
	LimitedBy       *string `json:"limited_by"`
	DaysUntilExpiry *int    `json:"days_until_expiry"`
	// EffectiveUntil is the date Status follows: the document's own
	// valid_until, or while LimitedBy names a cap, the cap's effective
	// date (nil when that document has none, or has no file).
	// EffectiveDays counts the days to it. The pages show these, so that
	// the badge, the date and the days left say the same thing
	// (docs/drivers-and-documents.md, "Validity chains"); the API's
	// valid_until and days_until_expiry stay the document's own. Set for
	// a driver's whole list; a single document's read sets them only
	// when no cap limits it.
	EffectiveUntil *civil.Date     `json:"-"`
	EffectiveDays  *int            `json:"-"`
	Meta           json.RawMessage `json:"meta"`
	// Files are all versions, newest first; nil (left out of the JSON)
	// for callers who may see statuses only.
	Files     []FileSummary `json:"files,omitzero"`
	UpdatedAt time.Time     `json:"updated_at"`
}

// Service manages documents and files.
type Service struct {
	db       *pgxpool.Pool
	files    storage.Store
	maxBytes int64
	// notifyReview tells a driver the outcome of a review (nil: nobody).
	notifyReview ReviewNotifier
	// feedCodec signs the change feed's cursors.
	feedCodec feed.Codec
}

// Options are what a documents service needs besides the database.
type Options struct {
	// Files is where document files are kept.
	Files storage.Store
	// MaxBytes is the largest file an upload may carry (UPLOAD_MAX_BYTES).
	MaxBytes int64
	// CursorKey signs the change feed's cursors; it must be secret and the
	// same on every instance.
	CursorKey []byte
	// ReviewNotifier tells drivers the outcome of reviews (nil: nobody,
	// for tests of the documents alone).
	ReviewNotifier ReviewNotifier
}

// NewService returns a documents service on db.
func NewService(db *pgxpool.Pool, o Options) *Service {
	return &Service{db: db, files: o.Files, maxBytes: o.MaxBytes, notifyReview: o.ReviewNotifier,
		feedCodec: feed.NewCodec(o.CursorKey)}
}

// MaxBytes is the largest file an upload may carry.
func (s *Service) MaxBytes() int64 { return s.maxBytes }

// CreateForDriver creates the empty document records of a new driver, one
// of each built-in and each custom type of the company (retired ones too,
// so that bringing one back finds every record), on the driver's create
// transaction. That transaction holds the company row's lock (the driver
// number), as a type create does, so no type is missed.
func CreateForDriver(ctx context.Context, tx postgres.DBTX, companyID, driverID uuid.UUID) error {
	return CreateForDrivers(ctx, tx, companyID, []uuid.UUID{driverID})
}

// CreateForDrivers is CreateForDriver for many new drivers in one
// statement (the driver import).
func CreateForDrivers(ctx context.Context, tx postgres.DBTX, companyID uuid.UUID, driverIDs []uuid.UUID) error {
	custom, err := customTypeCodes(ctx, tx, companyID)
	if err != nil {
		return err
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO driver_documents (company_id, driver_id, type)
		SELECT $1, d, t FROM unnest($2::uuid[]) AS d CROSS JOIN unnest($3::text[]) AS t`,
		companyID, driverIDs, append(slices.Clone(Types), custom...))
	if err != nil {
		return fmt.Errorf("create documents of %d drivers: %w", len(driverIDs), err)
	}
	return nil
}

// QueueForDriver adds the statements of a driver's documents (Read's) to b, for a caller that sends
// them with statements of its own in one round trip: once b has run,
// *docs holds the documents.
func QueueForDriver(b *pgx.Batch, companyID, driverID uuid.UUID, today civil.Date, withFiles bool, docs *[]Document) {
	queueDocuments(b, companyID, HolderDriver, driverID, "", nil, today, withFiles, docs)
}

// ForHolder returns a vehicle's or a trailer's documents (QueueForHolder)
// on db.
func ForHolder(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, holderType string, holderID uuid.UUID, kind string, today civil.Date, withFiles bool) ([]Document, error) {
	var docs []Document
	b := &pgx.Batch{}
	queueDocuments(b, companyID, holderType, holderID, kind, nil, today, withFiles, &docs)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return docs, nil
}

// DocumentOf returns a holder's document with its files as the API
// returns it (for background work without a caller: the webhook events of
// the daily scan); nil when there is none.
func DocumentOf(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, holderType string, holderID, docID uuid.UUID, today civil.Date) (*Document, error) {
	docs, err := queryDocuments(ctx, db, companyID, holderType, holderID, &docID, today, true)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	return &docs[0], nil
}

// queryDocuments loads the holder's documents (only docID when not nil,
// else those of live types that apply to it) with their effective status
// (konvoj_document_statuses: the validity chains) and, when withFiles,
// their files, in one round trip (queueDocuments).
func queryDocuments(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, holderType string, holderID uuid.UUID, docID *uuid.UUID, today civil.Date, withFiles bool) ([]Document, error) {
	var docs []Document
	b := &pgx.Batch{}
	queueDocuments(b, companyID, holderType, holderID, "", docID, today, withFiles, &docs)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, err
	}
	return docs, nil
}

// queueDocuments adds queryDocuments' statements to b; once b has run,
// *docs holds the documents. The two statements need nothing from each
// other: the files are selected by the holder (and docID), not by the
// documents the first statement returns, and those of a document it left
// out (a retired type's) are dropped when they are matched up.
//
// A driver's documents read the company's document facts (the drivers'
// chains and retired types); a vehicle's or a trailer's work out those of
// its holder type, and a list leaves out the types that do not apply to
// the vehicle's kind (a light vehicle has no tachograph calibration).
func queueDocuments(b *pgx.Batch, companyID uuid.UUID, holderType string, holderID uuid.UUID, kind string, docID *uuid.UUID, today civil.Date, withFiles bool, docs *[]Document) {
	b.Queue(`
		WITH co AS MATERIALIZED (
			SELECT CASE WHEN $5 = 'driver' THEN f.chains ELSE konvoj_document_chains($1, $5) END AS chains,
				CASE WHEN $3::uuid IS NOT NULL THEN '{}'
					WHEN $5 = 'driver' THEN f.retired ELSE konvoj_retired_document_types($1, $5) END AS hidden,
				konvoj_document_type_order($1, $5) AS type_order,
				CASE WHEN $5 = 'vehicle' THEN $6::text END AS kind
			FROM company_document_facts f WHERE f.company_id = $1
		)
		SELECT d.id, d.holder_type, d.holder_id, d.driver_id, d.type, d.number, d.country, d.valid_from, d.valid_until,
			d.meta, d.updated_at, st.status, st.limited_by
		FROM co
		CROSS JOIN LATERAL konvoj_document_statuses($1, $2, $4, co.chains, co.hidden) st
		JOIN driver_documents d ON d.id = st.id AND d.company_id = $1
		WHERE ($3::uuid IS NULL OR d.id = $3) AND d.holder_type = $5
			AND ($3::uuid IS NOT NULL OR konvoj_fleet_type_applies($5, co.kind, d.type))
		ORDER BY array_position(co.type_order, d.type), d.type`, companyID, holderID, docID, today, holderType, kind).
		Query(func(rows pgx.Rows) error {
			got, err := postgres.AppendRows(nil, rows, func(row pgx.Row, d *Document) error {
				var driverID *uuid.UUID
				err := row.Scan(&d.ID, &d.HolderType, &d.HolderID, &driverID, &d.Type, &d.Number, &d.Country, &d.ValidFrom, &d.ValidUntil, &d.Meta, &d.UpdatedAt,
					&d.Status, &d.LimitedBy)
				if driverID != nil {
					d.DriverID = *driverID
				}
				d.fill(today)
				if withFiles {
					d.Files = []FileSummary{}
				}
				return err
			})
			if err != nil {
				return fmt.Errorf("list documents: %w", err)
			}
			effectiveDates(got, today)
			*docs = got
			return nil
		})
	if !withFiles {
		return
	}
	b.Queue(`
		SELECT f.id, f.document_id, f.filename, f.original_filename, f.mime_type, f.size_bytes, f.version, f.is_current, f.uploaded_at,
			f.review_status, f.review_reason, f.reviewed_by, f.reviewed_at
		FROM driver_documents d
		JOIN document_files f ON f.company_id = d.company_id AND f.document_id = d.id
		WHERE d.company_id = $1 AND (d.driver_id = $2 OR (d.holder_type <> 'driver' AND d.holder_id = $2)) AND ($3::uuid IS NULL OR d.id = $3)
		ORDER BY f.document_id, f.version DESC`, companyID, holderID, docID).
		Query(func(rows pgx.Rows) error {
			// The files come grouped by document, so each document's are a
			// run of one array: one allocation for them all.
			var owner uuid.UUID
			owners := make([]uuid.UUID, 0, 2*len(*docs))
			files, err := postgres.AppendRows(make([]FileSummary, 0, 2*len(*docs)), rows, func(row pgx.Row, f *FileSummary) error {
				err := row.Scan(&f.ID, &owner, &f.Filename, &f.OriginalFilename, &f.MimeType, &f.SizeBytes, &f.Version, &f.IsCurrent, &f.UploadedAt,
					&f.Review.Status, &f.Review.Reason, &f.Review.ReviewedBy, &f.Review.ReviewedAt)
				owners = append(owners, owner)
				return err
			})
			if err != nil {
				return fmt.Errorf("list files: %w", err)
			}
			index := make(map[uuid.UUID]int, len(*docs))
			for i, d := range *docs {
				index[d.ID] = i
			}
			for start := 0; start < len(files); {
				end := start + 1
				for end < len(files) && owners[end] == owners[start] {
					end++
				}
				if i, ok := index[owners[start]]; ok {
					(*docs)[i].Files = files[start:end:end]
				}
				start = end
			}
			return nil
		})
}

// fill computes days_until_expiry (the status comes from SQL).
func (d *Document) fill(today civil.Date) {
	if d.ValidUntil != nil {
		n := today.DaysUntil(*d.ValidUntil)
		d.DaysUntilExpiry = &n
	}
	if len(d.Meta) == 0 {
		d.Meta = json.RawMessage(`{}`)
	}
}

// effectiveDates sets each document's EffectiveUntil and EffectiveDays:
// its own valid_until, or, while a cap limits it, the effective date of
// the capping document (which, limited in turn, follows its own cap). A
// cap not among docs (a single document's read) leaves the date unset.
func effectiveDates(docs []Document, today civil.Date) {
	byType := make(map[string]int, len(docs))
	for i, d := range docs {
		byType[d.Type] = i
	}
	var until func(i, depth int) (*civil.Date, bool)
	until = func(i, depth int) (*civil.Date, bool) {
		d := docs[i]
		if d.LimitedBy == nil {
			if d.Status == "no_data" {
				return nil, true
			}
			return d.ValidUntil, true
		}
		j, ok := byType[*d.LimitedBy]
		if !ok || depth > len(docs) {
			return nil, false
		}
		return until(j, depth+1)
	}
	for i := range docs {
		date, ok := until(i, 0)
		if !ok {
			continue
		}
		docs[i].EffectiveUntil = date
		if date != nil {
			n := today.DaysUntil(*date)
			docs[i].EffectiveDays = &n
		}
	}
}
