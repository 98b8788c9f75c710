package finance

import (
	"context"
	"fmt"
	"mime/multipart"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/uploads"
)

// Evidence file limits: the note's length and the files one penalty may hold.
const (
	maxEvidenceNote  = 1000
	maxEvidenceFiles = 20
)

// EvidenceFile is a photo or PDF attached to a penalty (docs/finance.md,
// "Evidence files"); uploaded_by is the uploader's display name.
type EvidenceFile struct {
	ID               uuid.UUID `json:"id"`
	OriginalFilename string    `json:"original_filename"`
	Mime             string    `json:"mime"`
	Size             int64     `json:"size"`
	Note             *string   `json:"note"`
	UploadedBy       *string   `json:"uploaded_by"`
	CreatedAt        time.Time `json:"created_at"`
}

// IsImage reports whether the file is a photo (pages show a thumbnail).
func (f EvidenceFile) IsImage() bool { return f.Mime != "application/pdf" }

// MaxUploadBytes is the largest evidence file an upload may carry (the
// document files' cap).
func (s *Service) MaxUploadBytes() int64 { return s.maxBytes }

// MaxFormFiles is how many evidence files one page form (a dispute, a new
// penalty) may carry; the API adds one file per request.
const MaxFormFiles = 5

// AddEvidence stores an evidence file of the penalty penaltyID (named by
// its id alone) from a multipart body (part "file", optional "note") with
// the checks of a document upload: the type from the content (415), the
// size cap (413), the SHA-256; then, in one transaction, the penalty row is
// locked, the state checked (a driver adds to its own penalty only while
// it is pending or disputed: 409 otherwise), the file written to the
// store, its row and the audit row penalty.evidence_added inserted. A
// failed transaction leaves no stored file. body opens the multipart body:
// it is called once the penalty is checked.
func (s *Service) AddEvidence(ctx context.Context, p auth.Principal, penaltyID uuid.UUID, body func() (*multipart.Reader, error)) (EvidenceFile, error) {
	pen, err := loadPenaltyByID(ctx, s.db, p, auth.PenaltiesRespond, penaltyID)
	if err != nil {
		return EvidenceFile{}, err
	}
	mr, err := body()
	if err != nil {
		return EvidenceFile{}, err
	}
	file, values, err := uploads.ReceiveFile(mr, s.maxBytes, "evidence", map[string]int64{"note": 4 * maxEvidenceNote}, fieldName)
	if err != nil {
		return EvidenceFile{}, err
	}
	defer file.Remove()
	note, err := evidenceNote(values)
	if err != nil {
		return EvidenceFile{}, err
	}
	return s.storeEvidence(ctx, p, pen, file, note)
}

// EvidenceForm is a page form's multipart body read by ReadEvidenceForm:
// its text fields and its evidence files, spooled and checked. Remove
// deletes the spooled files.
type EvidenceForm struct {
	Values map[string]string
	Files  []*uploads.Received
}

// Remove deletes the spooled files.
func (f *EvidenceForm) Remove() {
	if f == nil {
		return
	}
	for _, file := range f.Files {
		file.Remove()
	}
}

// Note is the form's "note" field, checked (422 when too long).
func (f *EvidenceForm) Note() (*string, error) { return evidenceNote(f.Values) }

// ReadEvidenceForm reads a page form that carries evidence files (part
// "file", up to MaxFormFiles, all optional) besides the text fields named in
// fields (name → largest value in bytes, "note" always allowed). Every file
// gets the checks of AddEvidence before anything is changed: one refused
// file refuses the form (415, 413, 422); the form then holds no file but
// the text fields read before the refusal, to show the form again.
func (s *Service) ReadEvidenceForm(mr *multipart.Reader, fields map[string]int64) (*EvidenceForm, error) {
	all := map[string]int64{"note": 4 * maxEvidenceNote}
	for k, v := range fields {
		all[k] = v
	}
	files, values, err := uploads.ReceiveFiles(mr, s.maxBytes, MaxFormFiles, "evidence", all, fieldName)
	if values == nil {
		values = map[string]string{}
	}
	return &EvidenceForm{Values: values, Files: files}, err
}

// FormBytes is the largest body a page form with evidence files may send
// (for web.UploadBody).
func (s *Service) FormBytes() int64 { return MaxFormFiles * s.maxBytes }

// EvidenceUpload is what AddEvidenceFiles stores: received (spooled and
// checked) files and their optional note.
type EvidenceUpload struct {
	Files []*uploads.Received
	Note  *string
}

// AddEvidenceFiles stores received evidence files of penalty penaltyID of
// driver driverID, each as AddEvidence does (its own transaction and audit
// row), and answers them. read receives the files once the penalty is
// checked (a page's form: its refusal, 413, 415, 422, comes after 403 and
// 404).
func (s *Service) AddEvidenceFiles(ctx context.Context, p auth.Principal, driverID, penaltyID uuid.UUID, read func(*EvidenceUpload) error) ([]EvidenceFile, error) {
	pen, err := loadPenaltyRow(ctx, s.db, p, auth.PenaltiesRespond, driverID, penaltyID)
	if err != nil {
		return nil, err
	}
	up, err := readOnce(read)()
	if err != nil {
		return nil, err
	}
	out := make([]EvidenceFile, 0, len(up.Files))
	for _, file := range up.Files {
		f, err := s.storeEvidence(ctx, p, pen, file, up.Note)
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

// evidenceNote reads the optional note of an evidence upload.
func evidenceNote(values map[string]string) (*string, error) {
	n, ok := values["note"]
	if !ok {
		return nil, nil
	}
	var v apperr.Validation
	note := optionalText(&v, "note", n, maxEvidenceNote)
	return note, v.Err()
}

// storeEvidence writes one received evidence file of the penalty id.
func (s *Service) storeEvidence(ctx context.Context, p auth.Principal, pen Penalty, file *uploads.Received, note *string) (EvidenceFile, error) {
	companyID, driverID, id := pen.CompanyID, pen.DriverID, pen.ID
	fileID := uuid.New()
	f := EvidenceFile{ID: fileID, OriginalFilename: file.OriginalName(), Mime: file.MimeType(), Size: file.Size(), Note: note}
	folder := fmt.Sprintf("%s/%s/penalties/%s", companyID, driverID, id)
	obj := uploads.Object{Table: "penalty_evidence", CompanyID: companyID, ID: fileID, Folder: folder}
	err := uploads.StoreInTx(ctx, s.db, s.files, file, obj, func(tx pgx.Tx, put func(string) error) error {
		status, err := lockPenaltyStatus(ctx, tx, companyID, id)
		if err != nil {
			return err
		}
		if evidenceOnlyWhileOpen(p) && status != PenaltyPending && status != PenaltyDisputed {
			return apperr.Conflict("msg.penalties.evidence_closed", "status", penaltyState(status))
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM penalty_evidence WHERE company_id = $1 AND penalty_id = $2`,
			companyID, id).Scan(&n); err != nil {
			return fmt.Errorf("count evidence of penalty %s: %w", id, err)
		}
		if n >= maxEvidenceFiles {
			return apperr.Invalid("file", "msg.penalties.evidence_total", "max", maxEvidenceFiles)
		}
		filename := fmt.Sprintf("%s.%s", fileID, file.Ext())
		path := folder + "/" + filename
		if err := put(path); err != nil {
			return fmt.Errorf("evidence of penalty %s: %w", id, err)
		}
		if err := tx.QueryRow(ctx, `
			INSERT INTO penalty_evidence (id, company_id, penalty_id, filename, original_filename, mime_type, size_bytes, note,
				storage_path, storage_disk, hash_sha256, uploaded_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
			RETURNING created_at`,
			fileID, companyID, id, filename, f.OriginalFilename, f.Mime, f.Size, note, path, s.files.Disk(), file.SHA256(),
			userID(p)).Scan(&f.CreatedAt); err != nil {
			return fmt.Errorf("insert evidence of penalty %s: %w", id, err)
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: id, Action: "penalty.evidence_added",
			NewValues: map[string]any{"evidence_file_id": fileID, "original_filename": f.OriginalFilename, "mime": f.Mime,
				"size": f.Size, "note": note, "hash_sha256": file.SHA256(), "storage_disk": s.files.Disk()}})
	})
	if err != nil {
		return EvidenceFile{}, err
	}
	files, err := evidenceOf(ctx, s.db, companyID, []uuid.UUID{id})
	if err != nil {
		return EvidenceFile{}, err
	}
	for _, stored := range files[id] {
		if stored.ID == fileID {
			return stored, nil
		}
	}
	return f, nil
}

// ListEvidence lists the evidence files of penalty penaltyID (named by its
// id alone), oldest first.
func (s *Service) ListEvidence(ctx context.Context, p auth.Principal, penaltyID uuid.UUID) ([]EvidenceFile, error) {
	ctx = postgres.WithReusedPlans(ctx) // the rows of one driver (docs/query-plans.md)
	pen, err := loadPenaltyByID(ctx, s.db, p, auth.PenaltiesRead, penaltyID)
	if err != nil {
		return nil, err
	}
	files, err := evidenceOf(ctx, s.db, pen.CompanyID, []uuid.UUID{pen.ID})
	if err != nil {
		return nil, err
	}
	return files[pen.ID], nil
}

// OpenEvidence opens evidence file fileID of penalty penaltyID (named by
// its id alone) for download (served like document files). ctx must be the
// context of the request that serves it.
func (s *Service) OpenEvidence(ctx context.Context, p auth.Principal, penaltyID, fileID uuid.UUID) (*documents.Download, error) {
	pen, err := loadPenaltyByID(ctx, s.db, p, auth.PenaltiesRead, penaltyID)
	if err != nil {
		return nil, err
	}
	var (
		d          documents.Download
		path, disk string
	)
	err = s.db.QueryRow(ctx, `
		SELECT original_filename, mime_type, size_bytes, hash_sha256, created_at, storage_path, storage_disk
		FROM penalty_evidence WHERE company_id = $1 AND penalty_id = $2 AND id = $3`, pen.CompanyID, pen.ID, fileID).Scan(
		&d.OriginalFilename, &d.MimeType, &d.SizeBytes, &d.HashSHA256, &d.UploadedAt, &path, &disk)
	if postgres.IsNotFound(err) {
		return nil, apperr.NotFound("msg.common.not_found.file")
	}
	if err != nil {
		return nil, fmt.Errorf("find evidence file %s: %w", fileID, err)
	}
	return documents.OpenStored(ctx, s.files, d, path, disk)
}

// evidenceOf reads the evidence files of the given penalties of the
// company, oldest first, by penalty.
func evidenceOf(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID][]EvidenceFile, error) {
	if len(ids) == 0 {
		return map[uuid.UUID][]EvidenceFile{}, nil
	}
	rows, err := db.Query(ctx, evidenceColumns+`
		WHERE e.company_id = $1 AND e.penalty_id = ANY($2)
		ORDER BY e.created_at, e.id`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("list evidence files: %w", err)
	}
	return collectEvidence(rows, ids)
}

// evidenceColumns selects evidence files (alias e) with their penalty's id
// first, for collectEvidence.
var evidenceColumns = `
		SELECT e.penalty_id, e.id, e.original_filename, e.mime_type, e.size_bytes, e.note, ` + userName("u") + `, e.created_at
		FROM penalty_evidence e LEFT JOIN users u ON u.id = e.uploaded_by`

// collectEvidence reads the rows of an evidenceColumns statement into each
// penalty's files, in the rows' order; every penalty of ids gets a list,
// empty when it has no file.
func collectEvidence(rows pgx.Rows, ids []uuid.UUID) (map[uuid.UUID][]EvidenceFile, error) {
	defer rows.Close()
	out := make(map[uuid.UUID][]EvidenceFile, len(ids))
	for _, id := range ids {
		out[id] = []EvidenceFile{}
	}
	for rows.Next() {
		var pid uuid.UUID
		var f EvidenceFile
		if err := rows.Scan(&pid, &f.ID, &f.OriginalFilename, &f.Mime, &f.Size, &f.Note, &f.UploadedBy, &f.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan evidence file: %w", err)
		}
		out[pid] = append(out[pid], f)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list evidence files: %w", err)
	}
	return out, nil
}

// withEvidence fills the evidence files of the penalties.
func withEvidence(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, pens []Penalty) error {
	ids := make([]uuid.UUID, len(pens))
	for i, pen := range pens {
		ids[i] = pen.ID
	}
	files, err := evidenceOf(ctx, db, companyID, ids)
	if err != nil {
		return err
	}
	for i := range pens {
		pens[i].EvidenceFiles = files[pens[i].ID]
	}
	return nil
}
