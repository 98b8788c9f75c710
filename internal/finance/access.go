package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Access to a driver's finance (docs/errors.md, the check order): every
// loader here takes the caller, the action and the path's ids, loads the
// record once, decides, and returns it. The happy path is one statement
// (the record joined with its live driver); only a miss falls back to the
// step-by-step lookups, to answer 404 for the driver, 403 for another
// company's or another driver's record, or 404 for the record.

// liveDriver joins the live driver of a record aliased alias.
func liveDriver(alias string) string {
	return `
	JOIN drivers dr ON dr.id = ` + alias + `.driver_id AND dr.company_id = ` + alias + `.company_id AND dr.deleted_at IS NULL`
}

// loadDriver loads driver id for the caller's action a (the role, the
// driver, its company, the caller's own record).
func loadDriver(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (holders.Driver, error) {
	return holders.LoadDriver(ctx, db, p, a, id)
}

// loadDriverWith is loadDriver with the statements queue adds sent in the
// same round trip (holders.LoadDriverWith).
func loadDriverWith(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID, queue func(b *pgx.Batch)) (holders.Driver, error) {
	return holders.LoadDriverWith(ctx, db, p, a, id, queue)
}

// collection is the check of a collection of the caller's company (a list,
// an export, a month-end run): the role (403 Forbidden); only is the driver
// a caller limited to its own records is narrowed to, nil for the whole
// company.
func collection(p auth.Principal, a auth.Action) (only *uuid.UUID, err error) {
	return holders.Collection(p, a)
}

// missing answers a record lookup that found nothing: the driver's own
// answer (404, or 403 for another company's or another driver's) if it has
// one, else the record's 404.
func missing(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID uuid.UUID, notFound error) error {
	if _, err := holders.LoadDriver(ctx, db, p, a, driverID); err != nil {
		return err
	}
	return notFound
}

// loadTransaction loads the live transaction id of driver driverID for the
// caller's action a.
func loadTransaction(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID, id uuid.UUID) (Transaction, error) {
	if err := p.Require(a); err != nil {
		return Transaction{}, err
	}
	q := `SELECT ` + txColumns + ` FROM finance_transactions t` + liveDriver("t") + txJoins + `
		WHERE t.company_id = $1 AND t.driver_id = $2 AND t.id = $3 AND t.deleted_at IS NULL`
	var t Transaction
	err := scanTransaction(db.QueryRow(ctx, q, p.CompanyID, driverID, id), &t)
	if postgres.IsNotFound(err) {
		return Transaction{}, missing(ctx, db, p, a, driverID, apperr.NotFound("msg.common.not_found.transaction"))
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("load transaction %s: %w", id, err)
	}
	if err := holders.Reach(p, a, t.CompanyID, t.DriverID); err != nil {
		return Transaction{}, err
	}
	return t, nil
}

// loadPeriod loads period id of driver driverID for the caller's action a;
// lock takes the period's row lock.
func loadPeriod(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID, id uuid.UUID, lock bool) (Period, error) {
	if err := p.Require(a); err != nil {
		return Period{}, err
	}
	q := periodQuery + liveDriver("fp") + ` WHERE fp.company_id = $1 AND fp.driver_id = $2 AND fp.id = $3`
	if lock {
		q += ` FOR UPDATE OF fp`
	}
	var per Period
	err := scanPeriod(db.QueryRow(ctx, q, p.CompanyID, driverID, id), &per)
	if postgres.IsNotFound(err) {
		return Period{}, missing(ctx, db, p, a, driverID, apperr.NotFound("msg.common.not_found.period"))
	}
	if err != nil {
		return Period{}, fmt.Errorf("load period %s: %w", id, err)
	}
	if err := holders.Reach(p, a, per.CompanyID, per.DriverID); err != nil {
		return Period{}, err
	}
	return per, nil
}

// loadPenalty loads the live penalty id of driver driverID for the caller's
// action a, with its evidence files.
func loadPenalty(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID, id uuid.UUID) (Penalty, error) {
	pen, err := loadPenaltyRow(ctx, db, p, a, driverID, id)
	if err != nil {
		return Penalty{}, err
	}
	pens := []Penalty{pen}
	if err := withEvidence(ctx, db, pen.CompanyID, pens); err != nil {
		return Penalty{}, err
	}
	return pens[0], nil
}

// loadPenaltyRow is loadPenalty without the evidence files.
func loadPenaltyRow(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, driverID, id uuid.UUID) (Penalty, error) {
	if err := p.Require(a); err != nil {
		return Penalty{}, err
	}
	q := penaltyQuery + liveDriver("pe") + ` WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.id = $3 AND pe.deleted_at IS NULL`
	var pen Penalty
	err := scanPenalty(db.QueryRow(ctx, q, p.CompanyID, driverID, id), &pen)
	if postgres.IsNotFound(err) {
		return Penalty{}, missing(ctx, db, p, a, driverID, apperr.NotFound("msg.common.not_found.penalty"))
	}
	if err != nil {
		return Penalty{}, fmt.Errorf("load penalty %s: %w", id, err)
	}
	if err := holders.Reach(p, a, pen.CompanyID, pen.DriverID); err != nil {
		return Penalty{}, err
	}
	return pen, nil
}

// penaltyWithRecord is a penalty locked for a move, with its finance
// record as the move needs it.
type penaltyWithRecord struct {
	Penalty
	rec Transaction
}

// recordColumns are the columns of a penalty's finance record ft that a
// move reads with the penalty (scanned by lockPenalty).
const recordColumns = `, ft.period_id, ft.transaction_type, ft.category, ft.amount, ft.currency, ft.transaction_date,
		ft.payment_date, ft.description, ft.reference, ft.order_id, ft.metadata, ft.created_at, ft.updated_at`

// lockPenalty loads the live penalty id of driver driverID for the caller's
// action a inside the move's transaction tx, locking the penalty's row
// (the first lock of the package's order), with its finance record read in
// the same statement; the record is not locked here: the move locks its
// periods first, then writes it only if it has not changed since
// (moveRecordRow).
func lockPenalty(ctx context.Context, tx pgx.Tx, p auth.Principal, a auth.Action, driverID, id uuid.UUID) (penaltyWithRecord, error) {
	if err := p.Require(a); err != nil {
		return penaltyWithRecord{}, err
	}
	q := penaltyColumns + recordColumns + penaltyFrom + liveDriver("pe") + `
		WHERE pe.company_id = $1 AND pe.driver_id = $2 AND pe.id = $3 AND pe.deleted_at IS NULL
		FOR UPDATE OF pe`
	var out penaltyWithRecord
	pen, rec := &out.Penalty, &out.rec
	err := scanPenalty(tx.QueryRow(ctx, q, p.CompanyID, driverID, id), pen,
		&rec.PeriodID, &rec.TransactionType, &rec.Category, &rec.Amount, &rec.Currency, &rec.TransactionDate,
		&rec.PaymentDate, &rec.Description, &rec.Reference, &rec.OrderID, &rec.Metadata, &rec.CreatedAt, &rec.UpdatedAt)
	if postgres.IsNotFound(err) {
		return penaltyWithRecord{}, missing(ctx, tx, p, a, driverID, apperr.NotFound("msg.common.not_found.penalty"))
	}
	if err != nil {
		return penaltyWithRecord{}, fmt.Errorf("lock penalty %s: %w", id, err)
	}
	if err := holders.Reach(p, a, pen.CompanyID, pen.DriverID); err != nil {
		return penaltyWithRecord{}, err
	}
	penaltyID := pen.ID
	rec.ID, rec.CompanyID, rec.DriverID, rec.PenaltyID, rec.Status = pen.FinanceID, pen.CompanyID, pen.DriverID, &penaltyID, pen.FinanceStatus
	return out, nil
}

// loadPenaltyByID loads the live penalty id, named by its id alone (its
// evidence files' paths), for the caller's action a: the role (403
// Forbidden), the penalty (404; another company's 403 AccessDenied), then
// its driver as on the driver's penalty paths (a driver caller reaches only
// its own: 403 AccessDenied). The penalty's evidence files are not read.
func loadPenaltyByID(ctx context.Context, db postgres.DBTX, p auth.Principal, a auth.Action, id uuid.UUID) (Penalty, error) {
	if err := p.Require(a); err != nil {
		return Penalty{}, err
	}
	var pen Penalty
	err := scanPenalty(db.QueryRow(ctx, penaltyQuery+liveDriver("pe")+`
		WHERE pe.company_id = $1 AND pe.id = $2 AND pe.deleted_at IS NULL`, p.CompanyID, id), &pen)
	if err == nil {
		if err := holders.Reach(p, a, pen.CompanyID, pen.DriverID); err != nil {
			return Penalty{}, err
		}
		return pen, nil
	}
	if !postgres.IsNotFound(err) {
		return Penalty{}, fmt.Errorf("load penalty %s: %w", id, err)
	}
	// No live penalty with a live driver: another company's penalty
	// (hidden by row-level security), none at all, or a deleted driver's.
	var driverID uuid.UUID
	err = db.QueryRow(ctx, `SELECT driver_id FROM penalties WHERE id = $1 AND deleted_at IS NULL`, id).Scan(&driverID)
	if postgres.IsNotFound(err) {
		return Penalty{}, holders.Hidden(ctx, db, p, "penalties", id, apperr.NotFound("msg.common.not_found.penalty"))
	}
	if err != nil {
		return Penalty{}, fmt.Errorf("find penalty %s: %w", id, err)
	}
	return Penalty{}, missing(ctx, db, p, a, driverID, apperr.NotFound("msg.common.not_found.penalty"))
}

// OwnLedger is the driver whose ledger a caller limited to its own finance
// reads instead of the company's transaction list (nil for a caller who
// reads every driver's): the role may read finance at all (403
// Forbidden), and a caller limited to its own records must be linked to a
// driver (403 Forbidden otherwise).
func (s *Service) OwnLedger(p auth.Principal) (*uuid.UUID, error) {
	only, err := collection(p, auth.FinanceRead)
	if err != nil || only == nil {
		return nil, err
	}
	if *only == uuid.Nil {
		return nil, apperr.Forbidden()
	}
	return only, nil
}

// evidenceOnlyWhileOpen reports whether the caller adds evidence files to a
// penalty only while it is pending or disputed: a caller who responds to
// its own penalties (a driver); who responds to every penalty adds them
// any time.
func evidenceOnlyWhileOpen(p auth.Principal) bool {
	return p.Grant(auth.PenaltiesRespond) == auth.Own
}

// overviewNarrowed reports whether the company overview is narrowed to
// the caller's own records (a caller that does not read every driver's
// finance).
func overviewNarrowed(p auth.Principal) bool {
	return p.Grant(auth.FinanceRead) != auth.All
}

// seesPersonal reports whether the caller may see drivers' personal fields
// (the payroll export's columns).
func seesPersonal(p auth.Principal) bool {
	return p.Grant(auth.DriversPersonal) != auth.Deny
}

// scope is the part of the caller's company a collection covers: the
// company and, for a caller limited to its own records, its driver.
type scope struct {
	companyID uuid.UUID
	only      *uuid.UUID
}

// CompanyID is the caller's company.
func (sc scope) CompanyID() uuid.UUID { return sc.companyID }

// Only is the driver a caller limited to its own records is narrowed to;
// nil for the whole company.
func (sc scope) Only() *uuid.UUID { return sc.only }

// collectionScope checks a collection of the caller's company for action a
// (collection) and returns what it covers.
func collectionScope(p auth.Principal, a auth.Action) (scope, error) {
	only, err := collection(p, a)
	if err != nil {
		return scope{}, err
	}
	return scope{companyID: p.CompanyID, only: only}, nil
}

// loadedDriver is a driver loaded for the caller (loadDriver): the reads
// of a driver's finance take it.
type loadedDriver = holders.Driver
