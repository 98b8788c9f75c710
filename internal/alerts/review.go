package alerts

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/documents"
)

// The stages of a review's outcome (docs/alerts.md, "Review outcomes"),
// recorded like expiry stages so the driver's notification lists them.
const (
	StageApproved = documents.ReviewApproved
	StageRejected = documents.ReviewRejected
	// StageRequested calls the company's admins and HR managers to review
	// a driver's upload (docs/alerts.md, "Calls to act").
	StageRequested = documents.ReviewRequested
)

// KindReview is the notification kind of a review's outcome.
const KindReview = "document_review"

// MailReview is the outbox kind of a review's e-mail to the driver.
const MailReview = "review_outcome"

// ReviewNotifier returns the documents service's notifier: it tells the
// driver the outcome of a review of its upload, on the review's
// transaction. base is PUBLIC_URL, for the link in the e-mail.
func ReviewNotifier(base string) documents.ReviewNotifier {
	return func(ctx context.Context, tx pgx.Tx, r documents.Reviewed) error {
		return notifyReview(ctx, tx, base, r)
	}
}

// notifyReview records the outcome as a document_alerts row (stage
// approved or rejected, file_id the version), gives the driver's user (when
// the driver has signed in) an in-app notification, and writes the e-mail
// to the driver's address in its language to the outbox, unless the driver
// turned e-mail about reviews off. The scheduler queues the outbox's
// delivery (docs/alerts.md, "E-mail: the outbox").
func notifyReview(ctx context.Context, tx pgx.Tx, base string, r documents.Reviewed) error {
	if r.Status == StageRequested {
		return requestReview(ctx, tx, r)
	}
	co, err := loadCompany(ctx, tx, r.CompanyID)
	if err != nil {
		return err
	}
	var alertID uuid.UUID
	var driverName string
	if err := tx.QueryRow(ctx, `
		INSERT INTO document_alerts (company_id, driver_id, document_id, document_type, file_id, stage, valid_until, alert_date)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		RETURNING id, (SELECT concat_ws(' ', first_name, last_name) FROM drivers WHERE company_id = $1 AND id = $2)`,
		r.CompanyID, r.DriverID, r.DocumentID, r.DocumentType, r.FileID, r.Status, r.ValidUntil, r.Today).Scan(&alertID, &driverName); err != nil {
		return fmt.Errorf("record review outcome of file %s: %w", r.FileID, err)
	}
	drivers, err := driverRecipients(ctx, tx, co, []uuid.UUID{r.DriverID})
	if err != nil {
		return err
	}
	rc, ok := drivers[r.DriverID]
	if !ok {
		return nil
	}
	if rc.UserID != nil {
		if _, err := tx.Exec(ctx, `INSERT INTO notifications (company_id, user_id, alert_id, kind) VALUES ($1, $2, $3, $4)`,
			r.CompanyID, *rc.UserID, alertID, KindReview); err != nil {
			return fmt.Errorf("write review notification: %w", err)
		}
	}
	if !rc.wantsEmail(KindReview) {
		return nil
	}
	return writeOutbox(ctx, tx, r.CompanyID, []Email{reviewMail(base, co, rc, driverName, r)})
}

// reviewMail is the driver's e-mail about the outcome of a review.
func reviewMail(base string, co company, rc recipient, driverName string, r documents.Reviewed) Email {
	l := rc.Language
	docType := co.Types.Name(l, r.DocumentType)
	intro := l.T("mail.review.approved", "name", driverName, "type", docType)
	if r.Status == StageRejected {
		intro = l.T("mail.review.rejected", "name", driverName, "type", docType, "reason", r.Reason)
	}
	ln := line{Document: docType, Stage: l.T("alert.stage." + r.Status), Link: documentLink(base, r.DriverID, r.DocumentID)}
	if r.ValidUntil != nil && r.Status == StageApproved {
		ln.ValidUntil = l.Date(*r.ValidUntil)
	}
	open := l.T("mail.open")
	if r.Status == StageRejected {
		open = l.T("mail.driver.upload")
	}
	m := mailBody{
		Lang:     string(l),
		Title:    l.T("mail.review.subject", "type", docType, "stage", l.T("alert.stage."+r.Status), "company", co.Name),
		Intro:    intro,
		Headers:  []string{l.T("mail.col.document"), l.T("mail.col.stage"), l.T("mail.col.valid_until")},
		Lines:    []line{ln},
		Open:     open,
		Footer:   l.T("mail.footer"),
		Settings: strings.TrimRight(base, "/") + "/notifications",
	}
	return m.email(MailReview, rc)
}

// requestReview records the upload waiting for review as a document_alerts
// row (stage requested, file_id the pending version) and gives every active
// admin and HR manager of the company an in-app notification of it, in one
// statement on the upload's transaction.
func requestReview(ctx context.Context, tx pgx.Tx, r documents.Reviewed) error {
	if _, err := tx.Exec(ctx, `
		WITH a AS (
			INSERT INTO document_alerts (company_id, driver_id, document_id, document_type, file_id, stage, valid_until, alert_date)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			RETURNING id
		)
		INSERT INTO notifications (company_id, user_id, alert_id, kind)
		SELECT $1, u.id, a.id, $9 FROM a, users u
		WHERE u.company_id = $1 AND u.is_active AND u.role IN ('admin', 'hr_manager')`,
		r.CompanyID, r.DriverID, r.DocumentID, r.DocumentType, r.FileID, StageRequested, r.ValidUntil, r.Today, KindReview); err != nil {
		return fmt.Errorf("call to review file %s: %w", r.FileID, err)
	}
	return nil
}
