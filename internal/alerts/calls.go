package alerts

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Call is a notification that called someone to act (docs/alerts.md,
// "Calls to act"), as the day's e-mail repeats it: an upload waiting for
// review or a dispute filed (to an admin or HR manager), a rejected upload
// or a dispute's outcome (to the driver).
type Call struct {
	UserID         uuid.UUID
	Kind, Stage    string
	DriverID       uuid.UUID
	DriverName     string
	InternalNumber string
	// A document's: the document, its type, the upload's valid_until and
	// a rejection's reason.
	DocumentID   *uuid.UUID
	DocumentType *string
	ValidUntil   *civil.Date
	Reason       *string
	// A dispute's: the penalty and what the notification says of it.
	PenaltyID *uuid.UUID
	Penalty   disputed
	// A transport unit's about to stop being ready (KindUnit; ValidUntil
	// is its ready_until): its vehicle.
	VehicleID     *uuid.UUID
	VehicleNumber string
}

// unitCalls are the company's ready transport units whose ready_until
// entered the lead window of the document that sets it since the previous
// scan (after it, through date), one call per active dispatcher: the
// dispatchers' daily e-mail lists them (docs/dispatch.md). The rules' lead
// days are read once per statement.
func unitCalls(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, date civil.Date) ([]Call, error) {
	rows, err := tx.Query(ctx, `
		WITH prev AS MATERIALIZED (
			SELECT coalesce(max(run_date), $2::date - 1) AS d FROM alert_runs WHERE company_id = $1 AND run_date < $2
		), ru AS MATERIALIZED (
			SELECT h.holder, r.document_type, r.lead_days
			FROM (VALUES ('driver'), ('vehicle'), ('trailer')) h(holder)
			CROSS JOIN LATERAL konvoj_document_rules($1, h.holder) r
		), u AS (
			SELECT tu.driver_id, tu.vehicle_id, tu.ready_until
			FROM transport_units tu
			JOIN ru ON ru.holder = tu.ready_limit_holder AND ru.document_type = tu.ready_limit_type
			CROSS JOIN prev
			WHERE tu.company_id = $1 AND tu.unassigned_at IS NULL AND tu.deleted_at IS NULL AND tu.is_ready
				AND tu.ready_until - ru.lead_days > prev.d AND tu.ready_until - ru.lead_days <= $2
		)
		SELECT us.id, d.id, concat_ws(' ', d.first_name, d.last_name), d.internal_number, v.id, v.internal_number, u.ready_until
		FROM u
		JOIN drivers d ON d.id = u.driver_id AND d.company_id = $1
		JOIN vehicles v ON v.id = u.vehicle_id AND v.company_id = $1
		CROSS JOIN users us
		WHERE us.company_id = $1 AND us.is_active AND us.role = 'dispatcher'
		ORDER BY u.ready_until, d.internal_seq, us.id`, companyID, date)
	if err != nil {
		return nil, fmt.Errorf("units about to stop being ready: %w", err)
	}
	return postgres.AppendRows(nil, rows, func(row pgx.Row, c *Call) error {
		c.Kind, c.Stage = KindUnit, StageLead
		var until civil.Date
		err := row.Scan(&c.UserID, &c.DriverID, &c.DriverName, &c.InternalNumber, &c.VehicleID, &c.VehicleNumber, &until)
		c.ValidUntil = &until
		return err
	})
}

// takeCalls takes the company's calls to act not yet in a day's e-mail,
// stamping them taken on the scan's transaction, so each is in one e-mail
// (or none: a recipient who turned e-mail off for its kind) once. A call
// whose matter is settled meanwhile (an upload reviewed, a dispute
// resolved) is taken but not repeated.
func takeCalls(ctx context.Context, tx pgx.Tx, companyID uuid.UUID) ([]Call, error) {
	rows, err := tx.Query(ctx, `
		WITH taken AS (
			UPDATE notifications n SET digested_at = now()
			WHERE n.company_id = $1 AND n.digested_at IS NULL AND n.kind IN ('document_review', 'penalty_dispute')
			RETURNING n.id, n.user_id, n.kind, n.stage, n.alert_id, n.driver_id, n.penalty_id, n.created_at
		)
		SELECT t.user_id, t.kind, coalesce(a.stage, t.stage), d.id, concat_ws(' ', d.first_name, d.last_name), d.internal_number,
			a.document_id, a.document_type, a.valid_until, f.review_reason,
			t.penalty_id, pe.penalty_type, pe.incident_date, pe.status, pe.dispute_reason, pe.resolution
		FROM taken t
		LEFT JOIN document_alerts a ON a.id = t.alert_id AND a.company_id = $1
		JOIN drivers d ON d.id = coalesce(a.driver_id, t.driver_id) AND d.company_id = $1
		LEFT JOIN document_files f ON f.id = a.file_id AND f.company_id = $1
		LEFT JOIN penalties pe ON pe.id = t.penalty_id AND pe.company_id = $1
		WHERE (a.stage = 'requested' AND f.review_status = 'pending')
			OR a.stage = 'rejected'
			OR (t.stage = 'filed' AND pe.status = 'disputed')
			OR (t.stage = 'resolved' AND pe.id IS NOT NULL)
		ORDER BY t.created_at, t.id`, companyID)
	if err != nil {
		return nil, fmt.Errorf("take calls to act: %w", err)
	}
	calls, err := postgres.AppendRows(nil, rows, func(row pgx.Row, c *Call) error {
		return row.Scan(&c.UserID, &c.Kind, &c.Stage, &c.DriverID, &c.DriverName, &c.InternalNumber,
			&c.DocumentID, &c.DocumentType, &c.ValidUntil, &c.Reason,
			&c.PenaltyID, &c.Penalty.Type, &c.Penalty.IncidentDate, &c.Penalty.Status, &c.Penalty.Reason, &c.Penalty.Resolution)
	})
	if err != nil {
		return nil, fmt.Errorf("take calls to act: %w", err)
	}
	return calls, nil
}

// toDriver reports whether the call goes to the driver (its own upload
// rejected, its dispute decided), not to the office.
func (c Call) toDriver() bool { return c.Stage == StageRejected || c.Stage == StageResolved }

// callsOf keeps the calls to the recipient's user that it wants by e-mail.
func callsOf(r recipient, calls []Call) []Call {
	var out []Call
	for _, c := range calls {
		if r.UserID != nil && c.UserID == *r.UserID && r.wantsEmail(c.Kind) {
			out = append(out, c)
		}
	}
	return out
}

// callLines are the calls as rows of an e-mail's table, in l: what it is
// about (a document type, a penalty), its stage, the detail the app's
// notification gives, and where to act: the review queue, the document's
// page or the penalty's.
func callLines(base string, l i18n.Lang, co company, calls []Call, withDriver bool) []line {
	base = strings.TrimRight(base, "/")
	out := make([]line, 0, len(calls))
	for _, c := range calls {
		ln := line{Stage: l.T("alert.stage." + c.Stage)}
		if withDriver {
			ln.Driver = c.InternalNumber + " " + c.DriverName
		}
		switch {
		case c.Kind == KindUnit && c.VehicleID != nil && c.ValidUntil != nil:
			ln.Document = l.T("mail.digest.unit_line", "driver", c.InternalNumber, "vehicle", c.VehicleNumber, "date", l.Date(*c.ValidUntil))
			ln.ValidUntil = l.T("mail.digest.units_intro")
			ln.Link = base + "/vehicles/" + c.VehicleID.String()
		case c.Kind == KindDispute && c.PenaltyID != nil:
			_, body := c.Penalty.texts(l, c.Stage, c.DriverName)
			kind, date := "", ""
			if c.Penalty.Type != nil {
				kind = l.T("penalty.type." + *c.Penalty.Type)
			}
			if c.Penalty.IncidentDate != nil {
				date = l.Date(*c.Penalty.IncidentDate)
			}
			ln.Document = l.T("mail.penalty", "type", kind, "date", date)
			ln.ValidUntil = body
			ln.Link = base + "/drivers/" + c.DriverID.String() + "/penalties/" + c.PenaltyID.String()
		case c.DocumentID != nil && c.DocumentType != nil:
			ln.Document = co.Types.Name(l, *c.DocumentType)
			ln.Link = documentLink(base, c.DriverID, *c.DocumentID)
			if c.Stage == StageRequested {
				ln.Link = base + ReviewQueuePath
				if c.ValidUntil != nil {
					ln.ValidUntil = l.T("notify.body.until", "date", l.Date(*c.ValidUntil))
				}
			} else if c.Reason != nil {
				ln.ValidUntil = l.T("notify.body.rejected", "reason", *c.Reason)
			}
		}
		out = append(out, ln)
	}
	return out
}

// ReviewQueuePath is the pages' review queue, where an upload waiting for
// review is approved or rejected.
const ReviewQueuePath = "/document-reviews"
