package finance

import (
	"context"
	"fmt"

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
func (s *Service) EachTransaction(ctx context.Context, p auth.Principal, ref Ref, f TransactionFilter, fn func(Transaction) error) error {
	d := ref.DriverRef
	if _, err := ref.check(p, auth.FinanceRead, ""); err != nil {
		return err
	}
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
	sql := txQuery + ` ` + transactionWhere(d.CompanyID(), d.ID(), f, &a) + `
		ORDER BY t.transaction_date DESC, t.created_at DESC, t.id DESC`
	rows, err := s.db.Query(ctx, sql, a.Values...)
	if err != nil {
		return fmt.Errorf("export transactions of driver %s: %w", d.ID(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var t Transaction
		if err := scanTransaction(rows, &t); err != nil {
			return fmt.Errorf("export transactions of driver %s: %w", d.ID(), err)
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("export transactions of driver %s: %w", d.ID(), err)
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
// writer (and commits the response to a download). Rows are read and
// written one at a time.
func (s *Service) ExportTransactions(ctx context.Context, p auth.Principal, ref Ref, f TransactionFilter, lang i18n.Lang, start func() (export.Writer, error)) error {
	var w export.Writer
	err := s.EachTransaction(ctx, p, ref, f, func(t Transaction) error {
		if w == nil {
			var err error
			if w, err = openExport(lang, start); err != nil {
				return err
			}
		}
		return w.Row([]export.Cell{
			export.Date(t.TransactionDate), export.Text(lang.T("finance.type." + t.TransactionType)),
			export.OptionalText(t.Category), export.OptionalText(t.Description), export.OptionalText(t.Reference),
			export.Number(t.Amount.Decimal()), export.Text(t.Currency), export.Text(lang.T("finance.status." + t.Status)),
			export.OptionalDate(t.PaymentDate), export.Text(t.ID.String()),
		})
	})
	if err != nil {
		return err
	}
	if w == nil { // no rows: the header alone
		if w, err = openExport(lang, start); err != nil {
			return err
		}
	}
	return w.Close()
}

func openExport(lang i18n.Lang, start func() (export.Writer, error)) (export.Writer, error) {
	w, err := start()
	if err != nil {
		return nil, err
	}
	names := make([]string, len(exportColumns))
	for i, c := range exportColumns {
		names[i] = lang.T("finance.col." + c)
	}
	return w, w.Header(names)
}
