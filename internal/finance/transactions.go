package finance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Transaction is a driver finance record as the API shows it; user
// references are display names.
type Transaction struct {
	ID              uuid.UUID       `json:"id"`
	CompanyID       uuid.UUID       `json:"company_id"`
	DriverID        uuid.UUID       `json:"driver_id"`
	PeriodID        *uuid.UUID      `json:"period_id"`
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
}

var txQuery = `
	SELECT t.id, t.company_id, t.driver_id, t.period_id, pen.id, t.transaction_type, t.category, t.amount,
		t.currency, t.status, t.transaction_date, t.payment_date, t.description, t.reference, t.order_id,
		` + userName("cu") + `, ` + userName("au") + `, t.approved_at, ` + userName("pu") + `, t.paid_at,
		t.metadata, t.created_at, t.updated_at
	FROM finance_transactions t
	LEFT JOIN penalties pen ON pen.finance_id = t.id
	LEFT JOIN users cu ON cu.id = t.created_by
	LEFT JOIN users au ON au.id = t.approved_by
	LEFT JOIN users pu ON pu.id = t.paid_by`

func scanTransaction(row pgx.Row) (Transaction, error) {
	var t Transaction
	err := row.Scan(&t.ID, &t.CompanyID, &t.DriverID, &t.PeriodID, &t.PenaltyID, &t.TransactionType, &t.Category, &t.Amount,
		&t.Currency, &t.Status, &t.TransactionDate, &t.PaymentDate, &t.Description, &t.Reference, &t.OrderID,
		&t.CreatedBy, &t.ApprovedBy, &t.ApprovedAt, &t.PaidBy, &t.PaidAt, &t.Metadata, &t.CreatedAt, &t.UpdatedAt)
	return t, err
}

// getTransaction reads a live transaction of the driver; another driver's
// or a deleted one is 404. lock takes the row lock (FOR UPDATE).
func getTransaction(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID, lock bool) (Transaction, error) {
	q := txQuery + ` WHERE t.company_id = $1 AND t.driver_id = $2 AND t.id = $3 AND t.deleted_at IS NULL`
	if lock {
		q += ` FOR UPDATE OF t`
	}
	t, err := scanTransaction(db.QueryRow(ctx, q, companyID, driverID, id))
	if postgres.IsNotFound(err) {
		return Transaction{}, apperr.NotFound("Finance transaction")
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("read transaction %s: %w", id, err)
	}
	return t, nil
}

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

// TransactionInput is the body of a create or an update. Pointers are nil
// when the field is absent or null (null leaves a field unchanged on update;
// an empty string clears a text field). Dates and ids are strings so that a
// bad value is a field message (422), not a malformed body.
type TransactionInput struct {
	TransactionType *string         `json:"transaction_type"`
	Category        *string         `json:"category"`
	Amount          money.Input     `json:"amount"`
	Currency        *string         `json:"currency"`
	TransactionDate *string         `json:"transaction_date"`
	Description     *string         `json:"description"`
	Reference       *string         `json:"reference"`
	OrderID         *string         `json:"order_id"`
	Metadata        json.RawMessage `json:"metadata"`
	// Update only.
	Status      *string `json:"status"`
	PaymentDate *string `json:"payment_date"`
}

// Text limits.
const (
	maxCategory    = 50
	maxReference   = 100
	maxDescription = 5000
)

// apply validates the input over base (the zero Transaction on create) and
// returns the resulting record; problems are collected in v. It does not
// look at the status workflow (that is a state rule, checked later).
func (in TransactionInput) apply(base Transaction, v *apperr.Validation) Transaction {
	t := base
	if in.TransactionType != nil {
		t.TransactionType = strings.TrimSpace(*in.TransactionType)
		if !contains(TransactionTypes, t.TransactionType) {
			v.Add("transaction_type", "The selected transaction_type is invalid; allowed: "+strings.Join(TransactionTypes, ", ")+".")
		}
	}
	if in.Category != nil {
		t.Category = optionalText(v, "category", *in.Category, maxCategory)
	}
	if in.Amount.Given() {
		a, err := in.Amount.Parse()
		var ie *money.InputError
		if errors.As(err, &ie) {
			v.Add("amount", ie.Message("amount"))
		} else {
			t.Amount = a
		}
	}
	if in.Currency != nil {
		c, ok := money.NormalizeCurrency(*in.Currency)
		if !ok {
			v.Add("currency", "The currency must be a 3-letter ISO 4217 code (e.g. CZK, EUR, PLN).")
		}
		t.Currency = c
	}
	if in.TransactionDate != nil {
		d, err := civil.Parse(strings.TrimSpace(*in.TransactionDate))
		if err != nil {
			v.Add("transaction_date", "The transaction_date field must be a valid date (YYYY-MM-DD).")
		}
		t.TransactionDate = d
	}
	if in.Description != nil {
		t.Description = optionalText(v, "description", *in.Description, maxDescription)
	}
	if in.Reference != nil {
		t.Reference = optionalText(v, "reference", *in.Reference, maxReference)
	}
	if in.OrderID != nil {
		t.OrderID = nil
		if s := strings.TrimSpace(*in.OrderID); s != "" {
			id, err := uuid.Parse(s)
			if err != nil {
				v.Add("order_id", "The order_id field must be a UUID.")
			} else {
				t.OrderID = &id
			}
		}
	}
	if len(in.Metadata) > 0 && string(bytes.TrimSpace(in.Metadata)) != "null" {
		if !isJSONObject(in.Metadata) {
			v.Add("metadata", "The metadata field must be an object.")
		} else {
			t.Metadata = compactJSON(in.Metadata)
		}
	}
	// The sign follows the type, so that earnings, deductions and penalties
	// add up the same way in periods, summaries and aggregates.
	if !v.Has("amount") && !v.Has("transaction_type") && t.TransactionType != "" && (in.Amount.Given() || in.TransactionType != nil) {
		switch {
		case isDeduction(t.TransactionType) && t.Amount.Sign() >= 0:
			v.Add("amount", fmt.Sprintf("The amount of a %s must be negative.", t.TransactionType))
		case !isDeduction(t.TransactionType) && t.Amount.Sign() <= 0:
			v.Add("amount", fmt.Sprintf("The amount of a %s must be positive.", t.TransactionType))
		}
	}
	return t
}

func optionalText(v *apperr.Validation, field, s string, max int) *string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	if len([]rune(s)) > max {
		v.Add(field, fmt.Sprintf("The %s field may not be longer than %d characters.", field, max))
	}
	return &s
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func compactJSON(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// checkOrder gives 422 when an order id names no order of the company.
func checkOrder(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, orderID *uuid.UUID, v *apperr.Validation) error {
	if orderID == nil || v.Has("order_id") {
		return nil
	}
	var ok bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM orders WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL)`,
		companyID, *orderID).Scan(&ok)
	if err != nil {
		return fmt.Errorf("check order %s: %w", *orderID, err)
	}
	if !ok {
		v.Add("order_id", "The selected order_id is invalid.")
	}
	return nil
}

// CreateTransaction records a pending transaction, placed in the driver's
// monthly period of its date and currency (created on demand); the period's
// totals are updated in the same database transaction.
func (s *Service) CreateTransaction(ctx context.Context, p auth.Principal, driverID uuid.UUID, in TransactionInput) (Transaction, error) {
	d, err := s.driverFor(ctx, p, auth.FinanceWrite, driverID)
	if err != nil {
		return Transaction{}, err
	}
	var v apperr.Validation
	if in.TransactionType == nil || strings.TrimSpace(*in.TransactionType) == "" {
		v.Add("transaction_type", "The transaction_type field is required.")
		in.TransactionType = nil
	}
	if !in.Amount.Given() {
		v.Add("amount", "The amount field is required.")
	}
	if in.TransactionDate == nil || strings.TrimSpace(*in.TransactionDate) == "" {
		v.Add("transaction_date", "The transaction_date field is required.")
		in.TransactionDate = nil
	}
	if in.Status != nil && strings.TrimSpace(*in.Status) != StatusPending {
		v.Add("status", "A new transaction is always pending; move it with an update.")
	}
	if in.PaymentDate != nil {
		v.Add("payment_date", "The payment_date is set when the transaction is paid.")
	}
	in.Status = nil
	base := Transaction{CompanyID: d.CompanyID, DriverID: d.ID, Status: StatusPending, Currency: companyCurrency(p), Metadata: json.RawMessage(`{}`)}
	t := in.apply(base, &v)
	if err := checkOrder(ctx, s.db, d.CompanyID, t.OrderID, &v); err != nil {
		return Transaction{}, err
	}
	if err := v.Err(); err != nil {
		return Transaction{}, err
	}
	var id uuid.UUID
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		id, err = insertTransaction(ctx, tx, p, t)
		return err
	})
	if err != nil {
		return Transaction{}, err
	}
	return getTransaction(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// insertTransaction places t in its period (409 when the period is closed
// or paid), inserts it, updates the period totals and writes the audit row.
func insertTransaction(ctx context.Context, tx pgx.Tx, p auth.Principal, t Transaction) (uuid.UUID, error) {
	sl := t.slot()
	periods, err := lockPeriods(ctx, tx, t.CompanyID, t.DriverID, &sl)
	if err != nil {
		return uuid.Nil, err
	}
	if err := periods.checkOpen(sl); err != nil {
		return uuid.Nil, err
	}
	periodID, err := periods.monthly(sl)
	if err != nil {
		return uuid.Nil, err
	}
	t.PeriodID = &periodID
	err = tx.QueryRow(ctx, `
		INSERT INTO finance_transactions (company_id, driver_id, period_id, transaction_type, category, amount, currency,
			status, transaction_date, description, reference, order_id, created_by, metadata)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		RETURNING id, created_at, updated_at`,
		t.CompanyID, t.DriverID, t.PeriodID, t.TransactionType, t.Category, t.Amount, t.Currency,
		t.Status, t.TransactionDate, t.Description, t.Reference, t.OrderID, userID(p), t.Metadata,
	).Scan(&t.ID, &t.CreatedAt, &t.UpdatedAt)
	if err != nil {
		return uuid.Nil, fmt.Errorf("insert transaction for driver %s: %w", t.DriverID, err)
	}
	if err := periods.recompute(ctx, tx); err != nil {
		return uuid.Nil, err
	}
	if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: t.ID, Action: "created",
		NewValues: t.auditValues()}); err != nil {
		return uuid.Nil, err
	}
	return t.ID, nil
}

func companyCurrency(p auth.Principal) string {
	if c, ok := money.NormalizeCurrency(p.CompanyCurrency); ok {
		return c
	}
	return "CZK"
}

// moves is the transaction workflow (docs/finance.md): pending → approved →
// paid, pending or approved → cancelled; paid and cancelled are final, and
// disputed is entered and left only through the penalty.
var moves = map[string][]string{
	StatusPending:  {StatusApproved, StatusCancelled},
	StatusApproved: {StatusPaid, StatusCancelled},
}

// MoveAllowed reports whether the workflow allows a status move.
func MoveAllowed(from, to string) bool { return contains(moves[from], to) }

// UpdateTransaction changes fields and/or moves the status. Only a pending
// transaction may change its type, amount, currency, date or order; an
// approved one its category, description, reference and metadata; paid,
// cancelled and disputed ones nothing. A penalty's finance record follows
// its penalty: its money fields never change here, it cannot be cancelled
// here (resolve the penalty), and it can be approved and paid only once the
// penalty is accepted or resolved.
func (s *Service) UpdateTransaction(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, in TransactionInput) (Transaction, error) {
	d, err := s.driverFor(ctx, p, auth.FinanceWrite, driverID)
	if err != nil {
		return Transaction{}, err
	}
	if _, err := getTransaction(ctx, s.db, d.CompanyID, d.ID, id, false); err != nil {
		return Transaction{}, err
	}
	day := p.Today()
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		penaltyStatus, err := lockPenaltyOf(ctx, tx, d.CompanyID, id)
		if err != nil {
			return err
		}
		cur, err := getTransaction(ctx, tx, d.CompanyID, d.ID, id, false)
		if err != nil {
			return err
		}
		// Input first (422), then state rules (409).
		var v apperr.Validation
		next := in.apply(cur, &v)
		var to string
		if in.Status != nil {
			to = strings.TrimSpace(*in.Status)
			if !contains(Statuses, to) {
				v.Add("status", "The selected status is invalid; allowed: "+strings.Join(Statuses, ", ")+".")
			}
		}
		var paymentDate *civil.Date
		if in.PaymentDate != nil {
			pd, err := civil.Parse(strings.TrimSpace(*in.PaymentDate))
			switch {
			case err != nil:
				v.Add("payment_date", "The payment_date field must be a valid date (YYYY-MM-DD).")
			case to != StatusPaid:
				v.Add("payment_date", "The payment_date field can only be given together with status paid.")
			default:
				paymentDate = &pd
			}
		}
		if err := checkOrder(ctx, tx, d.CompanyID, next.OrderID, &v); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}

		// Lock the periods of the old and new place, then the row; a row that
		// moved in between makes us start over.
		var place *slot
		if !next.slot().same(cur.slot()) || cur.PeriodID == nil {
			sl := next.slot()
			place = &sl
		}
		periods, err := lockRecord(ctx, tx, cur, place)
		if err != nil {
			return err
		}

		if err := checkEdit(cur, next, to, penaltyStatus); err != nil {
			return err
		}
		if _, changed := audit.Diff(cur.auditValues(), next.auditValues()); to == "" && place == nil && len(changed) == 0 {
			return nil // nothing to change, wherever the transaction sits
		}
		if err := periods.checkOpen(cur.slot(), next.slot()); err != nil {
			return err
		}
		if place != nil {
			pid, err := periods.monthly(*place)
			if err != nil {
				return err
			}
			next.PeriodID = &pid
		}
		if to == "" {
			to = cur.Status
		}
		next.Status = to
		if to == StatusPaid && paymentDate == nil {
			paymentDate = &day
		}
		if to == StatusPaid {
			next.PaymentDate = paymentDate
		}
		oldValues, newValues := audit.Diff(cur.auditValues(), next.auditValues())
		if len(newValues) == 0 {
			return nil // nothing changes: no write, no audit row
		}
		_, err = tx.Exec(ctx, `
			UPDATE finance_transactions SET
				transaction_type = $2, category = $3, amount = $4, currency = $5, transaction_date = $6,
				description = $7, reference = $8, order_id = $9, metadata = $10, period_id = $11, status = $12,
				approved_by = CASE WHEN $12 = 'approved' AND status <> 'approved' THEN $13 ELSE approved_by END,
				approved_at = CASE WHEN $12 = 'approved' AND status <> 'approved' THEN now() ELSE approved_at END,
				paid_by = CASE WHEN $12 = 'paid' AND status <> 'paid' THEN $13 ELSE paid_by END,
				paid_at = CASE WHEN $12 = 'paid' AND status <> 'paid' THEN now() ELSE paid_at END,
				payment_date = $14
			WHERE id = $1`,
			id, next.TransactionType, next.Category, next.Amount, next.Currency, next.TransactionDate,
			next.Description, next.Reference, next.OrderID, next.Metadata, next.PeriodID, next.Status,
			userID(p), next.PaymentDate)
		if err != nil {
			return fmt.Errorf("update transaction %s: %w", id, err)
		}
		if err := periods.recompute(ctx, tx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "updated",
			OldValues: oldValues, NewValues: newValues})
	})
	if err != nil {
		return Transaction{}, err
	}
	return getTransaction(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// checkEdit applies the workflow and edit rules of UpdateTransaction (409).
// to is the requested status ("" when none).
func checkEdit(cur, next Transaction, to, penaltyStatus string) error {
	moneyChanged := next.TransactionType != cur.TransactionType || !next.Amount.Equal(cur.Amount) ||
		next.Currency != cur.Currency || next.TransactionDate.String() != cur.TransactionDate.String() || !sameUUID(next.OrderID, cur.OrderID)
	infoChanged := !sameText(next.Category, cur.Category) || !sameText(next.Description, cur.Description) ||
		!sameText(next.Reference, cur.Reference) || !bytes.Equal(compactJSON(next.Metadata), compactJSON(cur.Metadata))

	if to != "" && !MoveAllowed(cur.Status, to) {
		if to == StatusDisputed || cur.Status == StatusDisputed {
			return apperr.Conflict("The disputed status is set and cleared only through the penalty's dispute and resolution.")
		}
		return apperr.Conflict("A %s transaction cannot be moved to %s.", cur.Status, to)
	}
	switch cur.Status {
	case StatusPaid, StatusCancelled, StatusDisputed:
		if moneyChanged || infoChanged {
			return apperr.Conflict("A %s transaction cannot be changed.", cur.Status)
		}
	case StatusApproved:
		if moneyChanged {
			return apperr.Conflict("An approved transaction's type, amount, currency, date and order cannot be changed; cancel it and record a new one.")
		}
	}
	if penaltyStatus != "" {
		if moneyChanged || !sameText(next.Category, cur.Category) {
			return apperr.Conflict("This record belongs to a penalty; change the penalty instead.")
		}
		switch {
		case to == StatusCancelled:
			return apperr.Conflict("This record belongs to a penalty; it is cancelled by resolving the penalty's dispute with cancel.")
		case to != "" && penaltyStatus != "accepted" && penaltyStatus != "resolved":
			return apperr.Conflict("The penalty is %s; its finance record can be approved or paid once the penalty is accepted or resolved.", penaltyStatus)
		}
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

// lockPenaltyOf locks the penalty owning a finance record, if any, and
// returns its status ("" for a record without penalty).
func lockPenaltyOf(ctx context.Context, tx pgx.Tx, companyID, financeID uuid.UUID) (string, error) {
	var status string
	err := tx.QueryRow(ctx, `SELECT status FROM penalties WHERE company_id = $1 AND finance_id = $2 FOR UPDATE`,
		companyID, financeID).Scan(&status)
	if postgres.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("lock penalty of transaction %s: %w", financeID, err)
	}
	return status, nil
}

// DeleteAllowed applies the delete rules: never a paid transaction, and only
// within DeleteWindowDays of its transaction_date.
func DeleteAllowed(t Transaction, today civil.Date) error {
	if t.Status == StatusPaid {
		return apperr.Conflict("A paid transaction cannot be deleted.")
	}
	if t.TransactionDate.DaysUntil(today) > DeleteWindowDays {
		return apperr.Conflict("A transaction dated more than %d days ago cannot be deleted.", DeleteWindowDays)
	}
	return nil
}

// DeleteTransaction soft-deletes a transaction (409 for a paid one, one
// dated more than 90 days ago, one inside a closed or paid period, and a
// penalty's record, which goes with its penalty).
func (s *Service) DeleteTransaction(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) error {
	d, err := s.driverFor(ctx, p, auth.FinanceDelete, driverID)
	if err != nil {
		return err
	}
	if _, err := getTransaction(ctx, s.db, d.CompanyID, d.ID, id, false); err != nil {
		return err
	}
	day := p.Today()
	return s.inTx(ctx, func(tx pgx.Tx) error {
		penaltyStatus, err := lockPenaltyOf(ctx, tx, d.CompanyID, id)
		if err != nil {
			return err
		}
		cur, err := getTransaction(ctx, tx, d.CompanyID, d.ID, id, false)
		if err != nil {
			return err
		}
		periods, err := lockRecord(ctx, tx, cur, nil)
		if err != nil {
			return err
		}
		if penaltyStatus != "" {
			return apperr.Conflict("This record belongs to a penalty and cannot be deleted; resolve the penalty's dispute with cancel instead.")
		}
		if err := DeleteAllowed(cur, day); err != nil {
			return err
		}
		if err := periods.checkOpen(cur.slot()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE finance_transactions SET deleted_at = now() WHERE id = $1`, id); err != nil {
			return fmt.Errorf("delete transaction %s: %w", id, err)
		}
		if err := periods.recompute(ctx, tx); err != nil {
			return err
		}
		return audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "deleted",
			OldValues: cur.auditValues()})
	})
}

// lockRecord locks the periods a change to rec touches (its own and, when
// given, the one it moves into), then rec's row: periods first, as every
// change does, so locks are always taken in the same order. A row that
// changed since it was read is errMoved, and the caller starts over.
func lockRecord(ctx context.Context, tx pgx.Tx, rec Transaction, place *slot) (lockedPeriods, error) {
	periods, err := lockPeriods(ctx, tx, rec.CompanyID, rec.DriverID, place, rec.slot())
	if err != nil {
		return nil, err
	}
	locked, err := getTransaction(ctx, tx, rec.CompanyID, rec.DriverID, rec.ID, true)
	if err != nil {
		return nil, err
	}
	if !locked.UpdatedAt.Equal(rec.UpdatedAt) {
		return nil, errMoved
	}
	return periods, nil
}
