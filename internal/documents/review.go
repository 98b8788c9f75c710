package documents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/textin"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// Review statuses of a file version (docs/drivers-and-documents.md,
// "Review of drivers' uploads").
const (
	ReviewApproved = "approved"
	ReviewPending  = "pending"
	ReviewRejected = "rejected"
)

// Review decisions.
const (
	DecisionApprove = "approve"
	DecisionReject  = "reject"
)

// MaxReasonLen is the longest review reason, in characters.
const MaxReasonLen = 1000

// Review is a file version's review as file objects show it: approved
// (also every upload by HR or an admin, and every version from before
// review existed), pending or rejected, with the reason, the reviewer's
// user id and the time of the decision.
type Review struct {
	Status     string     `json:"review_status"`
	Reason     *string    `json:"review_reason"`
	ReviewedBy *uuid.UUID `json:"reviewed_by"`
	ReviewedAt *time.Time `json:"reviewed_at"`
}

// ReviewInput is the body of a review: decision approve or reject, and the
// reason (required to reject; kept as a note when approving).
type ReviewInput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Reviewed is a decided review, for the notification of the driver.
type Reviewed struct {
	CompanyID    uuid.UUID
	DriverID     uuid.UUID
	DocumentID   uuid.UUID
	DocumentType string
	FileID       uuid.UUID
	Version      int
	Status       string // approved or rejected
	Reason       string
	// ValidUntil is the document's valid_until after the decision.
	ValidUntil *civil.Date
	Today      civil.Date
}

// ReviewNotifier tells the driver the outcome of a review, on the review's
// transaction (the alerts package writes the notification and the e-mail).
type ReviewNotifier func(ctx context.Context, tx pgx.Tx, r Reviewed) error

// needsReview reports whether p's changes to the document wait for
// review: the type's rule asks for it and p may not review (a driver; HR
// and admins approve their own uploads by uploading). Such an upload is
// stored pending; such a PUT is refused (Update).
func (s *Service) needsReview(ctx context.Context, db postgres.DBTX, p auth.Principal, ref Ref) (bool, error) {
	if p.Grant(auth.DocumentsReview) != auth.Deny {
		return false, nil
	}
	var on bool
	err := db.QueryRow(ctx, `SELECT requires_review FROM konvoj_document_rules($1) WHERE document_type = $2`,
		ref.CompanyID(), ref.docType).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("review rule of %s: %w", ref.docType, err)
	}
	return on, nil
}

// ChangesNeedReview reports whether p's changes to the document wait for
// review (needsReview): the document page says so above the upload form.
// ref is the guard's Ref of the document, for any action p may do with
// it and auth.DocumentsWrite.
func (s *Service) ChangesNeedReview(ctx context.Context, p auth.Principal, ref Ref) (bool, error) {
	if err := ref.Check(p, auth.DocumentsWrite); err != nil {
		return false, err
	}
	return s.needsReview(ctx, s.db, p, ref)
}

// body is the change in the form of the body of PUT /documents/{id}
// (parseJSONChange reads it back): the fields it sets, null for a cleared
// one.
func (c change) body() map[string]any {
	out := map[string]any{}
	if c.Number.Set {
		out["number"] = c.Number.Value
	}
	if c.Country.Set {
		out["country"] = c.Country.Value
	}
	if c.ValidFrom.Set {
		out["valid_from"] = c.ValidFrom.Value
	}
	if c.ValidUntil.Set {
		out["valid_until"] = c.ValidUntil.Value
	}
	if c.Meta.Set {
		out["meta"] = c.Meta.Value
	}
	return out
}

// storedChange reads a pending version's review_change back.
func storedChange(raw []byte) (change, error) {
	if len(raw) == 0 {
		return change{}, nil
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil {
		return change{}, fmt.Errorf("decode review_change: %w", err)
	}
	return parseJSONChange(body)
}

// checkReview validates a review's input.
func checkReview(in ReviewInput) (ReviewInput, error) {
	var v apperr.Validation
	in.Decision = strings.TrimSpace(in.Decision)
	in.Reason = strings.TrimSpace(in.Reason)
	switch in.Decision {
	case DecisionApprove, DecisionReject:
	case "":
		v.Add("decision", "msg.review.decision_required")
	default:
		v.Add("decision", "msg.review.decision")
	}
	switch {
	case textin.Bad(in.Reason):
		v.Add("reason", "msg.common.text_invalid", "field", "reason")
	case utf8.RuneCountInString(in.Reason) > MaxReasonLen:
		v.Add("reason", "msg.review.reason_too_long", "max", MaxReasonLen)
	case in.Decision == DecisionReject && in.Reason == "":
		v.Add("reason", "msg.review.reason_required")
	}
	return in, v.Err()
}

// ReviewFile decides a pending version (ref: the guard's Ref of the file,
// from AuthorizeFile with auth.DocumentsReview). Approve makes the version
// the document's current file and applies the fields sent with it, so the
// status and the driver's readiness follow; reject keeps the document as it
// is. Either way the version records the decision, an audit row is written
// and the driver is told, all in one transaction. The document row is
// locked first, as an upload locks it, so of two reviews of one version
// the second finds it decided: 409 Conflict, as for any version that is
// not pending.
func (s *Service) ReviewFile(ctx context.Context, p auth.Principal, ref Ref, in ReviewInput) (*File, error) {
	if err := ref.Check(p, auth.DocumentsReview); err != nil {
		return nil, err
	}
	in, err := checkReview(in)
	if err != nil {
		return nil, err
	}
	today := p.Today()
	fileID := ref.ID()
	var out *File
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		before, currentFile, err := lockDocument(ctx, tx, ref)
		if err != nil {
			return err
		}
		var status string
		var version int
		var raw []byte
		err = tx.QueryRow(ctx, `
			SELECT review_status, version, review_change FROM document_files
			WHERE company_id = $1 AND id = $2 AND document_id = $3
			FOR UPDATE`, ref.CompanyID(), fileID, ref.DocumentID()).Scan(&status, &version, &raw)
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.NotFound("msg.common.not_found.file")
		}
		if err != nil {
			return fmt.Errorf("lock file %s: %w", fileID, err)
		}
		if status != ReviewPending {
			return apperr.Conflict("msg.review.not_pending", "status", status)
		}
		var reason *string
		if in.Reason != "" {
			reason = &in.Reason
		}
		after := before
		newStatus := ReviewRejected
		action := "document.review_rejected"
		if in.Decision == DecisionApprove {
			newStatus, action = ReviewApproved, "document.review_approved"
			ch, err := storedChange(raw)
			if err != nil {
				return err
			}
			after = before.apply(ch)
			if err := after.check(); err != nil {
				return err
			}
			if err := clearCurrent(ctx, tx, ref); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `
			UPDATE document_files
			SET review_status = $3, review_reason = $4, reviewed_by = $5, reviewed_at = now(),
				is_current = $3 = 'approved', updated_at = now()
			WHERE company_id = $1 AND id = $2`, ref.CompanyID(), fileID, newStatus, reason, p.UserID); err != nil {
			return fmt.Errorf("record review of file %s: %w", fileID, err)
		}
		oldValues := map[string]any{"review_status": ReviewPending}
		newValues := map[string]any{"file_id": fileID, "version": version, "review_status": newStatus, "review_reason": reason}
		if newStatus == ReviewApproved {
			if err := saveDocument(ctx, tx, ref, after, &fileID); err != nil {
				return err
			}
			o, n := audit.Diff(before.auditValues(currentFile != nil, today), after.auditValues(true, today))
			for k, v := range o {
				oldValues[k] = v
			}
			for k, v := range n {
				newValues[k] = v
			}
			oldValues["current_file_id"], newValues["current_file_id"] = currentFile, fileID
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{
			EntityType: "document", EntityID: ref.DocumentID(), Action: action,
			OldValues: oldValues, NewValues: newValues,
		}); err != nil {
			return err
		}
		if s.notifyReview != nil {
			if err := s.notifyReview(ctx, tx, Reviewed{
				CompanyID: ref.CompanyID(), DriverID: ref.DriverID(), DocumentID: ref.DocumentID(), DocumentType: ref.docType,
				FileID: fileID, Version: version, Status: newStatus, Reason: in.Reason, ValidUntil: after.ValidUntil, Today: today,
			}); err != nil {
				return err
			}
		}
		if out, err = fileByID(ctx, tx, ref.CompanyID(), fileID); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, ref.CompanyID(), webhooks.DocumentReviewCompleted, out)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fileByID loads a file version as the upload answers it.
func fileByID(ctx context.Context, db postgres.DBTX, companyID, id uuid.UUID) (*File, error) {
	var f File
	err := db.QueryRow(ctx, `
		SELECT id, document_id, filename, original_filename, mime_type, size_bytes, version, is_current,
			storage_path, storage_disk, hash_sha256, uploaded_by, uploaded_at,
			review_status, review_reason, reviewed_by, reviewed_at
		FROM document_files WHERE company_id = $1 AND id = $2`, companyID, id).Scan(
		&f.ID, &f.DocumentID, &f.Filename, &f.OriginalFilename, &f.MimeType, &f.SizeBytes, &f.Version, &f.IsCurrent,
		&f.StoragePath, &f.StorageDisk, &f.HashSHA256, &f.UploadedBy, &f.UploadedAt,
		&f.Review.Status, &f.Review.Reason, &f.Review.ReviewedBy, &f.Review.ReviewedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, apperr.NotFound("msg.common.not_found.file")
	}
	if err != nil {
		return nil, fmt.Errorf("load file %s: %w", id, err)
	}
	return &f, nil
}

// PendingReview is a version waiting for review, as the review queue shows
// it: the driver, the document as it stands and as it would be once
// approved, and the file.
type PendingReview struct {
	FileID           uuid.UUID
	Version          int
	OriginalFilename string
	MimeType         string
	SizeBytes        int64
	UploadedAt       time.Time
	UploadedBy       string
	DriverID         uuid.UUID
	DriverName       string
	DriverNumber     string
	DocumentID       uuid.UUID
	DocumentType     string
	// Current is the document now (its status included); Proposed is it
	// with the fields sent with the version, as approving would make it.
	Current, Proposed Fields
}

// Fields are a document's fields as the review queue compares them.
type Fields struct {
	Number     *string
	Country    *string
	ValidFrom  *civil.Date
	ValidUntil *civil.Date
	Status     string
}

func fieldsOf(m metadata, hasFile bool, today civil.Date) Fields {
	return Fields{Number: m.Number, Country: m.Country, ValidFrom: m.ValidFrom, ValidUntil: m.ValidUntil,
		Status: Status(hasFile, m.ValidUntil, today)}
}

// PendingReviews returns the company's versions waiting for review, oldest
// first, at most limit of them, and how many there are. company is the
// guard's collection Ref (Principal.Scope with auth.DocumentsReview).
func (s *Service) PendingReviews(ctx context.Context, p auth.Principal, company auth.Ref, limit int) ([]PendingReview, int, error) {
	if err := company.Check(p, auth.DocumentsReview); err != nil {
		return nil, 0, err
	}
	today := p.Today()
	rows, err := s.db.Query(ctx, `
		SELECT f.id, f.version, f.original_filename, f.mime_type, f.size_bytes, f.uploaded_at,
			coalesce(nullif(btrim(concat_ws(' ', u.first_name, u.last_name)), ''), u.email, ''),
			d.id, concat_ws(' ', d.first_name, d.last_name), d.internal_number,
			dd.id, dd.type, dd.number, dd.country, dd.valid_from, dd.valid_until, dd.meta, dd.current_file_id IS NOT NULL,
			f.review_change, count(*) OVER ()
		FROM document_files f
		JOIN driver_documents dd ON dd.id = f.document_id AND dd.company_id = f.company_id
		JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
		LEFT JOIN users u ON u.id = f.uploaded_by
		WHERE f.company_id = $1 AND dd.company_id = $1 AND d.company_id = $1 AND f.review_status = 'pending'
		ORDER BY f.uploaded_at, f.id
		LIMIT $2`, company.CompanyID(), limit)
	if err != nil {
		return nil, 0, fmt.Errorf("pending reviews: %w", err)
	}
	total := 0
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, r *PendingReview) error {
		var m metadata
		var hasFile bool
		var raw []byte
		if err := row.Scan(&r.FileID, &r.Version, &r.OriginalFilename, &r.MimeType, &r.SizeBytes, &r.UploadedAt, &r.UploadedBy,
			&r.DriverID, &r.DriverName, &r.DriverNumber, &r.DocumentID, &r.DocumentType,
			&m.Number, &m.Country, &m.ValidFrom, &m.ValidUntil, &m.Meta, &hasFile, &raw, &total); err != nil {
			return err
		}
		ch, err := storedChange(raw)
		if err != nil {
			return err
		}
		r.Current, r.Proposed = fieldsOf(m, hasFile, today), fieldsOf(m.apply(ch), true, today)
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("pending reviews: %w", err)
	}
	return out, total, nil
}

// PendingCount is how many versions of the company wait for review (the
// navigation's and the dashboard's count).
func (s *Service) PendingCount(ctx context.Context, p auth.Principal, company auth.Ref) (int, error) {
	if err := company.Check(p, auth.DocumentsReview); err != nil {
		return 0, err
	}
	var n int
	if err := s.db.QueryRow(ctx, `
		SELECT count(*) FROM document_files f
		JOIN driver_documents dd ON dd.id = f.document_id AND dd.company_id = f.company_id
		JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
		WHERE f.company_id = $1 AND f.review_status = 'pending'`, company.CompanyID()).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending reviews: %w", err)
	}
	return n, nil
}
