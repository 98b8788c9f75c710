package finance

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
)

// txColumns are the columns scanTransaction reads, over transactions t
// joined as txJoins says.
var txColumns = `t.id, t.company_id, t.driver_id, t.period_id, COALESCE(pen.id, pc.id), t.transaction_type, t.category, t.amount,
		t.currency, t.status, t.transaction_date, t.payment_date, t.description, t.reference, t.order_id,
		` + userName("cu") + `, ` + userName("au") + `, t.approved_at, ` + userName("pu") + `, t.paid_at,
		t.metadata, t.created_at, t.updated_at, t.deleted_at, pc.incident_date`

// txJoins are the joins txColumns reads from: the penalty whose record the
// transaction is (pen) or whose correction (pc).
const txJoins = `
	LEFT JOIN penalties pen ON pen.finance_id = t.id
	LEFT JOIN penalties pc ON pc.correction_id = t.id
	LEFT JOIN users cu ON cu.id = t.created_by
	LEFT JOIN users au ON au.id = t.approved_by
	LEFT JOIN users pu ON pu.id = t.paid_by`

var txQuery = `SELECT ` + txColumns + ` FROM finance_transactions t` + txJoins

// txPageQuery selects txColumns for one page of transactions (pageQuery).
func txPageQuery(where, order, limit string) string {
	return pageQuery(`SELECT `+txColumns, `finance_transactions`, `t`, txJoins, where, order, limit)
}

// pageQuery selects columns for one page of table's rows: where (from WHERE
// on, over the table as alias), then order and limit, pick the page from
// the table alone, and only the page's rows are joined (joins). Joined
// before the limit, a generic plan, which PostgreSQL may keep for a read of
// one driver (postgres.WithReusedPlans), estimated a driver's filtered
// transactions at one row and joined all of them before sorting, so a
// page's cost grew with the driver's history instead of the page's size
// (docs/performance.md, "Optional filters and reused plans").
func pageQuery(columns, table, alias, joins, where, order, limit string) string {
	return columns + ` FROM (SELECT * FROM ` + table + ` ` + alias + ` ` + where + ` ` + order + ` ` + limit + `) ` + alias +
		joins + ` ` + order
}

// scanTransaction scans the columns of txColumns into t, then into extra
// the columns a query selects after them.
func scanTransaction(row pgx.Row, t *Transaction, extra ...any) error {
	return row.Scan(append([]any{&t.ID, &t.CompanyID, &t.DriverID, &t.PeriodID, &t.PenaltyID, &t.TransactionType, &t.Category, &t.Amount,
		&t.Currency, &t.Status, &t.TransactionDate, &t.PaymentDate, &t.Description, &t.Reference, &t.OrderID,
		&t.CreatedBy, &t.ApprovedBy, &t.ApprovedAt, &t.PaidBy, &t.PaidAt, &t.Metadata, &t.CreatedAt, &t.UpdatedAt, &t.DeletedAt,
		&t.CorrectedIncident}, extra...)...)
}

// getTransaction reads a live transaction of the driver; another driver's
// or a deleted one is 404. lock takes the row lock (FOR UPDATE).
func getTransaction(ctx context.Context, db postgres.DBTX, companyID, driverID, id uuid.UUID, lock bool) (Transaction, error) {
	q := txQuery + ` WHERE t.company_id = $1 AND t.driver_id = $2 AND t.id = $3 AND t.deleted_at IS NULL`
	if lock {
		q += ` FOR UPDATE OF t`
	}
	var t Transaction
	err := scanTransaction(db.QueryRow(ctx, q, companyID, driverID, id), &t)
	if postgres.IsNotFound(err) {
		return Transaction{}, apperr.NotFound("msg.common.not_found.transaction")
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("read transaction %s: %w", id, err)
	}
	return t, nil
}

// orderExists reports whether the id names a live order of the company.
func orderExists(ctx context.Context, db postgres.DBTX, companyID, orderID uuid.UUID) (bool, error) {
	var ok bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM orders WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL)`,
		companyID, orderID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check order %s: %w", orderID, err)
	}
	return ok, nil
}

// insertTransactionRow inserts t (already placed in its period) and returns
// its id, created_at and updated_at in t.
func insertTransactionRow(ctx context.Context, tx pgx.Tx, t *Transaction, createdBy *uuid.UUID) error {
	err := tx.QueryRow(ctx, `
		INSERT INTO finance_transactions (company_id, driver_id, period_id, transaction_type, category, amount, currency,
			status, transaction_date, description, reference, order_id, created_by, metadata)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
		RETURNING id, created_at, updated_at`,
		t.CompanyID, t.DriverID, t.PeriodID, t.TransactionType, t.Category, t.Amount, t.Currency,
		t.Status, t.TransactionDate, t.Description, t.Reference, t.OrderID, createdBy, t.Metadata,
	).Scan(&t.ID, &t.CreatedAt, &t.UpdatedAt)
	if err != nil {
		return fmt.Errorf("insert transaction for driver %s: %w", t.DriverID, err)
	}
	return nil
}

// updateTransactionRow writes next over the row of cur, if the row is
// still as cur was read (errMoved otherwise), and answers it as written,
// with the joined names (the answer needs no second read); approved_by/at
// and paid_by/at are set to by and now when the status enters approved or
// paid.
func updateTransactionRow(ctx context.Context, tx pgx.Tx, cur, next Transaction, by *uuid.UUID) (Transaction, error) {
	var out Transaction
	err := scanTransaction(tx.QueryRow(ctx, `
		WITH t AS (
			UPDATE finance_transactions SET
				transaction_type = $2, category = $3, amount = $4, currency = $5, transaction_date = $6,
				description = $7, reference = $8, order_id = $9, metadata = $10, period_id = $11, status = $12,
				approved_by = CASE WHEN $12 = 'approved' AND status <> 'approved' THEN $13 ELSE approved_by END,
				approved_at = CASE WHEN $12 = 'approved' AND status <> 'approved' THEN now() ELSE approved_at END,
				paid_by = CASE WHEN $12 = 'paid' AND status <> 'paid' THEN $13 ELSE paid_by END,
				paid_at = CASE WHEN $12 = 'paid' AND status <> 'paid' THEN now() ELSE paid_at END,
				payment_date = $14
			WHERE company_id = $15 AND id = $1 AND updated_at = $16
			RETURNING *)
		SELECT `+txColumns+` FROM t`+txJoins,
		next.ID, next.TransactionType, next.Category, next.Amount, next.Currency, next.TransactionDate,
		next.Description, next.Reference, next.OrderID, next.Metadata, next.PeriodID, next.Status,
		by, next.PaymentDate, next.CompanyID, cur.UpdatedAt), &out)
	if postgres.IsNotFound(err) {
		return Transaction{}, errMoved
	}
	if err != nil {
		return Transaction{}, fmt.Errorf("update transaction %s: %w", next.ID, err)
	}
	return out, nil
}

// deleteTransactionRow soft-deletes the transaction cur, if its row is
// still as cur was read (errMoved otherwise).
func deleteTransactionRow(ctx context.Context, tx pgx.Tx, cur Transaction) error {
	tag, err := tx.Exec(ctx, `UPDATE finance_transactions SET deleted_at = now() WHERE company_id = $1 AND id = $2 AND updated_at = $3`,
		cur.CompanyID, cur.ID, cur.UpdatedAt)
	if err != nil {
		return fmt.Errorf("delete transaction %s: %w", cur.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return errMoved
	}
	return nil
}

// lockPenaltyOf locks the penalty a transaction belongs to (as its finance
// record or its correction), if any, and returns its status ("" for a
// transaction without penalty).
func lockPenaltyOf(ctx context.Context, tx pgx.Tx, companyID, financeID uuid.UUID) (string, error) {
	var status string
	err := tx.QueryRow(ctx, `SELECT status FROM penalties WHERE company_id = $1 AND (finance_id = $2 OR correction_id = $2) FOR UPDATE`,
		companyID, financeID).Scan(&status)
	if postgres.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("lock penalty of transaction %s: %w", financeID, err)
	}
	return status, nil
}

// transactionWhere is the WHERE clause of the transaction list: the live
// transactions that transactionFilterSQL keeps.
func transactionWhere(companyID, driverID uuid.UUID, f TransactionFilter, a *postgres.Args) string {
	return `WHERE t.deleted_at IS NULL AND ` + transactionFilterSQL(companyID, driverID, f, a)
}

// transactionFilterSQL is the filter of the driver's transaction list over
// transactions t, deleted transactions included. Only the filters f sets
// are written, so each combination is a statement of its own, and a plan
// PostgreSQL reuses for it (postgres.WithReusedPlans) is costed for what it
// asks. Written as one statement with every filter optional ("$3 IS NULL OR
// …"), its generic plan estimated every driver's list at one row, and read
// and sorted all of a driver's transactions for a page of 20
// (docs/performance.md, "Optional filters and reused plans").
func transactionFilterSQL(companyID, driverID uuid.UUID, f TransactionFilter, a *postgres.Args) string {
	conds := []string{`t.company_id = ` + a.Add(companyID), `t.driver_id = ` + a.Add(driverID)}
	conds = anyOf(conds, `t.transaction_type`, f.Types, a)
	conds = anyOf(conds, `t.status`, f.Statuses, a)
	if f.From != nil {
		conds = append(conds, `t.transaction_date >= `+a.Add(*f.From)+`::date`)
	}
	if f.To != nil {
		conds = append(conds, `t.transaction_date <= `+a.Add(*f.To)+`::date`)
	}
	if f.Currency != "" {
		conds = append(conds, `t.currency = `+a.Add(f.Currency)+`::text`)
	}
	return strings.Join(conds, ` AND `)
}

// anyOf adds to conds the condition that column is one of values, unless
// values is empty (no filter).
func anyOf(conds []string, column string, values []string, a *postgres.Args) []string {
	if len(values) == 0 {
		return conds
	}
	return append(conds, column+` = ANY(`+a.Add(values)+`::text[])`)
}

// transactionList reads the filtered transactions' sums per currency and a
// page of them, newest first, in one batch: one round trip (the page is
// empty past the last one).
func transactionList(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, f TransactionFilter) ([]Summary, []Transaction, error) {
	var sums []Summary
	var page []Transaction
	b := &pgx.Batch{}
	queueTransactionList(b, companyID, driverID, f, &sums, &page)
	if err := db.SendBatch(ctx, b).Close(); err != nil {
		return nil, nil, err
	}
	return sums, page, nil
}

// queueTransactionList adds transactionList's two statements to b: once b
// has run, *sums and *page hold their results. The driver's load's own
// lookup (Service.Read) sends them with it.
func queueTransactionList(b *pgx.Batch, companyID, driverID uuid.UUID, f TransactionFilter, sums *[]Summary, page *[]Transaction) {
	var sa postgres.Args
	sumSQL := `SELECT t.currency, count(*), ` + summarySQL + ` FROM finance_transactions t ` + transactionWhere(companyID, driverID, f, &sa) +
		` GROUP BY t.currency ORDER BY t.currency`
	b.Queue(sumSQL, sa.Values...).Query(func(rows pgx.Rows) error {
		got, err := postgres.AppendRows(nil, rows, func(r pgx.Row, sm *Summary) error {
			err := r.Scan(&sm.Currency, &sm.rows, &sm.TotalEarnings, &sm.TotalDeductions, &sm.TotalPenalties)
			sm.NetAmount = sm.TotalEarnings.Sub(sm.TotalDeductions).Sub(sm.TotalPenalties)
			return err
		})
		if err != nil {
			return fmt.Errorf("summarise transactions of driver %s: %w", driverID, err)
		}
		*sums = got
		return nil
	})
	var pa postgres.Args
	where := transactionWhere(companyID, driverID, f, &pa)
	pageSQL := txPageQuery(where, `ORDER BY t.transaction_date DESC, t.created_at DESC, t.id DESC`,
		`LIMIT `+pa.Add(f.PerPage)+` OFFSET `+pa.Add((f.Page-1)*f.PerPage))
	b.Queue(pageSQL, pa.Values...).Query(func(rows pgx.Rows) error {
		got, err := postgres.AppendRows(make([]Transaction, 0, f.PerPage), rows, func(r pgx.Row, t *Transaction) error { return scanTransaction(r, t) })
		if err != nil {
			return fmt.Errorf("list transactions of driver %s: %w", driverID, err)
		}
		*page = got
		return nil
	})
}
