// Package alerts turns document expiry into alerts (docs/alerts.md): the
// daily scan records each stage of each document version once, writes the
// in-app notifications and the e-mails (to the outbox) in one transaction,
// and the mail worker delivers the outbox.
package alerts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// The stages of a document version, in the order a document goes through
// them, and the weekly reminder of an expired one.
const (
	StageLead         = "lead"
	StageExpiringSoon = "expiring_soon"
	StageExpired      = "expired"
	StageMissing      = "missing"
	StageReminder     = "reminder"
)

// Stages are the stages, for texts and tests.
var Stages = []string{StageLead, StageExpiringSoon, StageExpired, StageMissing, StageReminder}

// The notification kinds a user can opt out of e-mail for.
const (
	KindAlert    = "document_alert"    // a stage change
	KindReminder = "document_reminder" // the weekly reminder of an expired document
)

// KindWebhookDisabled is the in-app notification to a company's admins
// that Konvoj disabled a failing webhook endpoint (docs/webhooks.md); it
// has no e-mail, so it is not among Kinds.
const KindWebhookDisabled = "webhook_disabled"

// Kinds are the notification kinds a user can opt out of e-mail for
// (KindReview: review.go, KindDispute: dispute.go).
var Kinds = []string{KindAlert, KindReminder, KindReview, KindDispute}

// KindOf is the notification kind of a stage.
func KindOf(stage string) string {
	switch stage {
	case StageReminder:
		return KindReminder
	case StageApproved, StageRejected, StageRequested:
		return KindReview
	case StageFiled, StageResolved:
		return KindDispute
	}
	return KindAlert
}

// ScanHour is the company-local hour at which the daily scan runs.
const ScanHour = 7

// Alert is a stage the scan recorded for the first time. HolderType and
// HolderID name whose document it is (a driver's, a vehicle's or a
// trailer's); DriverID is uuid.Nil for a vehicle's or a trailer's, and
// DriverName and InternalNumber name the holder (a vehicle or a trailer by
// its plate).
type Alert struct {
	ID             uuid.UUID
	HolderType     string
	HolderID       uuid.UUID
	DriverID       uuid.UUID
	DriverName     string
	InternalNumber string
	DocumentID     uuid.UUID
	DocumentType   string
	Stage          string
	ValidUntil     *civil.Date
}

// Result is what one scan did.
type Result struct {
	// AlreadyRun: the company's scan of that day had run (nothing done).
	AlreadyRun bool
	// Empty: the company had no active driver, so nothing
	// was done and the day is still due (a new company's first drivers
	// are scanned as soon as they are added).
	Empty  bool
	Alerts []Alert
	// Calls are the calls to act since the previous scan, repeated in the
	// day's e-mails (their in-app notifications were written with them).
	Calls []Call
	// Emails are the outbox rows written, to be delivered.
	Emails []Email
}

// Scanner runs the daily scan.
type Scanner struct {
	db *pgxpool.Pool
	// BaseURL is PUBLIC_URL, for the links in e-mails.
	BaseURL string
}

// NewScanner returns a scanner on the owner's pool (the scan spans the
// company's users and drivers, outside any request).
func NewScanner(db *pgxpool.Pool, baseURL string) *Scanner {
	return &Scanner{db: db, BaseURL: baseURL}
}

// Scan runs the company's scan for the company-local day date, once: a
// second scan of the same company and day (a rerun, another instance, a
// restart) finds the day's run and does nothing. The run's record, the
// alerts, the notifications and the e-mails commit together; afterTx (may
// be nil) runs on the same transaction before the commit, to enqueue the
// delivery of the e-mails.
func (s *Scanner) Scan(ctx context.Context, companyID uuid.UUID, date civil.Date, afterTx func(pgx.Tx, []Email) error) (Result, error) {
	var res Result
	err := postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var err error
		if res, err = s.run(ctx, tx, companyID, date); err != nil || afterTx == nil {
			return err
		}
		return afterTx(tx, res.Emails)
	})
	if err != nil {
		return Result{}, fmt.Errorf("alert scan of company %s %s: %w", companyID, date, err)
	}
	return res, nil
}

// Preview runs the scan and rolls it back: what the scan of that day would
// record and send, with nothing kept (konvoj notify --dry-run).
func (s *Scanner) Preview(ctx context.Context, companyID uuid.UUID, date civil.Date) (Result, error) {
	tx, err := s.db.Begin(ctx)
	if err != nil {
		return Result{}, fmt.Errorf("begin transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	res, err := s.run(ctx, tx, companyID, date)
	if err != nil {
		return Result{}, fmt.Errorf("alert scan preview of company %s %s: %w", companyID, date, err)
	}
	return res, nil
}

// run is the scan on tx.
func (s *Scanner) run(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, date civil.Date) (Result, error) {
	var res Result
	co, err := loadCompany(ctx, tx, companyID)
	if err != nil {
		return res, err
	}
	// A company without an active driver, vehicle or trailer (a new one,
	// before its records are added or imported) has nothing to scan: its
	// day is not claimed, so the scheduler's next round scans the records
	// added meanwhile instead of leaving them to the next morning.
	var scannable bool
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT FROM drivers
			WHERE company_id = $1 AND deleted_at IS NULL AND status = 'active')
		OR EXISTS (SELECT FROM vehicles WHERE company_id = $1 AND deleted_at IS NULL AND status = 'active')
		OR EXISTS (SELECT FROM trailers WHERE company_id = $1 AND deleted_at IS NULL AND status = 'active')`,
		companyID).Scan(&scannable); err != nil {
		return res, fmt.Errorf("find drivers to scan: %w", err)
	}
	if !scannable {
		res.Empty = true
		return res, nil
	}
	tag, err := tx.Exec(ctx, `INSERT INTO alert_runs (company_id, run_date) VALUES ($1, $2) ON CONFLICT DO NOTHING`, companyID, date)
	if err != nil {
		return res, fmt.Errorf("record alert run: %w", err)
	}
	if tag.RowsAffected() == 0 {
		res.AlreadyRun = true
		return res, nil
	}
	if res.Alerts, err = recordStages(ctx, tx, companyID, date); err != nil {
		return res, err
	}
	if res.Calls, err = takeCalls(ctx, tx, companyID); err != nil {
		return res, err
	}
	units, err := unitCalls(ctx, tx, companyID, date)
	if err != nil {
		return res, err
	}
	res.Calls = append(res.Calls, units...)
	if len(res.Alerts) == 0 && len(res.Calls) == 0 {
		return res, nil
	}
	if err := emitStages(ctx, tx, companyID, date, res.Alerts); err != nil {
		return res, err
	}
	if res.Emails, err = s.notify(ctx, tx, co, date, res.Alerts, res.Calls); err != nil {
		return res, err
	}
	if _, err := tx.Exec(ctx, `UPDATE alert_runs SET alerts = $3, emails = $4 WHERE company_id = $1 AND run_date = $2`,
		companyID, date, len(res.Alerts), len(res.Emails)); err != nil {
		return res, fmt.Errorf("count alert run: %w", err)
	}
	return res, nil
}

// StageChange is the data of a document.status_changed webhook event: the
// document as the API returns it, and the stage it entered.
type StageChange struct {
	documents.Document
	Stage string `json:"stage"`
}

// emitStages writes a document.status_changed webhook event for each
// recorded lead, expiring_soon and expired stage (docs/webhooks.md).
func emitStages(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, date civil.Date, alerts []Alert) error {
	for _, a := range alerts {
		if a.Stage != StageLead && a.Stage != StageExpiringSoon && a.Stage != StageExpired {
			continue
		}
		d, err := documents.DocumentOf(ctx, tx, companyID, a.HolderType, a.HolderID, a.DocumentID, date)
		if err != nil {
			return err
		}
		if d == nil {
			continue
		}
		if err := webhooks.Emit(ctx, tx, companyID, webhooks.DocumentStatusChanged, StageChange{Document: *d, Stage: a.Stage}); err != nil {
			return err
		}
	}
	return nil
}

// company is what the scan needs of the company.
type company struct {
	ID       uuid.UUID
	Name     string
	Language i18n.Lang
	// Types names the company's own document types.
	Types documents.TypeNames
}

func loadCompany(ctx context.Context, tx pgx.Tx, id uuid.UUID) (company, error) {
	c := company{ID: id}
	var lang string
	err := tx.QueryRow(ctx, `SELECT name, default_language FROM companies WHERE id = $1`, id).Scan(&c.Name, &lang)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, apperr.NotFound("msg.common.not_found.company")
	}
	if err != nil {
		return c, fmt.Errorf("load company %s: %w", id, err)
	}
	c.Language = langOr(lang, i18n.Default)
	if c.Types, err = documents.LoadTypeNames(ctx, tx, id); err != nil {
		return c, err
	}
	return c, nil
}

func langOr(code string, def i18n.Lang) i18n.Lang {
	if l, ok := i18n.Parse(code); ok {
		return l
	}
	return def
}

// stagesSQL records the stage each document of the company's active
// drivers, vehicles and trailers is in on day $2 (docs/alerts.md; a
// vehicle's or a trailer's by the rules of its holder type, of the types
// that apply to it), and on a Monday ($3) the weekly
// reminder of each document whose expired stage was recorded on an earlier
// day; a stage already recorded for the version is left alone (the unique
// indexes), so only new ones come back.
const stagesSQL = `
WITH req AS (
    -- The company's document facts (migrations/00024_company_document_facts.sql).
    SELECT f.required AS req_all, f.required_non_eu AS req_non_eu, f.tag_rule_for, f.tag_rule_types
    FROM company_document_facts f WHERE f.company_id = $1
),
docs AS (
    SELECT dd.id, dd.holder_type, dd.holder_id, dd.driver_id, dd.type, dd.current_file_id AS file_id, dd.valid_until, r.lead_days,
        dd.type = ANY ((CASE WHEN konvoj_eu_citizen(d.citizenship) THEN req.req_all ELSE req.req_non_eu END)
            || konvoj_tagged_types(req.tag_rule_for, req.tag_rule_types, d.tags)) AS required
    FROM driver_documents dd
    JOIN drivers d ON d.id = dd.driver_id AND d.company_id = dd.company_id
    JOIN konvoj_document_rules($1) r ON r.document_type = dd.type
    CROSS JOIN req
    WHERE dd.company_id = $1 AND d.company_id = $1 AND d.deleted_at IS NULL AND d.status = 'active'
    UNION ALL
    SELECT dd.id, dd.holder_type, dd.holder_id, NULL, dd.type, dd.current_file_id, dd.valid_until, r.lead_days,
        r.required AND (r.required_for = 'all' OR (r.required_for LIKE 'tag:%' AND substr(r.required_for, 5) = ANY (h.tags)))
    FROM driver_documents dd
    JOIN (
        SELECT 'vehicle' AS holder_type, v.id, v.type AS kind, v.tags FROM vehicles v
        WHERE v.company_id = $1 AND v.deleted_at IS NULL AND v.status = 'active'
        UNION ALL
        SELECT 'trailer', t.id, t.type, t.tags FROM trailers t
        WHERE t.company_id = $1 AND t.deleted_at IS NULL AND t.status = 'active'
    ) h ON h.id = dd.holder_id AND h.holder_type = dd.holder_type
    JOIN (
        SELECT 'vehicle' AS holder_type, x.* FROM konvoj_document_rules($1, 'vehicle') x
        UNION ALL
        SELECT 'trailer', x.* FROM konvoj_document_rules($1, 'trailer') x
    ) r ON r.holder_type = dd.holder_type AND r.document_type = dd.type
    WHERE dd.company_id = $1 AND dd.holder_type <> 'driver' AND konvoj_fleet_type_applies(dd.holder_type, h.kind, dd.type)
),
staged AS (
    SELECT id, holder_type, holder_id, driver_id, type, file_id, valid_until,
        CASE
            WHEN file_id IS NULL THEN CASE WHEN required THEN 'missing' END
            WHEN valid_until IS NULL THEN NULL
            WHEN valid_until < $2::date THEN 'expired'
            WHEN valid_until - $2::date < 15 THEN 'expiring_soon'
            WHEN valid_until - $2::date <= lead_days THEN 'lead'
        END AS stage
    FROM docs
),
due AS (
    SELECT id, holder_type, holder_id, driver_id, type, file_id, valid_until, stage FROM staged WHERE stage IS NOT NULL
    UNION ALL
    SELECT s.id, s.holder_type, s.holder_id, s.driver_id, s.type, s.file_id, s.valid_until, 'reminder' FROM staged s
    WHERE $3 AND s.stage = 'expired' AND EXISTS (
        SELECT FROM document_alerts a WHERE a.company_id = $1 AND a.document_id = s.id AND a.file_id = s.file_id
            AND a.stage = 'expired' AND a.alert_date < $2::date)
),
ins AS (
    INSERT INTO document_alerts (company_id, holder_type, driver_id, vehicle_id, trailer_id, document_id, document_type, file_id,
        stage, valid_until, alert_date)
    SELECT $1, holder_type, driver_id, CASE WHEN holder_type = 'vehicle' THEN holder_id END,
        CASE WHEN holder_type = 'trailer' THEN holder_id END, id, type, file_id, stage, valid_until, $2 FROM due
    ON CONFLICT DO NOTHING
    RETURNING id, holder_type, holder_id, driver_id, document_id, document_type, stage, valid_until
)
SELECT ins.id, ins.holder_type, ins.holder_id, coalesce(ins.driver_id, '00000000-0000-0000-0000-000000000000'),
    coalesce(nullif(concat_ws(' ', d.first_name, d.last_name), ''), v.plate_number, t.plate_number, ''),
    coalesce(d.internal_number, v.internal_number, t.internal_number),
    ins.document_id, ins.document_type, ins.stage, ins.valid_until
FROM ins
LEFT JOIN drivers d ON d.id = ins.driver_id AND d.company_id = $1
LEFT JOIN vehicles v ON v.id = ins.holder_id AND ins.holder_type = 'vehicle' AND v.company_id = $1
LEFT JOIN trailers t ON t.id = ins.holder_id AND ins.holder_type = 'trailer' AND t.company_id = $1
CROSS JOIN (SELECT konvoj_document_type_order($1) || konvoj_document_type_order($1, 'vehicle')
    || konvoj_document_type_order($1, 'trailer') AS type_order) o
ORDER BY array_position(ARRAY['driver', 'vehicle', 'trailer'], ins.holder_type),
    coalesce(d.internal_seq, v.internal_seq, t.internal_seq), array_position(o.type_order, ins.document_type), ins.stage`

func recordStages(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, date civil.Date) ([]Alert, error) {
	rows, err := tx.Query(ctx, stagesSQL, companyID, date, date.Time().Weekday() == time.Monday)
	if err != nil {
		return nil, fmt.Errorf("record document stages: %w", err)
	}
	alerts, err := postgres.AppendRows(nil, rows, func(row pgx.Row, a *Alert) error {
		return row.Scan(&a.ID, &a.HolderType, &a.HolderID, &a.DriverID, &a.DriverName, &a.InternalNumber, &a.DocumentID, &a.DocumentType, &a.Stage, &a.ValidUntil)
	})
	if err != nil {
		return nil, fmt.Errorf("record document stages: %w", err)
	}
	return alerts, nil
}

// DB is the scanner's pool (the scheduler asks it which scans are due).
func (s *Scanner) DB() *pgxpool.Pool { return s.db }
