package documents

import (
	"context"
	"encoding/json"
	"errors"
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
	"github.com/konvoj/konvoj/internal/tenants"
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
	// left out for a driver (withoutStorage).
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

// Ref is the proof that the documents guard ran for one document (or, from
// AuthorizeFile, one file version): company, record id and driver
// (auth.Ref), and the document's type, which storage paths need.
type Ref struct {
	auth.Ref
	docType string
	docID   uuid.UUID
}

// DocumentType is the document's type.
func (r Ref) DocumentType() string { return r.docType }

// DocumentID is the id of the document (for a file's Ref, the file's
// document).
func (r Ref) DocumentID() uuid.UUID { return r.docID }

// Authorize is the documents area's guard for one document: the role may do
// the action (403 Forbidden), the document exists and its driver is not
// deleted (404), it is the caller's company and, for a driver caller, its
// own (403 AccessDenied). A driver's document list is guarded by the
// drivers' guard (tenants.AuthorizeDriver).
func (s *Service) Authorize(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (Ref, error) {
	var docType string
	ref, err := auth.Authorize(ctx, p, a, id, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		// By id alone on purpose: another company's document is 403, not 404
		// (tenants.HiddenOwner finds it past row-level security).
		var o auth.Owner
		err := s.db.QueryRow(ctx, `
			SELECT d.company_id, d.driver_id, d.type
			FROM driver_documents d JOIN drivers dr ON dr.id = d.driver_id AND dr.company_id = d.company_id
			WHERE d.id = $1 AND dr.deleted_at IS NULL`, id).Scan(&o.CompanyID, &o.DriverID, &docType)
		if errors.Is(err, pgx.ErrNoRows) {
			return tenants.HiddenOwner(ctx, s.db, p, "driver_documents", id, apperr.NotFound("msg.common.not_found.document"))
		}
		if err != nil {
			return o, fmt.Errorf("find document %s: %w", id, err)
		}
		return o, nil
	})
	if err != nil {
		return Ref{}, err
	}
	return Ref{Ref: ref, docType: docType, docID: ref.ID()}, nil
}

// AuthorizeFile is the guard for one stored file version (a download),
// with the checks of Authorize on the file's document.
func (s *Service) AuthorizeFile(ctx context.Context, p auth.Principal, a auth.Action, id uuid.UUID) (Ref, error) {
	var docType string
	var docID uuid.UUID
	ref, err := auth.Authorize(ctx, p, a, id, func(ctx context.Context, id uuid.UUID) (auth.Owner, error) {
		var o auth.Owner
		err := s.db.QueryRow(ctx, `
			SELECT f.company_id, d.driver_id, d.type, d.id
			FROM document_files f
			JOIN driver_documents d ON d.id = f.document_id AND d.company_id = f.company_id
			JOIN drivers dr ON dr.id = d.driver_id AND dr.company_id = d.company_id
			WHERE f.id = $1 AND dr.deleted_at IS NULL`, id).Scan(&o.CompanyID, &o.DriverID, &docType, &docID)
		if errors.Is(err, pgx.ErrNoRows) {
			return tenants.HiddenOwner(ctx, s.db, p, "document_files", id, apperr.NotFound("msg.common.not_found.file"))
		}
		if err != nil {
			return o, fmt.Errorf("find file %s: %w", id, err)
		}
		return o, nil
	})
	if err != nil {
		return Ref{}, err
	}
	return Ref{Ref: ref, docType: docType, docID: docID}, nil
}

// List returns a driver's 14 documents with status and, for callers who
// may see files, every file version. driver is the drivers' guard's Ref.
func (s *Service) List(ctx context.Context, p auth.Principal, driver auth.Ref) ([]Document, error) {
	if err := driver.Check(p, auth.DocumentsList); err != nil {
		return nil, err
	}
	return ForDriver(ctx, s.db, driver, p.Today(), p.Grant(auth.DocumentsList) != auth.NoFiles)
}

// Read is the drivers' guard (tenants.AuthorizeDriver) and List for a
// driver named by id, answering as the two would one after the other, in
// one round trip: the documents' statements go with the guard's lookup
// (tenants.AuthorizeDriverWith).
func (s *Service) Read(ctx context.Context, p auth.Principal, driverID uuid.UUID) ([]Document, error) {
	var docs []Document
	today, withFiles := p.Today(), p.Grant(auth.DocumentsList) != auth.NoFiles
	_, err := tenants.AuthorizeDriverWith(ctx, s.db, p, auth.DocumentsList, driverID, func(b *pgx.Batch) {
		queueDocuments(b, p.CompanyID, driverID, nil, today, withFiles, &docs)
	})
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// Upload stores a new version of a document's file from a multipart body
// (part "file", optional parts number, country, valid_from, valid_until,
// meta) and applies the metadata, all or nothing. The handler runs the
// guard before it opens the body, so a caller who may not upload is refused
// before anything is read.
//
// The file is spooled to a temporary file first (type, size and SHA-256
// known, never held in memory). Then, in one transaction: the document row
// is locked, so concurrent uploads to one document take versions one after
// the other; the file is written to the store; the old current version is
// cleared, the new row inserted as current, the document's current_file_id
// and metadata set and the audit row written. If anything fails after the
// store write, including the commit, the stored object is deleted again.
func (s *Service) Upload(ctx context.Context, p auth.Principal, ref Ref, mr *multipart.Reader) (*File, error) {
	if err := ref.Check(p, auth.DocumentsWrite); err != nil {
		return nil, err
	}
	up, ch, err := readUpload(mr, s.maxBytes, ref.docType)
	if err != nil {
		return nil, err
	}
	defer up.Remove()
	f, err := s.store(ctx, p, ref, up, ch)
	if err != nil {
		return nil, err
	}
	return f.withoutStorage(p), nil
}

// withoutStorage leaves out where the server keeps the file (storage_path,
// storage_disk) for a caller limited to its own records, the driver: the
// layout of the store is the operators' business, and the download goes
// by the file's id (docs/security.md).
func (f *File) withoutStorage(p auth.Principal) *File {
	if p.Grant(auth.FilesRead) == auth.Own {
		f.StoragePath, f.StorageDisk = "", ""
	}
	return f
}

func (s *Service) store(ctx context.Context, p auth.Principal, ref Ref, up *uploads.Received, ch change) (*File, error) {
	today := p.Today()
	f := &File{
		ID: uuid.New(), DocumentID: ref.ID(), OriginalFilename: up.OriginalName(),
		MimeType: up.MimeType(), SizeBytes: up.Size(), IsCurrent: true,
		StorageDisk: s.files.Disk(), HashSHA256: up.SHA256(), UploadedBy: &p.UserID,
		Review: Review{Status: ReviewApproved},
	}
	folder := fmt.Sprintf("%s/%s/%s", ref.CompanyID(), ref.DriverID(), ref.docType)
	obj := uploads.Object{Table: "document_files", CompanyID: ref.CompanyID(), ID: f.ID, Folder: folder}
	err := uploads.StoreInTx(ctx, s.db, s.files, up, obj, func(tx pgx.Tx, put func(string) error) error {
		before, currentFile, err := lockDocument(ctx, tx, ref)
		if err != nil {
			return err
		}
		after := before.apply(ch)
		if err := after.check(); err != nil {
			return err
		}
		if err := checkExpiry(ctx, tx, ref.CompanyID(), ref.docType, ch); err != nil {
			return err
		}
		// A driver's own upload of a type under review waits for HR: it
		// is stored as a pending version, and the document (current file,
		// metadata, status) stays as it is until the version is approved.
		pending, err := s.needsReview(ctx, tx, p, ref)
		if err != nil {
			return err
		}
		var reviewChange []byte
		if pending {
			f.IsCurrent, f.Review.Status = false, ReviewPending
			if reviewChange, err = json.Marshal(ch.body()); err != nil {
				return fmt.Errorf("encode the fields of a pending upload: %w", err)
			}
		}
		if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) + 1 FROM document_files WHERE company_id = $1 AND document_id = $2`,
			ref.CompanyID(), ref.ID()).Scan(&f.Version); err != nil {
			return fmt.Errorf("next version of document %s: %w", ref.ID(), err)
		}
		f.Filename = fmt.Sprintf("v%d_%s.%s", f.Version, f.ID, up.Ext())
		f.StoragePath = folder + "/" + f.Filename

		if err := put(f.StoragePath); err != nil {
			return fmt.Errorf("document %s: %w", ref.ID(), err)
		}

		if !pending {
			// The old flag goes first: a unique index allows one current file.
			if err := clearCurrent(ctx, tx, ref); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO document_files (id, company_id, document_id, filename, original_filename, mime_type, size_bytes,
				version, is_current, storage_path, storage_disk, hash_sha256, uploaded_by, review_status, review_change)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			RETURNING uploaded_at`,
			f.ID, ref.CompanyID(), ref.ID(), f.Filename, f.OriginalFilename, f.MimeType, f.SizeBytes,
			f.Version, f.IsCurrent, f.StoragePath, f.StorageDisk, f.HashSHA256, f.UploadedBy,
			f.Review.Status, reviewChange).Scan(&f.UploadedAt); err != nil {
			return fmt.Errorf("insert file of document %s: %w", ref.ID(), err)
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
				EntityType: "document", EntityID: ref.ID(), Action: "document.uploaded",
				OldValues: map[string]any{}, NewValues: newValues,
			}); err != nil {
				return err
			}
			return emitDocument(ctx, tx, ref, today, webhooks.DocumentFileUploaded)
		}
		if err := saveDocument(ctx, tx, ref, after, &f.ID); err != nil {
			return err
		}
		oldValues, newValues := audit.Diff(before.auditValues(currentFile != nil, today), after.auditValues(true, today))
		oldValues["current_file_id"] = currentFile
		newValues["current_file_id"] = f.ID
		for k, v := range fileValues {
			newValues[k] = v
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{
			EntityType: "document", EntityID: ref.ID(), Action: "document.uploaded",
			OldValues: oldValues, NewValues: newValues,
		}); err != nil {
			return err
		}
		return emitDocument(ctx, tx, ref, today, webhooks.DocumentFileUploaded)
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// emitDocument writes a webhook event whose data is the document as the
// API returns it to HR (with its files), docs/webhooks.md.
func emitDocument(ctx context.Context, tx pgx.Tx, ref Ref, today civil.Date, event string) error {
	wanted, err := webhooks.Wanted(ctx, tx, ref.CompanyID(), event)
	if err != nil || !wanted {
		return err
	}
	docID := ref.DocumentID()
	docs, err := queryDocuments(ctx, tx, ref.CompanyID(), ref.DriverID(), &docID, today, true)
	if err != nil {
		return fmt.Errorf("document %s: %w", ref.DocumentID(), err)
	}
	if len(docs) != 1 {
		return apperr.NotFound("msg.common.not_found.document")
	}
	return webhooks.Emit(ctx, tx, ref.CompanyID(), event, docs[0])
}

// clearCurrent takes the current flag off the document's current version
// (of a document's or a file's Ref), before another version gets it.
func clearCurrent(ctx context.Context, tx pgx.Tx, ref Ref) error {
	if _, err := tx.Exec(ctx, `
		UPDATE document_files SET is_current = false, updated_at = now()
		WHERE company_id = $1 AND document_id = $2 AND is_current`, ref.CompanyID(), ref.DocumentID()); err != nil {
		return fmt.Errorf("clear current file of document %s: %w", ref.DocumentID(), err)
	}
	return nil
}

// lockDocument locks the document row (of a document's or a file's Ref)
// for the rest of the transaction and returns its metadata and current
// file.
func lockDocument(ctx context.Context, tx pgx.Tx, ref Ref) (metadata, *uuid.UUID, error) {
	var m metadata
	var current *uuid.UUID
	err := tx.QueryRow(ctx, `
		SELECT d.number, d.country, d.valid_from, d.valid_until, d.meta, d.current_file_id
		FROM driver_documents d JOIN drivers dr ON dr.id = d.driver_id AND dr.company_id = d.company_id
		WHERE d.id = $1 AND d.company_id = $2 AND dr.deleted_at IS NULL
		FOR UPDATE OF d`, ref.DocumentID(), ref.CompanyID()).Scan(&m.Number, &m.Country, &m.ValidFrom, &m.ValidUntil, &m.Meta, &current)
	if errors.Is(err, pgx.ErrNoRows) {
		return m, nil, apperr.NotFound("msg.common.not_found.document") // the driver was deleted meanwhile
	}
	if err != nil {
		return m, nil, fmt.Errorf("lock document %s: %w", ref.DocumentID(), err)
	}
	return m, current, nil
}

// saveDocument writes the metadata and, when currentFile is given, the
// current file of a locked document.
func saveDocument(ctx context.Context, tx pgx.Tx, ref Ref, m metadata, currentFile *uuid.UUID) error {
	meta := m.Meta
	if len(meta) == 0 {
		meta = json.RawMessage(`{}`)
	}
	_, err := tx.Exec(ctx, `
		UPDATE driver_documents
		SET number = $2, country = $3, valid_from = $4, valid_until = $5, meta = $6,
			current_file_id = coalesce($7, current_file_id), updated_at = now()
		WHERE id = $1 AND company_id = $8`, ref.DocumentID(), m.Number, m.Country, m.ValidFrom, m.ValidUntil, meta, currentFile, ref.CompanyID())
	if err != nil {
		return fmt.Errorf("update document %s: %w", ref.DocumentID(), err)
	}
	return nil
}

// Update changes a document's metadata (PUT /documents/{id}): fields left
// out stay, null clears (meta null resets to {}). It answers the document
// with its recomputed status. The audit row holds only changed fields; a
// request that changes nothing writes none.
//
// A driver may not change a document whose type's rule asks for review
// (403 Forbidden, before its fields are read): the change would count
// without HR's check. The new fields come with a new file instead, and
// wait with it (docs/drivers-and-documents.md, "Review of drivers'
// uploads").
//
// body is the decoded JSON object, field → raw value.
func (s *Service) Update(ctx context.Context, p auth.Principal, ref Ref, body map[string]json.RawMessage) (*Document, error) {
	if err := ref.Check(p, auth.DocumentsWrite); err != nil {
		return nil, err
	}
	switch review, err := s.needsReview(ctx, s.db, p, ref); {
	case err != nil:
		return nil, err
	case review:
		return nil, apperr.Forbiddenf("msg.documents.edit_needs_review")
	}
	ch, err := parseJSONChange(body)
	if err != nil {
		return nil, err
	}
	today := p.Today()
	var doc *Document
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		before, currentFile, err := lockDocument(ctx, tx, ref)
		if err != nil {
			return err
		}
		after := before.apply(ch)
		if err := after.check(); err != nil {
			return err
		}
		if err := checkExpiry(ctx, tx, ref.CompanyID(), ref.docType, ch); err != nil {
			return err
		}
		hasFile := currentFile != nil
		oldValues, newValues := audit.Diff(before.auditValues(hasFile, today), after.auditValues(hasFile, today))
		if len(newValues) > 0 {
			if err := saveDocument(ctx, tx, ref, after, nil); err != nil {
				return err
			}
			if err := audit.Record(ctx, tx, p, audit.Entry{
				EntityType: "document", EntityID: ref.ID(), Action: "document.updated",
				OldValues: oldValues, NewValues: newValues,
			}); err != nil {
				return err
			}
			if err := emitDocument(ctx, tx, ref, today, webhooks.DocumentUpdated); err != nil {
				return err
			}
		}
		doc, err = documentByID(ctx, tx, ref, today, p.Grant(auth.DocumentsList) != auth.NoFiles)
		return err
	})
	if err != nil {
		return nil, err
	}
	return doc, nil
}

// Versions lists a document's file versions, newest first.
func (s *Service) Versions(ctx context.Context, p auth.Principal, ref Ref) ([]Version, error) {
	if err := ref.Check(p, auth.FilesRead); err != nil {
		return nil, err
	}
	rows, err := s.db.Query(ctx, `
		SELECT f.id, f.version, f.is_current, f.filename, f.original_filename, f.size_bytes, f.mime_type,
			coalesce(nullif(btrim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email), f.uploaded_at,
			f.review_status, f.review_reason,
			coalesce(nullif(btrim(concat_ws(' ', r.first_name, r.last_name)), ''), r.email), f.reviewed_at
		FROM document_files f LEFT JOIN users u ON u.id = f.uploaded_by LEFT JOIN users r ON r.id = f.reviewed_by
		WHERE f.document_id = $1 AND f.company_id = $2
		ORDER BY f.version DESC`, ref.ID(), ref.CompanyID())
	if err != nil {
		return nil, fmt.Errorf("list versions of document %s: %w", ref.ID(), err)
	}
	versions, err := postgres.AppendRows(nil, rows, func(row pgx.Row, v *Version) error {
		return row.Scan(&v.ID, &v.Version, &v.IsCurrent, &v.Filename, &v.OriginalFilename, &v.SizeBytes, &v.MimeType, &v.UploadedBy, &v.UploadedAt,
			&v.ReviewStatus, &v.ReviewReason, &v.ReviewedBy, &v.ReviewedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("list versions of document %s: %w", ref.ID(), err)
	}
	return versions, nil
}

// Open opens a stored file version for download. ctx must be the context of
// the request that serves it: an S3 file reads through it.
func (s *Service) Open(ctx context.Context, p auth.Principal, ref Ref) (*Download, error) {
	if err := ref.Check(p, auth.FilesRead); err != nil {
		return nil, err
	}
	fileID := ref.ID()
	var (
		d          Download
		path, disk string
	)
	err := s.db.QueryRow(ctx, `
		SELECT f.original_filename, f.mime_type, f.size_bytes, f.hash_sha256, f.uploaded_at, f.storage_path, f.storage_disk
		FROM document_files f
		WHERE f.company_id = $1 AND f.id = $2`, ref.CompanyID(), fileID).Scan(
		&d.OriginalFilename, &d.MimeType, &d.SizeBytes, &d.HashSHA256, &d.UploadedAt, &path, &disk)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.NotFound("msg.common.not_found.file")
	}
	if err != nil {
		return nil, fmt.Errorf("find file %s: %w", fileID, err)
	}
	return OpenStored(ctx, s.files, d, path, disk)
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
