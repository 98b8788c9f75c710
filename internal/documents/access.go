package documents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/uploads"
)

// This file is where the documents area decides access (docs/errors.md,
// the check order): each loader takes the caller, the action and the ids,
// loads the record once, decides, and returns it for the service to pass
// on. A lookup that finds nothing falls back to the step-by-step checks
// only to answer the right 403 or 404.

// docRecord is a document loaded for a caller's action: whose it is (a
// driver's, a vehicle's or a trailer's; DriverID is uuid.Nil for a fleet
// document), its type, and its fields and current file as they stand
// (locked for the rest of the transaction when loaded with lock).
type docRecord struct {
	ID          uuid.UUID
	CompanyID   uuid.UUID
	HolderType  string
	HolderID    uuid.UUID
	DriverID    uuid.UUID
	Type        string
	Fields      metadata
	CurrentFile *uuid.UUID
}

// folder is where the document's files are stored:
// {company}/{holder}/{type}.
func (d docRecord) folder() string {
	return fmt.Sprintf("%s/%s/%s", d.CompanyID, d.HolderID, d.Type)
}

// fleet reports whether the document is a vehicle's or a trailer's.
func (d docRecord) fleet() bool { return d.HolderType != HolderDriver }

// Documents of vehicles and trailers are checked with the fleet's actions
// (docs/permissions.md): listing them with auth.FleetRead; their writes,
// files and reviews with auth.FleetDocuments (admins and dispatchers).

// fleetAction is the fleet's action for a documents action a.
func fleetAction(a auth.Action) auth.Action {
	if a == auth.DocumentsList {
		return auth.FleetRead
	}
	return auth.FleetDocuments
}

// requireAny is the role check before a document is loaded, when it is not
// yet known whose it is: the role may do a on drivers' documents or its
// fleet action on vehicles' and trailers' (403 Forbidden otherwise).
func requireAny(p auth.Principal, a auth.Action) error {
	if p.Grant(fleetAction(a)) != auth.Deny {
		return nil
	}
	return p.Require(a)
}

// reachDocument is the record step of a loaded document: a driver's is
// checked with a (company, own record), a fleet document with the fleet's
// action (403 Forbidden for a role without it, then the company).
func reachDocument(p auth.Principal, a auth.Action, d docRecord) error {
	if d.fleet() {
		return holders.Reach(p, fleetAction(a), d.CompanyID, uuid.Nil)
	}
	return holders.Reach(p, a, d.CompanyID, d.DriverID)
}

// holderJoins join a document d with its holder: dr (a driver), hv (a
// vehicle) or ht (a trailer); holderLive says the holder is not deleted.
const (
	holderJoins = ` LEFT JOIN drivers dr ON dr.id = d.driver_id AND dr.company_id = d.company_id
		LEFT JOIN vehicles hv ON hv.id = d.vehicle_id AND hv.company_id = d.company_id
		LEFT JOIN trailers ht ON ht.id = d.trailer_id AND ht.company_id = d.company_id`
	holderLive = `coalesce(dr.deleted_at, hv.deleted_at, ht.deleted_at) IS NULL`
	// holderName names the holder for messages: a driver by name, a
	// vehicle or a trailer by its plate (else its internal number).
	holderName = `CASE d.holder_type WHEN 'driver' THEN concat_ws(' ', dr.first_name, dr.middle_name, dr.last_name)
		WHEN 'vehicle' THEN coalesce(hv.plate_number, hv.internal_number) ELSE coalesce(ht.plate_number, ht.internal_number) END`
)

// uploadFolder names the folder of document $5's files in SQL, as
// docRecord.folder does, when the caller may upload to it: its holder is
// live; of the path's holder ($6 of type $11, when it names one); a
// driver's document when the caller may write drivers' ($9) and, for a caller limited to
// its own records, the caller's ($7); a fleet document when the caller may
// write those ($10); and it is of the caller's company ($8; row-level
// security says so too).
const uploadFolder = `SELECT concat_ws('/', d.company_id, d.holder_id, d.type)
	FROM driver_documents d` + holderJoins + `
	WHERE d.id = $5 AND ` + holderLive + ` AND ($6::uuid IS NULL OR (d.holder_id = $6 AND d.holder_type = $11))
		AND CASE WHEN d.holder_type = 'driver' THEN $9::boolean AND ($7::uuid IS NULL OR d.driver_id = $7) ELSE $10::boolean END
		AND d.company_id = $8`

// recordUpload commits the pending record of file fileID of document
// documentID (uploads.RecordPending) for the caller's upload, in the
// statement that tells whether the caller may upload there, so that a
// caller who may not is refused before the body is read: the role first
// (403 Forbidden, before any query); when the statement finds no document
// the caller may upload to, the step-by-step checks answer (403, 404).
// The upload's transaction loads the document itself (loadDocumentTaking).
func recordUpload(ctx context.Context, db *pgxpool.Pool, files storage.Store, p auth.Principal, holder pathHolder, documentID, fileID uuid.UUID) (uploads.Pending, error) {
	if err := requireAny(p, auth.DocumentsWrite); err != nil {
		return uploads.Pending{}, err
	}
	drivers := p.Grant(auth.DocumentsWrite) != auth.Deny
	var only *uuid.UUID
	if drivers {
		var err error
		if only, err = holders.Collection(p, auth.DocumentsWrite); err != nil {
			return uploads.Pending{}, err
		}
	}
	fleet := p.Grant(auth.FleetDocuments) != auth.Deny
	var pathID *uuid.UUID
	if holder.ID != uuid.Nil {
		pathID = &holder.ID
	}
	pd, err := uploads.RecordPending(ctx, db, files, uploads.Object{Table: "document_files", CompanyID: p.CompanyID, ID: fileID,
		FolderQuery: uploadFolder, FolderArgs: []any{documentID, pathID, only, p.CompanyID, drivers, fleet, holder.Type}})
	if errors.Is(err, uploads.ErrNoFolder) {
		return uploads.Pending{}, checkUpload(ctx, db, p, documentID, holder)
	}
	return pd, err
}

// documentColumns are what loadDocument reads of a document joined with
// its live holder (holderJoins).
const documentColumns = `d.company_id, d.holder_type, d.holder_id, coalesce(d.driver_id, '00000000-0000-0000-0000-000000000000'),
	d.type, d.number, d.country, d.valid_from, d.valid_until, d.meta, d.current_file_id`

func (d *docRecord) scanTargets() []any {
	return []any{&d.CompanyID, &d.HolderType, &d.HolderID, &d.DriverID, &d.Type, &d.Fields.Number, &d.Fields.Country, &d.Fields.ValidFrom, &d.Fields.ValidUntil,
		&d.Fields.Meta, &d.CurrentFile}
}

// loadDocument loads document id for the caller's action a: the role may
// do it on drivers' or on the fleet's documents (403 Forbidden, before any
// query), the document exists and its holder is not deleted (404; another
// company's 403 AccessDenied), the role may do it on this holder's
// documents (a fleet document: reachDocument, 403 Forbidden), it is the
// caller's own for a caller limited to its own (403 AccessDenied).
// With lock the row stays locked for the rest of q's transaction.
func loadDocument(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (docRecord, error) {
	return loadDocumentTaking(ctx, q, p, a, id, lock, "", nil, nil)
}

// loadDocumentTaking is loadDocument whose statement runs take too, a
// data-modifying query as a WITH (an upload's pending record,
// uploads.Take.SQL, with takeArgs from $2): *taken says whether take
// returned a row.
func loadDocumentTaking(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool,
	take string, takeArgs []any, taken *bool) (docRecord, error) {
	if err := requireAny(p, a); err != nil {
		return docRecord{}, err
	}
	d := docRecord{ID: id}
	sql := `SELECT ` + documentColumns
	targets := d.scanTargets()
	args := []any{id}
	if take != "" {
		sql = `WITH taken AS (` + take + `) SELECT ` + documentColumns + `, EXISTS (SELECT FROM taken)`
		targets = append(targets, taken)
		args = append(args, takeArgs...)
	}
	sql += ` FROM driver_documents d` + holderJoins + `
		WHERE d.id = $1 AND ` + holderLive
	if lock {
		sql += ` FOR UPDATE OF d`
	}
	err := q.QueryRow(ctx, sql, args...).Scan(targets...)
	if errors.Is(err, pgx.ErrNoRows) {
		return docRecord{}, documentMissing(ctx, q, p, a, id)
	}
	if err != nil {
		return docRecord{}, fmt.Errorf("load document %s: %w", id, err)
	}
	if err := reachDocument(p, a, d); err != nil {
		return docRecord{}, err
	}
	return d, nil
}

// documentMissing is the answer for a document id that a lookup did not
// find: another company's is 403 AccessDenied (row-level security hid it),
// anything else (none, or a deleted driver's) 404. A role that may do a
// only on vehicles' and trailers' documents (a dispatcher's write) cannot
// be told whose a missing document would be: it is answered as it was
// before the fleet had documents, 403 Forbidden (docs/fleet.md).
func documentMissing(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) error {
	if err := p.Require(a); err != nil {
		return err
	}
	return holders.Hidden(ctx, q, p, "driver_documents", id, apperr.NotFound("msg.common.not_found.document"))
}

// checkUpload answers an upload whose document recordUpload did not find:
// the checks of loadDocument and the path's holder, in order.
func checkUpload(ctx context.Context, q postgres.DBTX, p auth.Principal, id uuid.UUID, holder pathHolder) error {
	d, err := loadDocument(ctx, q, p, auth.DocumentsWrite, id, false)
	if err != nil {
		return err
	}
	if !holder.holds(d) {
		return apperr.NotFound("msg.common.not_found.document")
	}
	return apperr.NotFound("msg.common.not_found.document") // gone meanwhile
}

// fileRecord is a stored file version loaded for a caller's action, with
// its document (and the document's driver's name, for messages).
type fileRecord struct {
	File   File
	Doc    docRecord
	Change []byte // review_change: the fields sent with a pending version
	Driver string // the holder's name: a driver's, a vehicle's or a trailer's plate
}

// loadFile loads file version id for the caller's action a, with the checks
// of loadDocument on its document (404 msg.common.not_found.file). With
// lock the document and the file stay locked (a review).
func loadFile(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, lock bool) (fileRecord, error) {
	if err := requireAny(p, a); err != nil {
		return fileRecord{}, err
	}
	r := fileRecord{Doc: docRecord{}}
	f := &r.File
	sql := `SELECT f.id, f.document_id, f.filename, f.original_filename, f.mime_type, f.size_bytes, f.version, f.is_current,
			f.storage_path, f.storage_disk, f.hash_sha256, f.uploaded_by, f.uploaded_at,
			f.review_status, f.review_reason, f.reviewed_by, f.reviewed_at, f.review_change,
			` + documentColumns + `, ` + holderName + `
		FROM document_files f
		JOIN driver_documents d ON d.id = f.document_id AND d.company_id = f.company_id` + holderJoins + `
		WHERE f.id = $1 AND ` + holderLive
	if lock {
		sql += ` FOR UPDATE OF d, f`
	}
	targets := append([]any{&f.ID, &f.DocumentID, &f.Filename, &f.OriginalFilename, &f.MimeType, &f.SizeBytes, &f.Version, &f.IsCurrent,
		&f.StoragePath, &f.StorageDisk, &f.HashSHA256, &f.UploadedBy, &f.UploadedAt,
		&f.Review.Status, &f.Review.Reason, &f.Review.ReviewedBy, &f.Review.ReviewedAt, &r.Change}, r.Doc.scanTargets()...)
	err := q.QueryRow(ctx, sql, id).Scan(append(targets, &r.Driver)...)
	if errors.Is(err, pgx.ErrNoRows) {
		if err := p.Require(a); err != nil {
			return fileRecord{}, err // as documentMissing
		}
		return fileRecord{}, holders.Hidden(ctx, q, p, "document_files", id, apperr.NotFound("msg.common.not_found.file"))
	}
	if err != nil {
		return fileRecord{}, fmt.Errorf("load file %s: %w", id, err)
	}
	r.Doc.ID = f.DocumentID
	if err := reachDocument(p, a, r.Doc); err != nil {
		return fileRecord{}, err
	}
	return r, nil
}

// loadDriverWith loads driver id for the caller's action a (holders'
// checks) with the statements queue adds, in one round trip.
func loadDriverWith(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, queue func(b *pgx.Batch)) (holders.Driver, error) {
	return holders.LoadDriverWith(ctx, q, p, a, id, queue)
}

// loadDriver loads driver id for the caller's action a.
func loadDriver(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (holders.Driver, error) {
	return holders.LoadDriver(ctx, q, p, a, id)
}

// companyOf checks the caller's action a on company companyID as a whole
// (its document rules and types): 403 Forbidden, 404, 403 AccessDenied.
func companyOf(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, companyID uuid.UUID) error {
	return holders.Company(ctx, q, p, a, companyID)
}

// collection is the check of a list of the caller's company for action a:
// only is the driver a caller limited to its own records is narrowed to.
func collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	return holders.Collection(p, a)
}

// expiryList is the check of the company's documents by expiry (403
// Forbidden for a role that may not list them); numbers says whether the
// caller sees the documents' numbers (a dispatcher sees statuses only).
func expiryList(p auth.Principal) (numbers bool, err error) {
	if _, err := collection(p, auth.DocumentsExpiry); err != nil {
		return false, err
	}
	return p.Grant(auth.DocumentsExpiry) != auth.NoFiles, nil
}

// withFiles reports whether the caller sees the files of the documents it
// lists (a dispatcher sees statuses only).
func withFiles(p auth.Principal) bool { return p.Grant(auth.DocumentsList) != auth.NoFiles }

// showsStorage reports whether the caller may see where a file is stored:
// not a caller limited to its own records, the driver (docs/security.md).
func showsStorage(p auth.Principal) bool { return p.Grant(auth.FilesRead) != auth.Own }

// reviewsOwnChanges reports whether the caller's own changes count at once
// (HR and admins approve their own uploads by uploading); a driver's wait
// for review when the type's rule asks for it.
func reviewsOwnChanges(p auth.Principal) bool { return p.Grant(auth.DocumentsReview) != auth.Deny }

// mayReadFiles reports whether the caller may read a document's versions,
// for a page that shows them beside the document.
func mayReadFiles(p auth.Principal) bool { return p.Grant(auth.FilesRead) != auth.Deny }

// mayWrite reports whether the caller may change documents, for a page
// that says whether its changes wait for review.
func mayWrite(p auth.Principal) bool { return p.Grant(auth.DocumentsWrite) != auth.Deny }

// driverRecord is a live driver loaded for a caller's action, with what a
// page names the driver by.
type driverRecord struct {
	ID        uuid.UUID
	CompanyID uuid.UUID
	Name      string
	Number    string
}

// sheetDriver loads driver id with its name for the caller's action a,
// with holders' checks, and, when versions is set, the versions of its
// document documentID (versionsJSON) in the same statement; the statements
// queue adds (which must read only the caller's company) go in the same
// round trip. The versions and the queued results may be used only when
// it returns no error. A lookup that finds nothing falls back to
// holders.LoadDriver for the answer.
func sheetDriver(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, id, documentID uuid.UUID, versions bool,
	queue func(b *pgx.Batch)) (driverRecord, []Version, error) {
	if err := p.Require(a); err != nil {
		return driverRecord{}, nil, err
	}
	d := driverRecord{ID: id}
	var list []Version
	found := false
	b := &pgx.Batch{}
	b.Queue(`SELECT dr.company_id, concat_ws(' ', dr.first_name, dr.middle_name, dr.last_name), dr.internal_number,
			CASE WHEN $3 THEN (`+versionsJSON+`) END
		FROM drivers dr WHERE dr.id = $1 AND dr.deleted_at IS NULL`, id, documentID, versions).QueryRow(func(row pgx.Row) error {
		var raw []byte
		err := row.Scan(&d.CompanyID, &d.Name, &d.Number, &raw)
		if postgres.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if raw != nil {
			if err := json.Unmarshal(raw, &list); err != nil {
				return fmt.Errorf("versions of document %s: %w", documentID, err)
			}
		}
		return nil
	})
	queue(b)
	if err := q.SendBatch(ctx, b).Close(); err != nil {
		return driverRecord{}, nil, fmt.Errorf("load driver %s: %w", id, err)
	}
	if !found {
		if _, err := holders.LoadDriver(ctx, q, p, a, id); err != nil {
			return driverRecord{}, nil, err
		}
		return driverRecord{}, nil, apperr.NotFound("msg.common.not_found.driver") // deleted meanwhile
	}
	if err := holders.Reach(p, a, d.CompanyID, d.ID); err != nil {
		return driverRecord{}, nil, err
	}
	return d, list, nil
}

// loadFleet loads vehicle or trailer id for the caller's action a
// (holders.LoadFleet: role, existence, company, a driver's active unit).
// holderType is HolderVehicle or HolderTrailer.
func loadFleet(ctx context.Context, q postgres.DBTX, p auth.Principal, a auth.Action, holderType string, id uuid.UUID) (holders.Fleet, error) {
	return holders.LoadFleet(ctx, q, p, a, holders.FleetKind(holderType), id, false)
}

// withFleetFiles reports whether the caller sees the files of the
// vehicles' and trailers' documents it lists: those who may handle them
// (admins, dispatchers); the others see statuses only.
func withFleetFiles(p auth.Principal) bool { return p.Grant(auth.FleetDocuments) != auth.Deny }

// FleetFiles is withFleetFiles for the single read of a vehicle or a
// trailer, which carries its documents.
func FleetFiles(p auth.Principal) bool { return withFleetFiles(p) }
