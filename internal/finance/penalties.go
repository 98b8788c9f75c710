package finance

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
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
	EvidenceFiles      []EvidenceFile  `json:"evidence_files"`
	DisputeReason      *string         `json:"dispute_reason"`
	DisputeSubmittedAt *time.Time      `json:"dispute_submitted_at"`
	Resolution         *string         `json:"resolution"`
	ResolvedBy         *string         `json:"resolved_by"`
	ResolvedAt         *time.Time      `json:"resolved_at"`
	Metadata           json.RawMessage `json:"metadata"`
	CreatedBy          *string         `json:"created_by"`
	CreatedAt          time.Time       `json:"created_at"`
	UpdatedAt          time.Time       `json:"updated_at"`
	// DeletedAt is set on a deleted penalty, which only the change feed
	// with include_deleted=true shows (the key is absent otherwise).
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
	// CorrectionID is the correcting transaction a resolution posted
	// because the finance record was inside a closed or paid period
	// (docs/finance.md, "Penalties inside a closed period"); nil otherwise.
	CorrectionID *uuid.UUID `json:"correction_id"`
}

// financeRecord is the finance record a new penalty creates: type penalty,
// category damage_fine for damage and accident and penalty otherwise,
// amount = −amount, dated on the incident date.
func (pen Penalty) financeRecord() Transaction {
	category := TypePenalty
	if pen.PenaltyType == "damage" || pen.PenaltyType == "accident" {
		category = "damage_fine"
	}
	return Transaction{CompanyID: pen.CompanyID, DriverID: pen.DriverID, TransactionType: TypePenalty, Category: &category,
		Amount: pen.Amount.Neg(), Currency: pen.Currency, Status: StatusPending, TransactionDate: pen.IncidentDate,
		Description: &pen.Description, Metadata: json.RawMessage(`{}`)}
}

// createdValues is the audited view of a new penalty.
func (pen Penalty) createdValues(financeID uuid.UUID) map[string]any {
	return map[string]any{"finance_id": financeID, "penalty_type": pen.PenaltyType, "severity": pen.Severity,
		"amount": pen.Amount, "currency": pen.Currency, "incident_date": pen.IncidentDate, "location": pen.Location,
		"description": pen.Description, "evidence": pen.Evidence, "status": pen.Status}
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

// auditDiff is the penalty's audit row of the move: only the fields that
// change (docs/audit.md).
func (m penaltyMove) auditDiff(cur Penalty) (oldValues, newValues map[string]any) {
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
	return audit.Diff(before, after)
}

// record is the penalty's finance record rec as the move leaves it.
func (m penaltyMove) record(rec Transaction) Transaction {
	next := rec
	next.Status = m.financeStatus
	if m.financeAmount != nil {
		next.Amount = *m.financeAmount
	}
	return next
}

// correctionAmount is what the move changes in money, with the signs of the
// records: the record's amount as the move would leave it (0 once
// cancelled) minus its amount now. A penalty of 1000.00 reduced to 400.00
// is +600.00, one cancelled +1000.00; a move that changes no money is 0.
func (m penaltyMove) correctionAmount(rec Transaction) money.Amount {
	next := m.record(rec)
	if next.Status == StatusCancelled {
		next.Amount = money.Zero
	}
	return next.Amount.Sub(rec.Amount)
}

// correction is the transaction that corrects the penalty's record rec by
// amount, dated day: an adjustment in the category penalty_correction,
// pending, linked to the penalty and the record in its metadata.
func (pen Penalty) correction(rec Transaction, amount money.Amount, day civil.Date) Transaction {
	category := CategoryPenaltyCorrection
	return Transaction{CompanyID: pen.CompanyID, DriverID: pen.DriverID, TransactionType: TypeAdjustment, Category: &category,
		Amount: amount, Currency: rec.Currency, Status: StatusPending, TransactionDate: day, Description: rec.Description,
		Metadata: mustJSON(map[string]any{"penalty_id": pen.ID, "corrects": rec.ID})}
}

// PenaltyFilter narrows the penalty list.
type PenaltyFilter struct {
	Types      []string
	Statuses   []string
	Severities []string
	Page       paging.Request
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

// add counts c's penalties in s.
func (s *PenaltySummary) add(c PenaltySummary) {
	s.PendingCount += c.PendingCount
	s.AcceptedCount += c.AcceptedCount
	s.DisputedCount += c.DisputedCount
	s.ResolvedCount += c.ResolvedCount
	s.CancelledCount += c.CancelledCount
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
	paging.Page[Penalty]
	Summary PenaltySummary
	// Totals has one entry per currency present in the set; Summary's
	// total_penalties is the entry of the main currency (the company's when
	// present, else the one with the most penalties).
	Totals []PenaltyTotal
}
