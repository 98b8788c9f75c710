package finance

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
)

// EachTransaction calls fn for every transaction of the driver's filtered
// list (the list's filters and validation, the list's order, no paging),
// reading them one by one from the database, so an export of any length is
// streamed. An error from fn stops the reading and is returned.
func (s *Service) EachTransaction(ctx context.Context, p auth.Principal, driverID uuid.UUID, f TransactionFilter, fn func(Transaction) error) error {
	d, err := loadDriver(ctx, s.db, p, auth.FinanceRead, driverID)
	if err != nil {
		return err
	}
	return s.eachTransaction(ctx, d, f, fn)
}

// eachTransaction is EachTransaction of the loaded driver d.
func (s *Service) eachTransaction(ctx context.Context, d loadedDriver, f TransactionFilter, fn func(Transaction) error) error {
	var v apperr.Validation
	f = f.check(&v)
	if f.PeriodID != nil {
		var err error
		if f, _, err = s.withinPeriod(ctx, d, f, &v); err != nil {
			return err
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	var a postgres.Args
	sql := txQuery + ` ` + transactionWhere(d.CompanyID, d.ID, f, &a) + `
		ORDER BY t.transaction_date DESC, t.created_at DESC, t.id DESC`
	rows, err := s.db.Query(ctx, sql, a.Values...)
	if err != nil {
		return fmt.Errorf("export transactions of driver %s: %w", d.ID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Transaction
		if err := scanTransaction(rows, &t); err != nil {
			return fmt.Errorf("export transactions of driver %s: %w", d.ID, err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export transactions of driver %s: %w", d.ID, err)
	}
	return nil
}

// exportColumns are the columns of a transaction export, by catalogue key
// of their header ("finance.col.<name>").
var exportColumns = []string{"transaction_date", "transaction_type", "category", "description", "reference",
	"amount", "currency", "status", "payment_date", "id"}

// ExportTransactions writes the driver's filtered transactions as a table
// (the columns of exportColumns, headers and words in lang). The filters
// are checked first: a refusal (403, 404, 422) comes back before start is
// called, so the caller can still answer with an error; start opens the
// writer with the file's name (finance-{internal number}-{name}-{today} in
// plain ASCII, export.FileName) and commits the response to a download.
// read fills the filter once the driver is checked. Rows are read and
// written one at a time.
func (s *Service) ExportTransactions(ctx context.Context, p auth.Principal, driverID uuid.UUID, read func(*TransactionFilter) error,
	lang i18n.Lang, start func(name string) (export.Writer, error)) error {
	var number, fullName string
	d, err := loadDriverWith(ctx, s.db, p, auth.FinanceRead, driverID, func(b *pgx.Batch) {
		b.Queue(`SELECT internal_number, concat_ws(' ', first_name, last_name) FROM drivers WHERE company_id = $1 AND id = $2`,
			p.CompanyID, driverID).QueryRow(func(row pgx.Row) error {
			err := row.Scan(&number, &fullName)
			if postgres.IsNotFound(err) {
				return nil // the lookup answers for a missing driver
			}
			return err
		})
	})
	if err != nil {
		return err
	}
	f, err := readOnce(read)()
	if err != nil {
		return err
	}
	name := export.FileName("finance", number, fullName, p.Today().String())
	var w export.Writer
	err = s.eachTransaction(ctx, d, f, func(t Transaction) error {
		if w == nil {
			var err error
			if w, err = openExport(lang, name, start); err != nil {
				return err
			}
		}
		return w.Row([]export.Cell{
			export.Date(t.TransactionDate), export.Text(lang.T("finance.type." + t.TransactionType)),
			export.Text(CategoryText(lang, t.Category)), export.OptionalText(t.Description), export.OptionalText(t.Reference),
			export.Number(t.Amount.Decimal()), export.Text(t.Currency), export.Text(lang.T("finance.status." + t.Status)),
			export.OptionalDate(t.PaymentDate), export.Text(t.ID.String()),
		})
	})
	if err != nil {
		return err
	}
	if w == nil { // no rows: the header alone
		if w, err = openExport(lang, name, start); err != nil {
			return err
		}
	}
	return w.Close()
}

// CategoryText is a transaction's category for people: in words when the
// catalogues name it (performance_bonus → "Performance bonus", the keys
// finance.category.*), else as people typed it; "" for none. The ledger,
// its export and the payslips (internal/payslips) show it so.
func CategoryText(lang i18n.Lang, c *string) string {
	if c == nil {
		return ""
	}
	return lang.Or(*c, "finance.category."+*c)
}

// openExport opens the export's writer (start, with the file name name)
// and writes the header row.
func openExport(lang i18n.Lang, name string, start func(name string) (export.Writer, error)) (export.Writer, error) {
	w, err := start(name)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(exportColumns))
	for i, c := range exportColumns {
		names[i] = lang.T("finance.col." + c)
	}
	return w, w.Header(names)
}
