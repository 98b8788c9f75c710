package finance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Penalty statuses.
const (
	PenaltyPending   = "pending"
	PenaltyAccepted  = "accepted"
	PenaltyDisputed  = "disputed"
	PenaltyResolved  = "resolved"
	PenaltyCancelled = "cancelled"
)

// Allowed values of penalty fields.
var (
	PenaltyStatuses   = []string{PenaltyPending, PenaltyAccepted, PenaltyDisputed, PenaltyResolved, PenaltyCancelled}
	PenaltyTypes      = []string{"speeding", "accident", "damage", "late_delivery", "other"}
	PenaltySeverities = []string{"minor", "moderate", "major", "critical"}
	// EvidenceTypes are the allowed evidence item types.
	EvidenceTypes     = []string{"photo", "document", "video", "report", "other"}
	ResolutionActions = []string{"keep", "reduce", "cancel"}
)

// DisputeMessage is the message of a dispute's response.
const DisputeMessage = "Your dispute has been submitted. HR will review it within 5 business days."

// Limits of penalty input.
const (
	maxEvidence    = 20
	maxURL         = 2048
	maxPenaltyText = 5000
)

// Evidence is a piece of evidence attached to a penalty.
type Evidence struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// Penalty is a penalty as the API shows it; finance_status is the status of
// its finance record, user references are display names.
type Penalty struct {
	ID                 uuid.UUID       `json:"id"`
	FinanceID          uuid.UUID       `json:"finance_id"`
	FinanceStatus      string          `json:"finance_status"`
	CompanyID          uuid.UUID       `json:"company_id"`
	DriverID           uuid.UUID       `json:"driver_id"`
	PenaltyType        string          `json:"penalty_type"`
	Severity           string          `json:"severity"`
	Amount             money.Amount    `json:"amount"`
	Currency           string          `json:"currency"`
	Status             string          `json:"status"`
	IncidentDate       civil.Date      `json:"incident_date"`
	Location           *string         `json:"location"`
	Description        string          `json:"description"`
	Evidence           []Evidence      `json:"evidence"`
	DisputeReason      *string         `json:"dispute_reason"`
	DisputeSubmittedAt *time.Time      `json:"dispute_submitted_at"`
	Resolution         *string         `json:"resolution"`
	ResolvedBy         *string         `json:"resolved_by"`
	ResolvedAt         *time.Time      `json:"resolved_at"`
	Metadata           json.RawMessage `json:"metadata"`
	CreatedBy          *string         `json:"created_by"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
}

var penaltyQuery = `
	SELECT pe.id, pe.finance_id, ft.status, pe.company_id, pe.driver_id, pe.penalty_type, pe.severity, pe.amount, pe.currency,
		pe.status, pe.incident_date, pe.location, pe.description, pe.evidence, pe.dispute_reason, pe.dispute_submitted_at,
		pe.resolution, ` + userName("ru") + `, pe.resolved_at, pe.metadata, ` + userName("cu") + `, pe.created_at, pe.updated_at
	FROM penalties pe
	JOIN finance_transactions ft ON ft.id = pe.finance_id
	LEFT JOIN users ru ON ru.id = pe.resolved_by
	LEFT JOIN users cu ON cu.id = pe.created_by`

func scanPenalty(row pgx.Row) (Penalty, error) {
	var p Penalty
	err := row.Scan(&p.ID, &p.FinanceID, &p.FinanceStatus, &p.CompanyID, &p.DriverID, &p.PenaltyType, &p.Severity, &p.Amount, &p.Currency,
		&p.Status, &p.IncidentDate, &p.Location, &p.Description, &p.Evidence, &p.DisputeReason, &p.DisputeSubmittedAt,
		&p.Resolution, &p.ResolvedBy, &p.ResolvedAt, &p.Metadata, &p.CreatedBy, &p.CreatedAt, &p.UpdatedAt)
	if p.Evidence == nil {
		p.Evidence = []Evidence{}
	}
	return p, err
}

// getPenalty reads a live penalty of the driver (404 otherwise); lock takes
// the penalty's row lock.
func getPenalty(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID, lock bool) (Penalty, error) {
	q := penaltyQuery + ` WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.id = $3 AND pe.deleted_at IS NULL`
	if lock {
		q += ` FOR UPDATE OF pe`
	}
	p, err := scanPenalty(db.QueryRow(ctx, q, companyID, driverID, id))
	if postgres.IsNotFound(err) {
		return Penalty{}, apperr.NotFound("Penalty")
	}
	if err != nil {
		return Penalty{}, fmt.Errorf("read penalty %s: %w", id, err)
	}
	return p, nil
}

// PenaltyInput is the body of a penalty create.
type PenaltyInput struct {
	PenaltyType  *string         `json:"penalty_type"`
	Severity     *string         `json:"severity"`
	Amount       money.Input     `json:"amount"`
	Currency     *string         `json:"currency"`
	IncidentDate *string         `json:"incident_date"`
	Location     *string         `json:"location"`
	Description  *string         `json:"description"`
	Evidence     json.RawMessage `json:"evidence"`
	Metadata     json.RawMessage `json:"metadata"`
}

// parseEvidence validates an evidence list: at most 20 items, each {type,
// url} with a known type and an absolute http(s) URL.
func parseEvidence(raw json.RawMessage, v *apperr.Validation) []Evidence {
	out := []Evidence{}
	if len(raw) == 0 || string(raw) == "null" {
		return out
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		v.Add("evidence", "The evidence field must be an array of {type, url} objects.")
		return out
	}
	if len(items) > maxEvidence {
		v.Add("evidence", fmt.Sprintf("At most %d evidence items are allowed.", maxEvidence))
		return out
	}
	for i, item := range items {
		var e struct {
			Type *string `json:"type"`
			URL  *string `json:"url"`
		}
		field := fmt.Sprintf("evidence.%d", i)
		if err := json.Unmarshal(item, &e); err != nil || string(item) == "null" {
			v.Add(field, "Each evidence item must be an object with type and url.")
			continue
		}
		var ev Evidence
		switch {
		case e.Type == nil || strings.TrimSpace(*e.Type) == "":
			v.Add(field+".type", "The evidence type is required.")
		case !contains(EvidenceTypes, strings.TrimSpace(*e.Type)):
			v.Add(field+".type", "The evidence type must be one of: "+strings.Join(EvidenceTypes, ", ")+".")
		default:
			ev.Type = strings.TrimSpace(*e.Type)
		}
		switch {
		case e.URL == nil || strings.TrimSpace(*e.URL) == "":
			v.Add(field+".url", "The evidence url is required.")
		case !isWebURL(strings.TrimSpace(*e.URL)):
			v.Add(field+".url", "The evidence url must be an absolute http or https URL.")
		default:
			ev.URL = strings.TrimSpace(*e.URL)
		}
		out = append(out, ev)
	}
	return out
}

// isWebURL reports whether s is an absolute http(s) URL with a host.
func isWebURL(s string) bool {
	if len(s) > maxURL || strings.ContainsAny(s, " \t\r\n") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Hostname() != ""
}

func requiredText(v *apperr.Validation, field string, s *string, max int) string {
	if s == nil || strings.TrimSpace(*s) == "" {
		v.Add(field, fmt.Sprintf("The %s field is required.", field))
		return ""
	}
	t := optionalText(v, field, *s, max)
	if t == nil {
		return ""
	}
	return *t
}

// CreatePenalty records a pending penalty and, in the same database
// transaction, its finance record: type penalty, category damage_fine for
// damage and accident and penalty otherwise, amount = −amount, dated on the
// incident date (so an incident inside a closed or paid period is 409).
func (s *Service) CreatePenalty(ctx context.Context, p auth.Principal, driverID uuid.UUID, in PenaltyInput) (Penalty, error) {
	d, err := s.driverFor(ctx, p, auth.PenaltiesManage, driverID)
	if err != nil {
		return Penalty{}, err
	}
	var v apperr.Validation
	pen := Penalty{CompanyID: d.CompanyID, DriverID: d.ID, Status: PenaltyPending, Severity: "minor", Currency: companyCurrency(p),
		Metadata: json.RawMessage(`{}`)}
	pen.PenaltyType = requiredText(&v, "penalty_type", in.PenaltyType, 50)
	if pen.PenaltyType != "" && !contains(PenaltyTypes, pen.PenaltyType) {
		v.Add("penalty_type", "The penalty_type must be one of: "+strings.Join(PenaltyTypes, ", ")+".")
	}
	if in.Severity != nil {
		pen.Severity = strings.TrimSpace(*in.Severity)
		if !contains(PenaltySeverities, pen.Severity) {
			v.Add("severity", "The severity must be one of: "+strings.Join(PenaltySeverities, ", ")+".")
		}
	}
	if !in.Amount.Given() {
		v.Add("amount", "The amount field is required.")
	} else if a, err := in.Amount.Parse(); err != nil {
		var ie *money.InputError
		if errors.As(err, &ie) {
			v.Add("amount", ie.Message("amount"))
		}
	} else if a.Sign() < 0 {
		v.Add("amount", "The amount must be 0 or more.")
	} else {
		pen.Amount = a
	}
	if in.Currency != nil {
		c, ok := money.NormalizeCurrency(*in.Currency)
		if !ok {
			v.Add("currency", "The currency must be a 3-letter ISO 4217 code (e.g. CZK, EUR, PLN).")
		}
		pen.Currency = c
	}
	if in.IncidentDate == nil || strings.TrimSpace(*in.IncidentDate) == "" {
		v.Add("incident_date", "The incident_date field is required.")
	} else if date, err := civil.Parse(strings.TrimSpace(*in.IncidentDate)); err != nil {
		v.Add("incident_date", "The incident_date field must be a valid date (YYYY-MM-DD).")
	} else {
		pen.IncidentDate = date
	}
	if in.Location != nil {
		pen.Location = optionalText(&v, "location", *in.Location, 500)
	}
	pen.Description = requiredText(&v, "description", in.Description, maxPenaltyText)
	pen.Evidence = parseEvidence(in.Evidence, &v)
	if len(in.Metadata) > 0 && string(in.Metadata) != "null" {
		if !isJSONObject(in.Metadata) {
			v.Add("metadata", "The metadata field must be an object.")
		} else {
			pen.Metadata = compactJSON(in.Metadata)
		}
	}
	if err := v.Err(); err != nil {
		return Penalty{}, err
	}

	category := TypePenalty
	if pen.PenaltyType == "damage" || pen.PenaltyType == "accident" {
		category = "damage_fine"
	}
	record := Transaction{CompanyID: d.CompanyID, DriverID: d.ID, TransactionType: TypePenalty, Category: &category,
		Amount: pen.Amount.Neg(), Currency: pen.Currency, Status: StatusPending, TransactionDate: pen.IncidentDate,
		Description: &pen.Description, Metadata: json.RawMessage(`{}`)}
	var id uuid.UUID
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		financeID, err := insertTransaction(ctx, tx, p, record)
		if err != nil {
			return err
		}
		evidence, _ := json.Marshal(pen.Evidence)
		err = tx.QueryRow(ctx, `
			INSERT INTO penalties (company_id, driver_id, finance_id, penalty_type, severity, amount, currency, incident_date,
				location, description, evidence, metadata, created_by)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			RETURNING id`,
			d.CompanyID, d.ID, financeID, pen.PenaltyType, pen.Severity, pen.Amount, pen.Currency, pen.IncidentDate,
			pen.Location, pen.Description, evidence, pen.Metadata, userID(p)).Scan(&id)
		if err != nil {
			return fmt.Errorf("insert penalty for driver %s: %w", d.ID, err)
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: id, Action: "penalty.created",
			NewValues: map[string]any{"finance_id": financeID, "penalty_type": pen.PenaltyType, "severity": pen.Severity,
				"amount": pen.Amount, "currency": pen.Currency, "incident_date": pen.IncidentDate, "location": pen.Location,
				"description": pen.Description, "evidence": pen.Evidence, "status": pen.Status}})
	})
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// GetPenalty reads one penalty of the driver.
func (s *Service) GetPenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Penalty, error) {
	d, err := s.driverFor(ctx, p, auth.PenaltiesRead, driverID)
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// DisputeInput is the body of a dispute.
type DisputeInput struct {
	DisputeReason *string         `json:"dispute_reason"`
	Evidence      json.RawMessage `json:"evidence"`
}

// DisputePenalty files the driver's dispute of a pending penalty: the
// penalty becomes disputed (dispute_reason, dispute_submitted_at; evidence
// is appended), and its finance record disputed.
func (s *Service) DisputePenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, in DisputeInput) (Penalty, error) {
	var v apperr.Validation
	reason := requiredText(&v, "dispute_reason", in.DisputeReason, maxPenaltyText)
	evidence := parseEvidence(in.Evidence, &v)
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, driverID, id, func(cur Penalty) (penaltyMove, error) {
		if err := v.Err(); err != nil {
			return penaltyMove{}, err
		}
		if cur.Status != PenaltyPending {
			return penaltyMove{}, apperr.Conflict("Only a pending penalty can be disputed; this one is %s.", cur.Status)
		}
		all := append(append([]Evidence{}, cur.Evidence...), evidence...)
		if len(all) > maxEvidence {
			return penaltyMove{}, apperr.Invalid("evidence", fmt.Sprintf("A penalty may hold at most %d evidence items.", maxEvidence))
		}
		return penaltyMove{action: "penalty.disputed", status: PenaltyDisputed, financeStatus: StatusDisputed,
			set: `dispute_reason = $3, dispute_submitted_at = now(), evidence = $4`, args: []any{reason, mustJSON(all)},
			audit: map[string]any{"dispute_reason": reason, "evidence": all}}, nil
	})
}

// ResolveInput is the body of a resolution.
type ResolveInput struct {
	ResolutionAction *string     `json:"resolution_action"`
	NewAmount        money.Input `json:"new_amount"`
	Resolution       *string     `json:"resolution"`
}

// ResolvePenalty settles a disputed penalty: keep (resolved, finance record
// back to pending), reduce (resolved with amount = new_amount, 0 ≤
// new_amount < amount; finance record pending with −new_amount) or cancel
// (penalty and finance record cancelled).
func (s *Service) ResolvePenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, in ResolveInput) (Penalty, error) {
	return s.movePenalty(ctx, p, auth.PenaltiesManage, driverID, id, func(cur Penalty) (penaltyMove, error) {
		var v apperr.Validation
		action := ""
		if in.ResolutionAction == nil || strings.TrimSpace(*in.ResolutionAction) == "" {
			v.Add("resolution_action", "The resolution_action field is required.")
		} else if action = strings.TrimSpace(*in.ResolutionAction); !contains(ResolutionActions, action) {
			v.Add("resolution_action", "The resolution_action must be one of: keep, reduce, cancel.")
		}
		var resolution *string
		if in.Resolution != nil {
			resolution = optionalText(&v, "resolution", *in.Resolution, maxPenaltyText)
		}
		newAmount := cur.Amount
		switch {
		case action == "reduce" && !in.NewAmount.Given():
			v.Add("new_amount", "The new_amount field is required when resolution_action is reduce.")
		case action == "reduce":
			a, err := in.NewAmount.Parse()
			var ie *money.InputError
			switch {
			case errors.As(err, &ie):
				v.Add("new_amount", ie.Message("new_amount"))
			case a.Sign() < 0:
				v.Add("new_amount", "The new_amount must be 0 or more.")
			case a.Cmp(cur.Amount) >= 0:
				v.Add("new_amount", fmt.Sprintf("The new_amount must be below the current amount (%s).", cur.Amount))
			default:
				newAmount = a
			}
		}
		// new_amount is read only for reduce; keep and cancel ignore it.
		if err := v.Err(); err != nil {
			return penaltyMove{}, err
		}
		if cur.Status != PenaltyDisputed {
			return penaltyMove{}, apperr.Conflict("Only a disputed penalty can be resolved; this one is %s.", cur.Status)
		}
		m := penaltyMove{action: "penalty.resolved", status: PenaltyResolved, financeStatus: StatusPending,
			set:   `resolution = $3, resolved_by = $4, resolved_at = now(), amount = $5`,
			args:  []any{resolution, userID(p), newAmount},
			audit: map[string]any{"resolution": resolution, "amount": newAmount}}
		if action == "cancel" {
			m.status, m.financeStatus = PenaltyCancelled, StatusCancelled
		}
		if !newAmount.Equal(cur.Amount) {
			a := newAmount.Neg()
			m.financeAmount = &a
		}
		return m, nil
	})
}

// AcceptPenalty records that the driver accepts a pending penalty. Its
// finance record stays pending, ready for approval and payment.
func (s *Service) AcceptPenalty(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Penalty, error) {
	return s.movePenalty(ctx, p, auth.PenaltiesRespond, driverID, id, func(cur Penalty) (penaltyMove, error) {
		if cur.Status != PenaltyPending {
			return penaltyMove{}, apperr.Conflict("Only a pending penalty can be accepted; this one is %s.", cur.Status)
		}
		return penaltyMove{action: "penalty.accepted", status: PenaltyAccepted, financeStatus: StatusPending}, nil
	})
}

// penaltyMove is what one penalty operation changes.
type penaltyMove struct {
	action        string // audit action
	status        string // the penalty's new status
	financeStatus string // the finance record's new status
	financeAmount *money.Amount
	set           string // extra SET clauses on the penalty, arguments from $3
	args          []any
	audit         map[string]any
}

// movePenalty runs a penalty operation: role, driver and penalty checks,
// then in one database transaction the penalty row, its finance record's
// periods and the finance row are locked (in the package's lock order); plan
// validates the input (422) and the penalty's state (409); a closed or paid
// period is 409; then the penalty, the finance record, the period totals and
// both audit rows are written.
func (s *Service) movePenalty(ctx context.Context, p auth.Principal, a auth.Action, driverID, id uuid.UUID,
	plan func(cur Penalty) (penaltyMove, error)) (Penalty, error) {
	d, err := s.driverFor(ctx, p, a, driverID)
	if err != nil {
		return Penalty{}, err
	}
	if _, err := getPenalty(ctx, s.db, d.CompanyID, d.ID, id, false); err != nil {
		return Penalty{}, err
	}
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := getPenalty(ctx, tx, d.CompanyID, d.ID, id, true)
		if err != nil {
			return err
		}
		m, err := plan(cur)
		if err != nil {
			return err
		}
		rec, err := getTransaction(ctx, tx, d.CompanyID, d.ID, cur.FinanceID, false)
		if err != nil {
			return fmt.Errorf("finance record of penalty %s: %w", id, err)
		}
		periods, err := lockRecord(ctx, tx, rec, nil)
		if err != nil {
			return err
		}
		if err := periods.checkOpen(rec.slot()); err != nil {
			return err
		}

		args := append([]any{id, m.status}, m.args...)
		q := `UPDATE penalties SET status = $2`
		if m.set != "" {
			q += ", " + m.set
		}
		if _, err := tx.Exec(ctx, q+` WHERE id = $1`, args...); err != nil {
			return fmt.Errorf("update penalty %s: %w", id, err)
		}
		next := rec
		next.Status = m.financeStatus
		if m.financeAmount != nil {
			next.Amount = *m.financeAmount
		}
		if _, err := tx.Exec(ctx, `UPDATE finance_transactions SET status = $2, amount = $3 WHERE id = $1`,
			rec.ID, next.Status, next.Amount); err != nil {
			return fmt.Errorf("update finance record %s of penalty %s: %w", rec.ID, id, err)
		}
		if err := periods.recompute(ctx, tx); err != nil {
			return err
		}
		// The audit row holds only the fields that change (docs/audit.md).
		before := map[string]any{"status": cur.Status, "amount": cur.Amount, "dispute_reason": cur.DisputeReason,
			"evidence": cur.Evidence, "resolution": cur.Resolution}
		after := map[string]any{}
		for k, v := range before {
			after[k] = v
		}
		after["status"] = m.status
		for k, v := range m.audit {
			after[k] = v
		}
		oldValues, newValues := audit.Diff(before, after)
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "penalty", EntityID: id, Action: m.action,
			OldValues: oldValues, NewValues: newValues}); err != nil {
			return err
		}
		if oldValues, newValues := audit.Diff(rec.auditValues(), next.auditValues()); len(newValues) > 0 {
			return audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: rec.ID, Action: "updated",
				OldValues: oldValues, NewValues: newValues})
		}
		return nil
	})
	if err != nil {
		return Penalty{}, err
	}
	return getPenalty(ctx, s.db, d.CompanyID, d.ID, id, false)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// PenaltyFilter narrows the penalty list.
type PenaltyFilter struct {
	Types      []string
	Statuses   []string
	Severities []string
	Page       int
	PerPage    int
}

// PenaltySummary counts the filtered penalties; total_penalties sums the
// amounts of those not cancelled, in the summary's currency.
type PenaltySummary struct {
	Currency       string       `json:"currency"`
	TotalPenalties money.Amount `json:"total_penalties"`
	PendingCount   int          `json:"pending_count"`
	AcceptedCount  int          `json:"accepted_count"`
	DisputedCount  int          `json:"disputed_count"`
	ResolvedCount  int          `json:"resolved_count"`
	CancelledCount int          `json:"cancelled_count"`
}

// PenaltyTotal is the sum of the filtered, not cancelled penalties in one
// currency.
type PenaltyTotal struct {
	Currency       string       `json:"currency"`
	TotalPenalties money.Amount `json:"total_penalties"`
	rows           int
}

// PenaltyList is a page of penalties with the summary of the whole filtered
// set.
type PenaltyList struct {
	Penalties []Penalty
	Total     int
	Summary   PenaltySummary
	// Totals has one entry per currency present in the set; Summary's
	// total_penalties is the entry of the main currency (the company's when
	// present, else the one with the most penalties).
	Totals []PenaltyTotal
}

// ListPenalties returns a page of the driver's penalties, newest incident
// first, and the summary of the whole filtered set.
func (s *Service) ListPenalties(ctx context.Context, p auth.Principal, driverID uuid.UUID, f PenaltyFilter) (PenaltyList, error) {
	d, err := s.driverFor(ctx, p, auth.PenaltiesRead, driverID)
	if err != nil {
		return PenaltyList{}, err
	}
	var v apperr.Validation
	checkValues(&v, "type", f.Types, PenaltyTypes)
	checkValues(&v, "status", f.Statuses, PenaltyStatuses)
	checkValues(&v, "severity", f.Severities, PenaltySeverities)
	if err := v.Err(); err != nil {
		return PenaltyList{}, err
	}
	where := `
		WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.deleted_at IS NULL
			AND (COALESCE(cardinality($3::text[]), 0) = 0 OR pe.penalty_type = ANY($3))
			AND (COALESCE(cardinality($4::text[]), 0) = 0 OR pe.status = ANY($4))
			AND (COALESCE(cardinality($5::text[]), 0) = 0 OR pe.severity = ANY($5))`
	args := []any{d.CompanyID, d.ID, f.Types, f.Statuses, f.Severities}

	out := PenaltyList{Totals: []PenaltyTotal{}, Penalties: []Penalty{}}
	rows, err := s.db.Query(ctx, `
		SELECT pe.currency, count(*), COALESCE(sum(pe.amount) FILTER (WHERE pe.status <> 'cancelled'), 0),
			count(*) FILTER (WHERE pe.status = 'pending'), count(*) FILTER (WHERE pe.status = 'accepted'),
			count(*) FILTER (WHERE pe.status = 'disputed'), count(*) FILTER (WHERE pe.status = 'resolved'),
			count(*) FILTER (WHERE pe.status = 'cancelled')
		FROM penalties pe `+where+` GROUP BY pe.currency ORDER BY pe.currency`, args...)
	if err != nil {
		return PenaltyList{}, fmt.Errorf("summarise penalties of driver %s: %w", driverID, err)
	}
	var sums []Summary
	for rows.Next() {
		var t PenaltyTotal
		var c PenaltySummary
		if err := rows.Scan(&t.Currency, &t.rows, &t.TotalPenalties, &c.PendingCount, &c.AcceptedCount, &c.DisputedCount,
			&c.ResolvedCount, &c.CancelledCount); err != nil {
			rows.Close()
			return PenaltyList{}, fmt.Errorf("scan penalty summary: %w", err)
		}
		out.Total += t.rows
		out.Totals = append(out.Totals, t)
		sums = append(sums, Summary{Currency: t.Currency, rows: t.rows})
		out.Summary.PendingCount += c.PendingCount
		out.Summary.AcceptedCount += c.AcceptedCount
		out.Summary.DisputedCount += c.DisputedCount
		out.Summary.ResolvedCount += c.ResolvedCount
		out.Summary.CancelledCount += c.CancelledCount
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return PenaltyList{}, fmt.Errorf("summarise penalties of driver %s: %w", driverID, err)
	}
	out.Summary.Currency = mainCurrency(sums, companyCurrency(p))
	for _, t := range out.Totals {
		if t.Currency == out.Summary.Currency {
			out.Summary.TotalPenalties = t.TotalPenalties
		}
	}
	if out.Total == 0 || (f.Page-1)*f.PerPage >= out.Total {
		return out, nil
	}
	rows, err = s.db.Query(ctx, penaltyQuery+where+`
		ORDER BY pe.incident_date DESC, pe.id DESC
		LIMIT $6 OFFSET $7`, append(args, f.PerPage, (f.Page-1)*f.PerPage)...)
	if err != nil {
		return PenaltyList{}, fmt.Errorf("list penalties of driver %s: %w", driverID, err)
	}
	out.Penalties, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (Penalty, error) { return scanPenalty(r) })
	if err != nil {
		return PenaltyList{}, fmt.Errorf("list penalties of driver %s: %w", driverID, err)
	}
	return out, nil
}
