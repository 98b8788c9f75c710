package finance

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// CreateTransaction records a pending transaction of driver driverID,
// placed in the driver's monthly period of its date and currency (created
// on demand); the period's totals are updated in the same database
// transaction. read fills the input once the driver is checked.
func (s *Service) CreateTransaction(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*TransactionInput) error) (Transaction, error) {
	d, err := loadDriver(ctx, s.db, p, auth.FinanceWrite, driverID)
	if err != nil {
		return Transaction{}, err
	}
	in, err := readOnce(read)()
	if err != nil {
		return Transaction{}, err
	}
	var v apperr.Validation
	base := Transaction{CompanyID: d.CompanyID, DriverID: d.ID, Status: StatusPending, Currency: companyCurrency(p), Metadata: json.RawMessage(`{}`)}
	t := in.forCreate(base, &v)
	if err := checkOrder(ctx, s.db, d.CompanyID, t.OrderID, &v); err != nil {
		return Transaction{}, err
	}
	if err := v.Err(); err != nil {
		return Transaction{}, err
	}
	var id uuid.UUID
	err = s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if id, err = insertTransaction(ctx, tx, p, t); err != nil {
			return err
		}
		return emitTransaction(ctx, tx, t.CompanyID, t.DriverID, id, webhooks.TransactionCreated)
	})
	if err != nil {
		return Transaction{}, err
	}
	return getTransaction(ctx, s.db, d.CompanyID, d.ID, id, false)
}

// checkOrder gives 422 when an order id names no order of the company.
func checkOrder(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, orderID *uuid.UUID, v *apperr.Validation) error {
	if orderID == nil || v.Has("order_id") {
		return nil
	}
	ok, err := orderExists(ctx, db, companyID, *orderID)
	if err != nil {
		return err
	}
	if !ok {
		v.Add("order_id", "msg.finance.order_unknown")
	}
	return nil
}

// insertTransaction places t in its period (409 when the period is closed
// or paid), inserts it, updates the period totals and writes the audit row.
// The caller emits finance_transaction.created once the transaction is
// linked to its penalty, if any, so that the event shows the link.
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
	if err := insertTransactionRow(ctx, tx, &t, userID(p)); err != nil {
		return uuid.Nil, err
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

// UpdateTransaction changes fields and/or moves the status. Only a pending
// transaction may change its type, amount, currency, date or order; an
// approved one its category, description, reference and metadata; paid,
// cancelled and disputed ones nothing. A penalty's finance record follows
// its penalty: its money fields never change here, it cannot be cancelled
// here (resolve the penalty), and it can be approved and paid only once the
// penalty is accepted or resolved.
func (s *Service) UpdateTransaction(ctx context.Context, p auth.Principal, driverID, id uuid.UUID, read func(*TransactionInput) error) (Transaction, error) {
	day := p.Today()
	input := readOnce(read)
	var out Transaction
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = updateTransaction(ctx, tx, p, driverID, id, input, day)
		return err
	})
	if err != nil {
		return Transaction{}, err
	}
	return out, nil
}

// updateTransaction is UpdateTransaction's database transaction: the
// transaction is loaded for the caller, then the input is read and checked
// (400, 422), then the locks, the state rules (409) and the write. It
// answers the transaction as the write left it (as loaded when nothing
// changes).
func updateTransaction(ctx context.Context, tx pgx.Tx, p auth.Principal, driverID, id uuid.UUID, input func() (TransactionInput, error),
	day civil.Date) (Transaction, error) {
	cur, err := loadTransaction(ctx, tx, p, auth.FinanceWrite, driverID, id)
	if err != nil {
		return Transaction{}, err
	}
	in, err := input()
	if err != nil {
		return Transaction{}, err
	}
	penaltyStatus, err := lockPenaltyOf(ctx, tx, cur.CompanyID, id)
	if err != nil {
		return Transaction{}, err
	}
	var v apperr.Validation
	u := in.forUpdate(cur, &v)
	if err := checkOrder(ctx, tx, cur.CompanyID, u.next.OrderID, &v); err != nil {
		return Transaction{}, err
	}
	if err := v.Err(); err != nil {
		return Transaction{}, err
	}

	// Lock the periods of the old and new place; the row is written only
	// if it has not changed since it was loaded (errMoved otherwise: start
	// over).
	var place *slot
	if !u.next.slot().same(cur.slot()) || cur.PeriodID == nil {
		sl := u.next.slot()
		place = &sl
	}
	periods, err := lockRecordPeriods(ctx, tx, cur, place)
	if err != nil {
		return Transaction{}, err
	}
	if err := checkEdit(cur, u.next, u.to, penaltyStatus); err != nil {
		return Transaction{}, err
	}
	if _, changed := audit.Diff(cur.auditValues(), u.next.auditValues()); u.to == "" && place == nil && len(changed) == 0 {
		return cur, nil // nothing to change, wherever the transaction sits
	}
	if err := periods.checkOpen(cur.slot(), u.next.slot()); err != nil {
		return Transaction{}, err
	}
	next, err := u.settle(cur, periods, place, day)
	if err != nil {
		return Transaction{}, err
	}
	oldValues, newValues := audit.Diff(cur.auditValues(), next.auditValues())
	if len(newValues) == 0 {
		return cur, nil // nothing changes: no write, no audit row
	}
	out, err := updateTransactionRow(ctx, tx, cur, next, userID(p))
	if err != nil {
		return Transaction{}, err
	}
	if err := periods.recompute(ctx, tx); err != nil {
		return Transaction{}, err
	}
	if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "updated",
		OldValues: oldValues, NewValues: newValues}); err != nil {
		return Transaction{}, err
	}
	return out, emitMoved(ctx, tx, out, cur.Status)
}

// settle returns the record as the update leaves it: in its new period
// (when it moves), with its new status and, when paid, the payment date
// (default: day).
func (u update) settle(cur Transaction, periods lockedPeriods, place *slot, day civil.Date) (Transaction, error) {
	next := u.next
	if place != nil {
		pid, err := periods.monthly(*place)
		if err != nil {
			return Transaction{}, err
		}
		next.PeriodID = &pid
	}
	next.Status = cur.Status
	if u.to != "" {
		next.Status = u.to
	}
	if next.Status == StatusPaid {
		next.PaymentDate = u.paymentDate
		if next.PaymentDate == nil {
			next.PaymentDate = &day
		}
	}
	return next, nil
}

// DeleteTransaction soft-deletes a transaction (409 for a paid one, one
// dated more than 90 days ago, one inside a closed or paid period, and a
// penalty's record, which goes with its penalty).
func (s *Service) DeleteTransaction(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) error {
	day := p.Today()
	return s.inTx(ctx, func(tx pgx.Tx) error {
		cur, err := loadTransaction(ctx, tx, p, auth.FinanceDelete, driverID, id)
		if err != nil {
			return err
		}
		penaltyStatus, err := lockPenaltyOf(ctx, tx, cur.CompanyID, id)
		if err != nil {
			return err
		}
		periods, err := lockRecordPeriods(ctx, tx, cur, nil)
		if err != nil {
			return err
		}
		if penaltyStatus != "" && !cur.Correction() {
			return apperr.Conflict("msg.finance.penalty_record_delete")
		}
		if err := DeleteAllowed(cur, day); err != nil {
			return err
		}
		if err := periods.checkOpen(cur.slot()); err != nil {
			return err
		}
		if err := deleteTransactionRow(ctx, tx, cur); err != nil {
			return err
		}
		if err := periods.recompute(ctx, tx); err != nil {
			return err
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "finance_transaction", EntityID: id, Action: "deleted",
			OldValues: cur.auditValues()}); err != nil {
			return err
		}
		return webhooks.Emit(ctx, tx, cur.CompanyID, webhooks.TransactionDeleted, cur)
	})
}

// lockRecordPeriods locks the periods a change to rec touches (its own
// and, when given, the one it moves into): periods before the row, as
// every change does, so locks are always taken in the same order. The row
// itself is locked by its write, which matches only the row as rec was
// read (updateTransactionRow, deleteTransactionRow): a row that changed
// since is errMoved, and the caller starts over.
func lockRecordPeriods(ctx context.Context, tx pgx.Tx, rec Transaction, place *slot) (lockedPeriods, error) {
	return lockPeriods(ctx, tx, rec.CompanyID, rec.DriverID, place, rec.slot())
}

// TransactionForm checks that the caller may record a transaction of
// driver driverID (the create form's page, before anything is read).
func (s *Service) TransactionForm(ctx context.Context, p auth.Principal, driverID uuid.UUID) error {
	_, err := loadDriver(ctx, s.db, p, auth.FinanceWrite, driverID)
	return err
}

// TransactionToEdit reads transaction id of driver driverID for the edit
// form (the caller must be one who changes transactions).
func (s *Service) TransactionToEdit(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Transaction, error) {
	return loadTransaction(ctx, s.db, p, auth.FinanceWrite, driverID, id)
}

// TransactionToDelete reads transaction id of driver driverID for the
// delete confirmation (the caller must be one who deletes transactions).
func (s *Service) TransactionToDelete(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Transaction, error) {
	return loadTransaction(ctx, s.db, p, auth.FinanceDelete, driverID, id)
}

// GetTransaction reads transaction id of driver driverID.
func (s *Service) GetTransaction(ctx context.Context, p auth.Principal, driverID, id uuid.UUID) (Transaction, error) {
	return loadTransaction(ctx, s.db, p, auth.FinanceRead, driverID, id)
}
