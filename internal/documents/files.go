package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/uploads"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// File is an uploaded file version as the upload answers it.
type File struct {
	ID               uuid.UUID `json:"id"`
	DocumentID       uuid.UUID `json:"document_id"`
	Filename         string    `json:"filename"`
	OriginalFilename string    `json:"original_filename"`
	MimeType         string    `json:"mime_type"`
	SizeBytes        int64     `json:"size_bytes"`
	Version          int       `json:"version"`
	IsCurrent        bool      `json:"is_current"`
	// StoragePath and StorageDisk say where the server keeps the file:
	// left out for a driver (docs/security.md).
	StoragePath string     `json:"storage_path,omitempty"`
	StorageDisk string     `json:"storage_disk,omitempty"`
	HashSHA256  string     `json:"hash_sha256"`
	UploadedBy  *uuid.UUID `json:"uploaded_by"`
	UploadedAt  time.Time  `json:"uploaded_at"`
	Review
}

// Version is a file version as the versions list shows it.
type Version struct {
	ID               uuid.UUID `json:"id"`
	Version          int       `json:"version"`
	IsCurrent        bool      `json:"is_current"`
	Filename         string    `json:"filename"`
	OriginalFilename string    `json:"original_filename"`
	SizeBytes        int64     `json:"size_bytes"`
	MimeType         string    `json:"mime_type"`
	// Number, ValidFrom and ValidUntil are the version's own: the
	// document's as this version made them (a pending version: as
	// approving it would make them). Null for versions uploaded before
	// they were kept, but the current one.
	Number     *string     `json:"number"`
	ValidFrom  *civil.Date `json:"valid_from"`
	ValidUntil *civil.Date `json:"valid_until"`
	// UploadedBy is the uploader's display name (null when unknown).
	UploadedBy *string   `json:"uploaded_by"`
	UploadedAt time.Time `json:"uploaded_at"`
	// The review of the version (docs/drivers-and-documents.md); reviewed_by
	// is the reviewer's display name, like uploaded_by.
	ReviewStatus string     `json:"review_status"`
	ReviewReason *string    `json:"review_reason"`
	ReviewedBy   *string    `json:"reviewed_by"`
	ReviewedAt   *time.Time `json:"reviewed_at"`
}

// Download is an opened stored file with what a response needs to serve it.
// The caller must Close it.
type Download struct {
	storage.File
	OriginalFilename string
	MimeType         string
	SizeBytes        int64
	HashSHA256       string
	UploadedAt       time.Time
}

// Read returns a driver's documents with status and, for callers who may
// see files, every file version (the dispatcher sees statuses only): the
// driver's checks and the documents' statements in one round trip.
func (s *Service) Read(ctx context.Context, p auth.Principal, driverID uuid.UUID) ([]Document, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	var docs []Document
	today := p.Today()
	_, err := loadDriverWith(ctx, s.db, p, auth.DocumentsList, driverID, func(b *pgx.Batch) {
		queueDocuments(b, p.CompanyID, HolderDriver, driverID, "", nil, today, withFiles(p), &docs)
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// Upload stores a new version of document documentID's file from a
// multipart body (part "file", optional parts number, country, valid_from,
// valid_until, meta) and applies the metadata, all or nothing. driverID is
// the driver the request's path names with the document (the document
// page; uuid.Nil: none, the API's route), whose document it must be (404). body opens the
// request's body once the caller is checked: a caller who may not upload
// there is refused before anything is read.
//
// The pending record of the file is committed first, in the statement that
// checks the caller (recordUpload). Then the file is spooled to a temporary
// file (type, size and SHA-256 known, never held in memory). Then, in one
// transaction: the document is
// loaded, checked and locked, so concurrent uploads to one document take
// versions one after the other; the old current version is cleared, the
// new row inserted as current, the file written to the store, the
// document's current_file_id and metadata set and the audit row written.
// If anything fails after the store write, including the commit, the
// stored object is deleted again.
func (s *Service) Upload(ctx context.Context, p auth.Principal, driverID, documentID uuid.UUID, body func() (*multipart.Reader, error)) (*File, error) {
	return s.upload(ctx, p, pathHolder{Type: HolderDriver, ID: driverID}, documentID, body)
}

// UploadFleet is Upload from the document page of vehicle or trailer id
// (holderType HolderVehicle or HolderTrailer), whose document it must be
// (404).
func (s *Service) UploadFleet(ctx context.Context, p auth.Principal, holderType string, id, documentID uuid.UUID, body func() (*multipart.Reader, error)) (*File, error) {
	return s.upload(ctx, p, pathHolder{Type: holderType, ID: id}, documentID, body)
}

// pathHolder is the holder a request's path names with a document (ID
// uuid.Nil: none).
type pathHolder struct {
	Type string
	ID   uuid.UUID
}

// holds reports whether document d is the path's holder's (any document
// when the path names none).
func (h pathHolder) holds(d docRecord) bool {
	return h.ID == uuid.Nil || (d.HolderType == h.Type && d.HolderID == h.ID)
}

func (s *Service) upload(ctx context.Context, p auth.Principal, holder pathHolder, documentID uuid.UUID, body func() (*multipart.Reader, error)) (*File, error) {
	fileID := uuid.New()
	pending, err := recordUpload(ctx, s.db, s.files, p, holder, documentID, fileID)
	if err != nil {
		return nil, err
	}
	up, ch, err := s.readUpload(body)
	if err != nil {
		uploads.ForgetPending(ctx, s.db, pending, &err)
		return nil, err
	}
	defer up.Remove()
	f, err := s.store(ctx, p, holder, documentID, fileID, pending, up, ch)
	if err != nil {
		return nil, err
	}
	if !showsStorage(p) {
		f.StoragePath, f.StorageDisk = "", ""
	}
	return f, nil
}

// readUpload opens the body and reads it (readUpload's form).
func (s *Service) readUpload(body func() (*multipart.Reader, error)) (*uploads.Received, change, error) {
	mr, err := body()
	if err != nil {
		return nil, change{}, err
	}
	return readUpload(mr, s.maxBytes)
}

func (s *Service) store(ctx context.Context, p auth.Principal, holder pathHolder, documentID, fileID uuid.UUID, pending uploads.Pending,
	up *uploads.Received, ch change) (*File, error) {
	today := p.Today()
	f := &File{
		ID: fileID, DocumentID: documentID,
		MimeType: up.MimeType(), SizeBytes: up.Size(), IsCurrent: true,
		StorageDisk: s.files.Disk(), HashSHA256: up.SHA256(), UploadedBy: &p.UserID,
		Review: Review{Status: ReviewApproved},
	}
	err := uploads.StoreRecorded(ctx, s.db, s.files, up, pending, func(tx pgx.Tx, take uploads.Take, put func(string) error) error {
		// One statement loads and locks the document, takes the pending
		// record.
		var taken bool
		doc, err := loadDocumentTaking(ctx, tx, p, auth.DocumentsWrite, documentID, true, take.SQL(2), take.Args(), &taken)
		if err != nil {
			return err
		}
		if !holder.holds(doc) {
			return apperr.NotFound("msg.common.not_found.document") // a document of another holder than the path's
		}
		if err := take.Taken(taken); err != nil {
			return err
		}
		f.OriginalFilename = up.NameOr(doc.Type)
		before := doc.Fields
		after := before.apply(ch)
		if err := after.check(); err != nil {
			return err
		}
		if err := checkExpiry(ctx, tx, doc.CompanyID, doc.Type, ch); err != nil {
			return err
		}
		if err := checkMRZ(ch, after); err != nil {
			return err
		}
		// A driver's own upload of a type under review waits for HR: it
		// is stored as a pending version, and the document (current file,
		// metadata, status) stays as it is until the version is approved.
		pending, err := s.needsReview(ctx, tx, p, doc)
		if err != nil {
			return err
		}
		var reviewChange []byte
		if pending {
			f.IsCurrent, f.Review.Status = false, ReviewPending
			if reviewChange, err = json.Marshal(ch.body()); err != nil {
				return fmt.Errorf("encode the fields of a pending upload: %w", err)
			}
		} else {
			// The old flag goes first: a unique index allows one current file.
			if err := clearCurrent(ctx, tx, doc); err != nil {
				return err
			}
		}
		// The version is the next of the locked document's, taken in the
		// insert; the stored name follows from it.
		if err := tx.QueryRow(ctx, `
			INSERT INTO document_files (id, company_id, document_id, filename, original_filename, mime_type, size_bytes,
				version, is_current, storage_path, storage_disk, hash_sha256, uploaded_by, review_status, review_change,
				number, valid_from, valid_until)
			SELECT $1, $2, $3, n.filename, $5, $6, $7, n.version, $8, $9::text || '/' || n.filename, $10, $11, $12, $13, $14,
				$15, $16, $17
			FROM (SELECT v.version, format('v%s_%s.%s', v.version, $1::uuid, $4::text) AS filename
				FROM (SELECT coalesce(max(version), 0) + 1 AS version FROM document_files WHERE company_id = $2 AND document_id = $3) v) n
			RETURNING version, filename, storage_path, uploaded_at`,
			f.ID, doc.CompanyID, doc.ID, up.Ext(), f.OriginalFilename, f.MimeType, f.SizeBytes,
			f.IsCurrent, doc.folder(), f.StorageDisk, f.HashSHA256, f.UploadedBy,
			f.Review.Status, reviewChange, after.Number, after.ValidFrom, after.ValidUntil).Scan(&f.Version, &f.Filename, &f.StoragePath, &f.UploadedAt); err != nil {
			return fmt.Errorf("insert file of document %s: %w", doc.ID, err)
		}
		if err := put(f.StoragePath); err != nil {
			return fmt.Errorf("document %s: %w", doc.ID, err)
		}
		fileValues := map[string]any{
			"version": f.Version, "filename": f.Filename,
			"original_filename": f.OriginalFilename, "mime_type": f.MimeType, "size_bytes": f.SizeBytes,
			"hash_sha256": f.HashSHA256, "storage_disk": f.StorageDisk,
		}
		if pending {
			// The document is unchanged; the row records the new version
			// and the fields that will apply once it is approved.
			newValues := map[string]any{"file_id": f.ID, "review_status": ReviewPending, "review_change": ch.body()}
			for k, v := range fileValues {
				newValues[k] = v
			}
			if err := audit.Record(ctx, tx, p, audit.Entry{
				EntityType: "document", EntityID: doc.ID, Action: "document.uploaded",
				OldValues: map[string]any{}, NewValues: newValues,
			}); err != nil {
				return err
			}
			// HR and admins are called to review it, in this transaction:
			// an upload that rolls back calls nobody.
			if s.notifyReview != nil {
				if err := s.notifyReview(ctx, tx, Reviewed{
					CompanyID: doc.CompanyID, DriverID: doc.DriverID, DocumentID: doc.ID, DocumentType: doc.Type,
					FileID: f.ID, Version: f.Version, Status: ReviewRequested, ValidUntil: after.ValidUntil, Today: today,
				}); err != nil {
					return err
				}
			}
			return emitDocument(ctx, tx, doc, today, webhooks.DocumentFileUploaded)
		}
		inUnit, err := saveDocument(ctx, tx, doc, after, &f.ID)
		if err != nil {
			return err
		}
		oldValues, newValues := audit.Diff(before.auditValues(doc.CurrentFile != nil, today), after.auditValues(true, today))
		oldValues["current_file_id"] = doc.CurrentFile
		newValues["current_file_id"] = f.ID
		for k, v := range fileValues {
			newValues[k] = v
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{
			EntityType: "document", EntityID: doc.ID, Action: "document.uploaded",
			OldValues: oldValues, NewValues: newValues,
		}); err != nil {
			return err
		}
		if err := emitDocument(ctx, tx, doc, today, webhooks.DocumentFileUploaded); err != nil {
			return err
		}
		return flushUnits(ctx, tx, doc.CompanyID, inUnit)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// emitDocument writes a webhook event whose data is the document as the
// API returns it to HR (with its files), docs/webhooks.md.
func emitDocument(ctx context.Context, tx pgx.Tx, doc docRecord, today civil.Date, event string) error {
	docs, err := queryDocuments(ctx, tx, doc.CompanyID, doc.HolderType, doc.HolderID, &doc.ID, today, true)
	if err != nil {
		return fmt.Errorf("document %s: %w", doc.ID, err)
	}
	if len(docs) != 1 {
		return apperr.NotFound("msg.common.not_found.document")
	}
	return webhooks.Emit(ctx, tx, doc.CompanyID, event, docs[0])
}

// clearCurrent takes the current flag off the document's current version,
// before another version gets it.
func clearCurrent(ctx context.Context, tx pgx.Tx, doc docRecord) error {
	if _, err := tx.Exec(ctx, `
		UPDATE document_files SET is_current = false, updated_at = now()
		WHERE company_id = $1 AND document_id = $2 AND is_current`, doc.CompanyID, doc.ID); err != nil {
		return fmt.Errorf("clear current file of document %s: %w", doc.ID, err)
	}
	return nil
}

// saveDocument writes the metadata and, when currentFile is given, the
// current file of a locked document. The current version keeps the
// number and validity with the document (each version its own: an
// approved version takes them, a corrected document corrects its current
// version), in the same statement.
func saveDocument(ctx context.Context, tx pgx.Tx, doc docRecord, m metadata, currentFile *uuid.UUID) (inUnit bool, err error) {
	meta := m.Meta
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	// The statement also says whether the holder is in an active transport
	// unit, whose readiness the write may have changed (docs/dispatch.md):
	// only then is the change told, in one more statement.
	err = tx.QueryRow(ctx, `
		WITH d AS (
			UPDATE driver_documents
			SET number = $2, country = $3, valid_from = $4, valid_until = $5, meta = $6,
				current_file_id = coalesce($7, current_file_id), updated_at = now()
			WHERE id = $1 AND company_id = $8
			RETURNING current_file_id, holder_id
		), f AS (
			UPDATE document_files f SET number = $2, valid_from = $4, valid_until = $5, updated_at = now()
			FROM d
			WHERE f.company_id = $8 AND f.id = d.current_file_id
				AND (f.number, f.valid_from, f.valid_until) IS DISTINCT FROM ($2::text, $4::date, $5::date)
			RETURNING 1
		)
		SELECT EXISTS (SELECT FROM d JOIN transport_units tu ON tu.company_id = $8
				AND (tu.driver_id = d.holder_id OR tu.vehicle_id = d.holder_id OR tu.trailer_id = d.holder_id)
			WHERE tu.unassigned_at IS NULL AND tu.deleted_at IS NULL)`,
		doc.ID, m.Number, m.Country, m.ValidFrom, m.ValidUntil, meta, currentFile, doc.CompanyID).Scan(&inUnit)
	if err != nil {
		return false, fmt.Errorf("update document %s: %w", doc.ID, err)
	}
	return inUnit, nil
}

// flushUnits tells the change of readiness of the transport unit of a
// document's holder, when it is in one.
func flushUnits(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, inUnit bool) error {
	if !inUnit {
		return nil
	}
	return units.Flush(ctx, tx, companyID)
}

// Update changes document documentID's metadata (PUT /documents/{id}):
// fields left out stay, null clears (meta null resets to {}). It answers
// the document with its recomputed status. The audit row holds only
// changed fields; a request that changes nothing writes none. read fills
// the body (the decoded JSON object, field → raw value) once the document
// is loaded and checked.
//
// A driver may not change a document whose type's rule asks for review
// (403 Forbidden, before its fields are read): the change would count
// without HR's check. The new fields come with a new file instead, and
// wait with it (docs/drivers-and-documents.md, "Review of drivers'
// uploads").
func (s *Service) Update(ctx context.Context, p auth.Principal, documentID uuid.UUID, read func(body *map[string]json.RawMessage) error) (*Document, error) {
	today := p.Today()
	var doc *Document
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		loaded, err := loadDocument(ctx, tx, p, auth.DocumentsWrite, documentID, true)
		if err != nil {
			return err
		}
		var body map[string]json.RawMessage
		if err := read(&body); err != nil {
			return err
		}
		switch review, err := s.needsReview(ctx, tx, p, loaded); {
		case err != nil:
			return err
		case review:
			return apperr.Forbiddenf("msg.documents.edit_needs_review")
		}
		ch, err := parseJSONChange(body)
		if err != nil {
			return err
		}
		before := loaded.Fields
		after := before.apply(ch)
		if err := after.check(); err != nil {
			return err
		}
		if err := checkExpiry(ctx, tx, loaded.CompanyID, loaded.Type, ch); err != nil {
			return err
		}
		if err := checkMRZ(ch, after); err != nil {
			return err
		}
		hasFile := loaded.CurrentFile != nil
		oldValues, newValues := audit.Diff(before.auditValues(hasFile, today), after.auditValues(hasFile, today))
		if len(newValues) > 0 {
			inUnit, err := saveDocument(ctx, tx, loaded, after, nil)
			if err != nil {
				return err
			}
			if err := audit.Record(ctx, tx, p, audit.Entry{
				EntityType: "document", EntityID: loaded.ID, Action: "document.updated",
				OldValues: oldValues, NewValues: newValues,
			}); err != nil {
				return err
			}
			if err := emitDocument(ctx, tx, loaded, today, webhooks.DocumentUpdated); err != nil {
				return err
			}
			if err := flushUnits(ctx, tx, loaded.CompanyID, inUnit); err != nil {
				return err
			}
		}
		// The status is the validity chains' (SQL): the document is read
		// back as it now stands.
		docs, err := queryDocuments(ctx, tx, loaded.CompanyID, loaded.HolderType, loaded.HolderID, &loaded.ID, today, withFiles(p))
		if err != nil {
			return fmt.Errorf("document %s: %w", loaded.ID, err)
		}
		if len(docs) == 0 {
			return apperr.NotFound("msg.common.not_found.document")
		}
		doc = &docs[0]
		return nil
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// versionsSQL lists a document's file versions ($1) of the company ($2),
// newest first.
const versionsSQL = `
	SELECT f.id, f.version, f.is_current, f.filename, f.original_filename, f.size_bytes, f.mime_type,
		f.number, f.valid_from, f.valid_until,
		coalesce(nullif(btrim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email), f.uploaded_at,
		f.review_status, f.review_reason,
		coalesce(nullif(btrim(concat_ws(' ', r.first_name, r.last_name)), ''), r.email), f.reviewed_at
	FROM document_files f LEFT JOIN users u ON u.id = f.uploaded_by LEFT JOIN users r ON r.id = f.reviewed_by
	WHERE f.document_id = $1 AND f.company_id = $2
	ORDER BY f.version DESC`

// versionsJSON is versionsSQL as one JSON array of Version objects, for
// document $2 of the company of the driver dr it is a column of.
const versionsJSON = `SELECT coalesce(json_agg(v ORDER BY v.version DESC), '[]') FROM (
	SELECT f.id, f.version, f.is_current, f.filename, f.original_filename, f.size_bytes, f.mime_type,
		f.number, f.valid_from, f.valid_until,
		coalesce(nullif(btrim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email) AS uploaded_by, f.uploaded_at,
		f.review_status, f.review_reason,
		coalesce(nullif(btrim(concat_ws(' ', r.first_name, r.last_name)), ''), r.email) AS reviewed_by, f.reviewed_at
	FROM document_files f LEFT JOIN users u ON u.id = f.uploaded_by LEFT JOIN users r ON r.id = f.reviewed_by
	WHERE f.document_id = $2 AND f.company_id = dr.company_id) v`

func scanVersions(rows pgx.Rows) ([]Version, error) {
	return postgres.AppendRows(nil, rows, func(row pgx.Row, v *Version) error {
		return row.Scan(&v.ID, &v.Version, &v.IsCurrent, &v.Filename, &v.OriginalFilename, &v.SizeBytes, &v.MimeType,
			&v.Number, &v.ValidFrom, &v.ValidUntil, &v.UploadedBy, &v.UploadedAt,
			&v.ReviewStatus, &v.ReviewReason, &v.ReviewedBy, &v.ReviewedAt)
	})
}

// Versions lists document documentID's file versions, newest first.
func (s *Service) Versions(ctx context.Context, p auth.Principal, documentID uuid.UUID) ([]Version, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	doc, err := loadDocument(ctx, s.db, p, auth.FilesRead, documentID, false)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, versionsSQL, doc.ID, doc.CompanyID)
	if err != nil {
		return nil, fmt.Errorf("list versions of document %s: %w", doc.ID, err)
	}
	versions, err := scanVersions(rows)
	if err != nil {
		return nil, fmt.Errorf("list versions of document %s: %w", doc.ID, err)
	}
	return versions, nil
}

// Open opens stored file version fileID for download. ctx must be the
// context of the request that serves it: an S3 file reads through it.
func (s *Service) Open(ctx context.Context, p auth.Principal, fileID uuid.UUID) (*Download, error) {
	r, err := loadFile(ctx, s.db, p, auth.FilesRead, fileID, false)
	if err != nil {
		return nil, err
	}
	f := r.File
	d := Download{OriginalFilename: f.OriginalFilename, MimeType: f.MimeType, SizeBytes: f.SizeBytes, HashSHA256: f.HashSHA256, UploadedAt: f.UploadedAt}
	return OpenStored(ctx, s.files, d, f.StoragePath, f.StorageDisk)
}

// OpenStored opens the stored object of a file row (path and disk as the
// row records them) into d, for a download; another area's files (penalty
// evidence) open the same way. ctx must be the context of the request that
// serves it: an S3 file reads through it.
func OpenStored(ctx context.Context, files storage.Store, d Download, path, disk string) (*Download, error) {
	if disk != files.Disk() {
		return nil, fmt.Errorf("file %s is stored on %q but the server uses %q storage", path, disk, files.Disk())
	}
	// A missing object for an existing row is our fault, not the caller's:
	// it stays a 500 and gets logged.
	var err error
	if d.File, err = files.Open(ctx, path); err != nil {
		return nil, fmt.Errorf("open file %s: %w", path, err)
	}
	return &d, nil
}

// FleetRead returns a vehicle's or a trailer's documents with status (GET
// /vehicles/{id}/documents, /trailers/{id}/documents; docs/fleet.md): the
// types of its holder type that apply to it (a light vehicle has no
// tachograph calibration), without retired custom types, and, for callers
// who may handle them, every file version.
// holderType is HolderVehicle or HolderTrailer.
func (s *Service) FleetRead(ctx context.Context, p auth.Principal, holderType string, id uuid.UUID) ([]Document, error) {
	f, err := loadFleet(ctx, s.db, p, auth.FleetRead, holderType, id)
	if err != nil {
		return nil, err
	}
	return ForHolder(ctx, s.db, f.CompanyID, string(f.Kind), f.ID, f.Type, p.Today(), withFleetFiles(p))
}
