package finance

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
)

// Transaction is a driver finance record as the API shows it; user
// references are display names.
type Transaction struct {
	ID        uuid.UUID  `json:"id"`
	CompanyID uuid.UUID  `json:"company_id"`
	DriverID  uuid.UUID  `json:"driver_id"`
	PeriodID  *uuid.UUID `json:"period_id"`
	// PenaltyID is the penalty the transaction belongs to: as its finance
	// record, or as the correction a resolution posted (Correction).
	PenaltyID       *uuid.UUID      `json:"penalty_id"`
	TransactionType string          `json:"transaction_type"`
	Category        *string         `json:"category"`
	Amount          money.Amount    `json:"amount"`
	Currency        string          `json:"currency"`
	Status          string          `json:"status"`
	TransactionDate civil.Date      `json:"transaction_date"`
	PaymentDate     *civil.Date     `json:"payment_date"`
	Description     *string         `json:"description"`
	Reference       *string         `json:"reference"`
	OrderID         *uuid.UUID      `json:"order_id"`
	CreatedBy       *string         `json:"created_by"`
	ApprovedBy      *string         `json:"approved_by"`
	ApprovedAt      *time.Time      `json:"approved_at"`
	PaidBy          *string         `json:"paid_by"`
	PaidAt          *time.Time      `json:"paid_at"`
	Metadata        json.RawMessage `json:"metadata"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
	// DeletedAt is set on a deleted transaction, which only the change feed
	// with include_deleted=true shows (the key is absent otherwise).
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
	// CorrectedIncident is, for a penalty's correction, the incident date
	// of the penalty it corrects (pages name the penalty by it); nil for
	// any other transaction.
	CorrectedIncident *civil.Date `json:"-"`
}

// Correction reports whether the transaction is a penalty's correction.
func (t Transaction) Correction() bool { return t.CorrectedIncident != nil }

// auditValues is the audited view of a transaction.
func (t Transaction) auditValues() map[string]any {
	return map[string]any{
		"transaction_type": t.TransactionType, "category": t.Category, "amount": t.Amount,
		"currency": t.Currency, "status": t.Status, "transaction_date": t.TransactionDate,
		"payment_date": t.PaymentDate, "description": t.Description, "reference": t.Reference,
		"order_id": t.OrderID, "metadata": t.Metadata, "period_id": t.PeriodID,
	}
}

func (t Transaction) slot() slot { return slot{Date: t.TransactionDate, Currency: t.Currency} }

// moves is the transaction workflow (docs/finance.md): pending → approved →
// paid, pending or approved → cancelled; paid and cancelled are final, and
// disputed is entered and left only through the penalty.
var moves = map[string][]string{
	StatusPending:  {StatusApproved, StatusCancelled},
	StatusApproved: {StatusPaid, StatusCancelled},
}

// MoveAllowed reports whether the workflow allows a status move.
func MoveAllowed(from, to string) bool { return contains(moves[from], to) }

// checkEdit applies the workflow and edit rules of UpdateTransaction (409).
// to is the requested status ("" when none); penaltyStatus is the status of
// the penalty the transaction belongs to ("" for none).
func checkEdit(cur, next Transaction, to, penaltyStatus string) error {
	moneyChanged := next.TransactionType != cur.TransactionType || !next.Amount.Equal(cur.Amount) ||
		next.Currency != cur.Currency || next.TransactionDate.String() != cur.TransactionDate.String() || !sameUUID(next.OrderID, cur.OrderID)
	infoChanged := !sameText(next.Category, cur.Category) || !sameText(next.Description, cur.Description) ||
		!sameText(next.Reference, cur.Reference) || !bytes.Equal(compactJSON(next.Metadata), compactJSON(cur.Metadata))

	if to != "" && !MoveAllowed(cur.Status, to) {
		if to == StatusDisputed || cur.Status == StatusDisputed {
			return apperr.Conflict("msg.finance.disputed_status")
		}
		return apperr.Conflict("msg.finance.move", "from", cur.Status, "to", to)
	}
	switch cur.Status {
	case StatusPaid, StatusCancelled, StatusDisputed:
		if moneyChanged || infoChanged {
			return apperr.Conflict("msg.finance.final", "status", cur.Status)
		}
	case StatusApproved:
		if moneyChanged {
			return apperr.Conflict("msg.finance.approved_fixed")
		}
	}
	switch {
	case cur.Correction():
		return checkCorrectionEdit(cur, next, to, moneyChanged)
	case penaltyStatus != "":
		return checkPenaltyRecordEdit(cur, next, to, penaltyStatus, moneyChanged)
	}
	return nil
}

// checkCorrectionEdit is checkEdit's rule for a penalty's correction: what
// it corrects, by how much and where it is linked are fixed (money fields,
// category, metadata); it is approved and paid, never cancelled here.
func checkCorrectionEdit(cur, next Transaction, to string, moneyChanged bool) error {
	if moneyChanged || to == StatusCancelled || !sameText(next.Category, cur.Category) ||
		!bytes.Equal(compactJSON(next.Metadata), compactJSON(cur.Metadata)) {
		return apperr.Conflict("msg.finance.correction_record")
	}
	return nil
}

// checkPenaltyRecordEdit is checkEdit's rule for a penalty's finance record:
// it follows its penalty.
func checkPenaltyRecordEdit(cur, next Transaction, to, penaltyStatus string, moneyChanged bool) error {
	if moneyChanged || !sameText(next.Category, cur.Category) {
		return apperr.Conflict("msg.finance.penalty_record")
	}
	switch {
	case to == StatusCancelled:
		return apperr.Conflict("msg.finance.penalty_record_cancel")
	case to != "" && (penaltyStatus == PenaltyPending || penaltyStatus == PenaltyDisputed):
		// Accepted or resolved; or cancelled while the record's period was
		// closed, which left the record as it was and posted its correction.
		return apperr.Conflict("msg.finance.penalty_open", "status", penaltyState(penaltyStatus))
	}
	return nil
}

func sameText(a, b *string) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func sameUUID(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// DeleteAllowed applies the delete rules: never a penalty's record or
// correction, never a paid transaction, and only within DeleteWindowDays of its
// transaction_date.
func DeleteAllowed(t Transaction, today civil.Date) error {
	if t.Correction() {
		return apperr.Conflict("msg.finance.correction_record")
	}
	if t.PenaltyID != nil {
		// A penalty's record goes with its penalty.
		return apperr.Conflict("msg.finance.penalty_record_delete")
	}
	if t.Status == StatusPaid {
		return apperr.Conflict("msg.finance.delete_paid")
	}
	if t.TransactionDate.DaysUntil(today) > DeleteWindowDays {
		return apperr.Conflict("msg.finance.delete_old", "days", DeleteWindowDays)
	}
	return nil
}
