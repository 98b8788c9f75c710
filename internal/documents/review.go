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
	// ReviewRequested is not a version's status but the stage of the call
	// to review a pending version (docs/alerts.md, "Calls to act").
	ReviewRequested = "requested"
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

// Reviewed is a decided review, for the notification of the driver, or
// an upload waiting for review (Status ReviewRequested), for the
// notification of HR and admins.
type Reviewed struct {
	CompanyID    uuid.UUID
	DriverID     uuid.UUID
	DocumentID   uuid.UUID
	DocumentType string
	FileID       uuid.UUID
	Version      int
	Status       string // approved or rejected; ReviewRequested for an upload waiting for review
	Reason       string
	// ValidUntil is the document's valid_until after the decision (for a
	// requested review: as the upload would set it).
	ValidUntil *civil.Date
	Today      civil.Date
}

// ReviewNotifier tells the driver the outcome of a review, or HR and
// admins that an upload waits for review, on the transaction of the review
// or the upload (the alerts package writes the notifications and the
// e-mail).
type ReviewNotifier func(ctx context.Context, tx pgx.Tx, r Reviewed) error

// needsReview reports whether p's changes to the document wait for
// review: the type's rule asks for it and p may not review (a driver; HR
// and admins approve their own uploads by uploading). A fleet document's
// changes never wait. Such an upload is
// stored pending; such a PUT is refused (Update).
func (s *Service) needsReview(ctx context.Context, db postgres.DBTX, p auth.Principal, doc docRecord) (bool, error) {
	if doc.fleet() || reviewsOwnChanges(p) {
		// A vehicle's or a trailer's documents are changed only by those
		// who may review them (admins, dispatchers): at once.
		return false, nil
	}
	var on bool
	err := db.QueryRow(ctx, `SELECT requires_review FROM konvoj_document_rules($1) WHERE document_type = $2`,
		doc.CompanyID, doc.Type).Scan(&on)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("review rule of %s: %w", doc.Type, err)
	}
	return on, nil
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

// Decision is a decided review: the version as the API answers it, with
// its document's type and its driver's name for messages.
type Decision struct {
	File         *File
	DocumentType string
	DriverName   string
}

// ReviewFile decides pending version fileID of document documentID, the
// document the request's path names (another document's version is 404;
// uuid.Nil: the path names none). read fills the decision once the
// version is loaded and checked. Approve makes the version the document's
// current file and applies the fields sent with it, so the status and the
// driver's readiness follow; reject keeps the document as it is. Either
// way the version records the decision, an audit row is written and the
// driver is told, all in one transaction. The document and the version are
// locked as they are loaded, as an upload locks the document, so of two
// reviews of one version the second finds it decided: 409 Conflict, as for
// any version that is not pending.
func (s *Service) ReviewFile(ctx context.Context, p auth.Principal, documentID, fileID uuid.UUID, read func(*ReviewInput) error) (Decision, error) {
	today := p.Today()
	var out Decision
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		r, err := loadFile(ctx, tx, p, auth.DocumentsReview, fileID, true)
		if err != nil {
			return err
		}
		if documentID != uuid.Nil && r.File.DocumentID != documentID {
			return apperr.NotFound("msg.common.not_found.file") // a version of another document than the path's
		}
		var in ReviewInput
		if err := read(&in); err != nil {
			return err
		}
		if in, err = checkReview(in); err != nil {
			return err
		}
		doc, f := r.Doc, r.File
		if f.Review.Status != ReviewPending {
			return apperr.Conflict("msg.review.not_pending", "status", f.Review.Status)
		}
		var reason *string
		if in.Reason != "" {
			reason = &in.Reason
		}
		before := doc.Fields
		after := before
		newStatus := ReviewRejected
		action := "document.review_rejected"
		if in.Decision == DecisionApprove {
			newStatus, action = ReviewApproved, "document.review_approved"
			ch, err := storedChange(r.Change)
			if err != nil {
				return err
			}
			after = before.apply(ch)
			if err := after.check(); err != nil {
				return err
			}
			if err := clearCurrent(ctx, tx, doc); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, `
			UPDATE document_files
			SET review_status = $3, review_reason = $4, reviewed_by = $5, reviewed_at = now(),
				is_current = $3 = 'approved', updated_at = now()
			WHERE company_id = $1 AND id = $2
			RETURNING is_current, reviewed_at`, doc.CompanyID, fileID, newStatus, reason, p.UserID).Scan(&f.IsCurrent, &f.Review.ReviewedAt); err != nil {
			return fmt.Errorf("record review of file %s: %w", fileID, err)
		}
		f.Review.Status, f.Review.Reason, f.Review.ReviewedBy = newStatus, reason, &p.UserID
		oldValues := map[string]any{"review_status": ReviewPending}
		newValues := map[string]any{"file_id": fileID, "version": f.Version, "review_status": newStatus, "review_reason": reason}
		inUnit := false
		if newStatus == ReviewApproved {
			var err error
			if inUnit, err = saveDocument(ctx, tx, doc, after, &fileID); err != nil {
				return err
			}
			o, n := audit.Diff(before.auditValues(doc.CurrentFile != nil, today), after.auditValues(true, today))
			for k, v := range o {
				oldValues[k] = v
			}
			for k, v := range n {
				newValues[k] = v
			}
			oldValues["current_file_id"], newValues["current_file_id"] = doc.CurrentFile, fileID
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{
			EntityType: "document", EntityID: doc.ID, Action: action,
			OldValues: oldValues, NewValues: newValues,
		}); err != nil {
			return err
		}
		if s.notifyReview != nil {
			if err := s.notifyReview(ctx, tx, Reviewed{
				CompanyID: doc.CompanyID, DriverID: doc.DriverID, DocumentID: doc.ID, DocumentType: doc.Type,
				FileID: fileID, Version: f.Version, Status: newStatus, Reason: in.Reason, ValidUntil: after.ValidUntil, Today: today,
			}); err != nil {
				return err
			}
		}
		out = Decision{File: &f, DocumentType: doc.Type, DriverName: r.Driver}
		if err := webhooks.Emit(ctx, tx, doc.CompanyID, webhooks.DocumentReviewCompleted, webhooks.About{Driver: doc.DriverID, Data: out.File}); err != nil {
			return err
		}
		// An approved version is the document's current one: its holder's
		// transport unit may have changed readiness.
		return flushUnits(ctx, tx, doc.CompanyID, inUnit)
	})
	if err != nil {
		return Decision{}, err
	}
	return out, nil
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

// PendingReviews returns the caller's company's versions waiting for
// review, oldest first, at most limit of them, and how many there are.
func (s *Service) PendingReviews(ctx context.Context, p auth.Principal, limit int) ([]PendingReview, int, error) {
	if _, err := collection(p, auth.DocumentsReview); err != nil {
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
		LIMIT $2`, p.CompanyID, limit)
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
func (s *Service) PendingCount(ctx context.Context, p auth.Principal) (int, error) {
	if _, err := collection(p, auth.DocumentsReview); err != nil {
		return 0, err
	}
	var n int
	if err := s.db.QueryRow(ctx, `
		SELECT count(*) FROM document_files f
		JOIN driver_documents dd ON dd.id = f.document_id AND dd.company_id = f.company_id
		JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id AND d.deleted_at IS NULL
		WHERE f.company_id = $1 AND f.review_status = 'pending'`, p.CompanyID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count pending reviews: %w", err)
	}
	return n, nil
}
