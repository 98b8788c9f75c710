package documents

import (
	"context"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
)

// ExpiryColumns are the columns of the documents-by-expiry export, by
// catalogue key "expiring.export.<name>"; number is left out for a
// caller who sees statuses only.
var ExpiryColumns = []string{"holder_type", "internal_number", "name", "type", "number", "valid_until", "days_left",
	"effective_status", "limited_by", "status"}

// StatusFills are the XLSX background colours of the document statuses
// (the colours of the pages' status badges).
var StatusFills = map[string]string{
	"valid": "C6EFCE", "warning": "FFEB9C", "expiring_soon": "FFCC99", "expired": "FFC7CE", "no_data": "E0E0E0",
}

// ExportExpiring writes every document of the filtered list (paging
// ignored) as a table, headers and words in lang: the holder's kind, the
// type's name and the statuses in words, as the page shows them. Like the
// other exports, the checks come first (the role, then read's parameters
// and their values) and start is called only once they have passed; then
// the rows stream as the statement returns them.
func (s *Service) ExportExpiring(ctx context.Context, p auth.Principal, read func(*ExpiryParams) error, lang i18n.Lang,
	start func() (export.Writer, error)) error {
	var w export.Writer
	var cols []string
	var types TypeNames
	open := func(numbers bool) error {
		var err error
		if w, err = start(); err != nil {
			return err
		}
		if types, err = LoadTypeNames(ctx, s.db, p.CompanyID); err != nil {
			return err
		}
		var names []string
		for _, c := range ExpiryColumns {
			if c == "number" && !numbers {
				continue
			}
			cols = append(cols, c)
			names = append(names, lang.T("expiring.export."+c))
		}
		return w.Header(names)
	}
	err := s.EachExpiring(ctx, p, read, func(it ExpiryItem, numbers bool) error {
		if w == nil {
			if err := open(numbers); err != nil {
				return err
			}
		}
		cells := make([]export.Cell, len(cols))
		for i, c := range cols {
			cells[i] = expiryCell(it, c, lang, types)
		}
		return w.Row(cells)
	})
	if err != nil {
		return err
	}
	if w == nil {
		// No row: the header alone (the checks have passed).
		numbers, err := expiryList(p)
		if err != nil {
			return err
		}
		if err := open(numbers); err != nil {
			return err
		}
	}
	return w.Close()
}

func expiryCell(it ExpiryItem, col string, lang i18n.Lang, types TypeNames) export.Cell {
	switch col {
	case "holder_type":
		return export.Text(lang.T("expiring.holder." + it.HolderType))
	case "internal_number":
		return export.Text(it.Holder.InternalNumber)
	case "name":
		return export.Text(it.Holder.Name)
	case "type":
		return export.Text(types.Name(lang, it.Type))
	case "number":
		return export.OptionalText(it.Number)
	case "valid_until":
		return export.OptionalDate(it.ValidUntil)
	case "days_left":
		return export.OptionalInt(it.DaysUntilExpiry)
	case "effective_status":
		return export.Text(lang.T("doc.status." + it.EffectiveStatus)).Fill(StatusFills[it.EffectiveStatus])
	case "limited_by":
		if it.LimitedBy == nil {
			return export.Text("")
		}
		return export.Text(types.Name(lang, *it.LimitedBy))
	case "status":
		return export.Text(lang.T("doc.status." + it.Status))
	}
	return export.Text("")
}
