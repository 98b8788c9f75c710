package drivers

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// exportBatch is how many drivers an export reads per statement: the
// list's own query with its keyset cursor, page after page, so memory holds
// one batch whatever the size of the company (docs/import-export.md).
const exportBatch = 500

// ExportRow is one driver of an export: the list item (summary, readiness,
// next expiry) and the full record, with its office's name.
type ExportRow struct {
	Item       ListItem
	Driver     Driver
	OfficeName *string
}

// Each calls fn for every driver of the list's filtered set, in the list's
// order (lp's filters and sort; its paging is ignored), reading batches of
// the list's own statement after its keyset cursor inside one read-only
// snapshot, so the rows are consistent and memory stays flat. The checks
// (permission, then read's parameters and the filter values: 403, 400,
// 422) come first, before fn is called. The full record is withheld from
// the caller as on a read.
func (s *Service) Each(ctx context.Context, p auth.Principal, read func(*ListParams) error, fn func(ExportRow) error) error {
	only, err := collection(p, auth.DriversRead)
	if err != nil {
		return err
	}
	var lp ListParams
	if err := read(&lp); err != nil {
		return err
	}
	return s.each(ctx, p, only, lp, fn)
}

// each is Each once the checks of the collection have passed; only is
// its narrowing to a caller's own driver (collection).
func (s *Service) each(ctx context.Context, p auth.Principal, only *uuid.UUID, lp ListParams, fn func(ExportRow) error) error {
	if err := lp.normalize(); err != nil {
		return err
	}
	if lp.SortBy == "" {
		lp.SortBy = "internal_number"
	}
	if lp.SortOrder == "" {
		lp.SortOrder = "asc"
	}
	lp.Page = paging.Request{Keyset: true, Size: exportBatch}
	hideExpiry := !expiryShown(p)
	tx, err := s.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("export drivers: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var after *cursor
	for {
		q := listQuery{params: lp, companyID: p.CompanyID, only: only, after: after}
		items, keys, _, err := q.run(ctx, tx)
		if err != nil {
			return err
		}
		more := len(items) > lp.Page.Size
		if more {
			items, keys = items[:lp.Page.Size], keys[:lp.Page.Size]
		}
		full, err := loadForExport(ctx, tx, p.CompanyID, items)
		if err != nil {
			return err
		}
		for _, it := range items {
			if hideExpiry {
				it.NextExpiry = nil
			}
			row := full[it.ID]
			row.Item = it
			row.Driver = row.Driver.forCaller(p)
			if err := fn(row); err != nil {
				return err
			}
		}
		if !more {
			return nil
		}
		last := len(items) - 1
		after = &cursor{SortBy: lp.SortBy, SortOrder: lp.SortOrder, Key: keys[last], ID: items[last].ID}
	}
}

// loadForExport reads the full records of a batch of list items.
func loadForExport(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, items []ListItem) (map[uuid.UUID]ExportRow, error) {
	ids := make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	rows, err := db.Query(ctx, `SELECT `+driverColumns+`, o.name
		FROM drivers d
		LEFT JOIN offices o ON o.company_id = d.company_id AND o.id = d.office_id
		WHERE d.company_id = $1 AND d.id = ANY ($2::uuid[])`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("export drivers: %w", err)
	}
	defer rows.Close()
	out := make(map[uuid.UUID]ExportRow, len(items))
	for rows.Next() {
		var r ExportRow
		d := &r.Driver
		if err := rows.Scan(&d.ID, &d.CompanyID, &d.OfficeID, &d.InternalNumber, &d.FirstName, &d.LastName,
			&d.MiddleName, &d.BirthDate, &d.Citizenship, &d.RodneCislo, &d.Email, &d.Phone, &d.RegistrationAddress,
			&d.ResidenceAddress, &d.Status, &d.HireDate, &d.FireDate, &d.ContractFrom, &d.ContractTo, &d.ContractIndefinite,
			&d.WorkLocation, &d.BankCountry, &d.BankAccount, &d.IBAN, &d.SWIFT, &d.Flags, &d.Tags, &d.Language,
			&d.CreatedAt, &d.UpdatedAt, &r.OfficeName); err != nil {
			return nil, fmt.Errorf("export drivers: %w", err)
		}
		out[d.ID] = r
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("export drivers: %w", err)
	}
	return out, nil
}

// ExportColumns are the columns of a drivers export, by field name; the
// header is the catalogue's "drivers.field.<name>". The import reads the same
// headers back (docs/import-export.md), so an exported file can be edited
// and imported. The personal fields are left out for a caller who may not
// read them.
var ExportColumns = []string{"internal_number", "first_name", "middle_name", "last_name", "email", "phone",
	"citizenship", "status", "office", "hire_date", "fire_date", "contract_from", "contract_to", "contract_indefinite",
	"work_location", "tags", "language", "birth_date", "rodne_cislo", "registration_address", "residence_address",
	"bank_country", "bank_account", "iban", "swift",
	"is_ready", "documents_valid", "documents_warning", "documents_expiring_soon", "documents_expired",
	"documents_no_data", "next_expiry_type", "next_expiry_date"}

// exportColumnsFor is ExportColumns less what the caller may not read.
func exportColumnsFor(p auth.Principal) []string {
	personal, expiry := personalShown(p), expiryShown(p)
	var cols []string
	for _, c := range ExportColumns {
		if !personal && isPersonal(c) || !expiry && (c == "next_expiry_type" || c == "next_expiry_date") {
			continue
		}
		cols = append(cols, c)
	}
	return cols
}

func isPersonal(field string) bool {
	for _, f := range auth.PersonalFields {
		if f == field {
			return true
		}
	}
	return false
}

// Export writes the filtered drivers as a table (headers and words in
// lang) of the caller's company. Like finance's export, the checks come
// first (the role, then read's parameters) and start is called only when
// they passed; then rows stream one at a time.
func (s *Service) Export(ctx context.Context, p auth.Principal, read func(*ListParams) error, lang i18n.Lang, start func() (export.Writer, error)) error {
	cols := exportColumnsFor(p)
	var w export.Writer
	var types documents.TypeNames
	open := func() error {
		var err error
		if w, err = start(); err != nil {
			return err
		}
		// The list's checks have passed (open runs on its first row or
		// after it).
		if types, err = documents.LoadTypeNames(ctx, s.db, p.CompanyID); err != nil {
			return err
		}
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = lang.T("drivers.field." + c)
		}
		return w.Header(names)
	}
	err := s.Each(ctx, p, read, func(r ExportRow) error {
		if w == nil {
			if err := open(); err != nil {
				return err
			}
		}
		cells := make([]export.Cell, len(cols))
		for i, c := range cols {
			cells[i] = exportCell(r, c, lang, types)
		}
		return w.Row(cells)
	})
	if err != nil {
		return err
	}
	if w == nil {
		if err := open(); err != nil {
			return err
		}
	}
	return w.Close()
}

// yesNo is a boolean in words of lang.
func yesNo(b bool, lang i18n.Lang) export.Cell {
	if b {
		return export.Text(lang.T("export.yes"))
	}
	return export.Text(lang.T("export.no"))
}

func exportCell(r ExportRow, col string, lang i18n.Lang, types documents.TypeNames) export.Cell {
	d, it := r.Driver, r.Item
	switch col {
	case "internal_number":
		return export.Text(d.InternalNumber)
	case "first_name":
		return export.Text(d.FirstName)
	case "middle_name":
		return export.OptionalText(d.MiddleName)
	case "last_name":
		return export.Text(d.LastName)
	case "email":
		return export.Text(d.Email)
	case "phone":
		return export.OptionalText(d.Phone)
	case "citizenship":
		return export.OptionalText(d.Citizenship)
	case "status":
		return export.Text(lang.T("driver.status." + d.Status))
	case "office":
		return export.OptionalText(r.OfficeName)
	case "hire_date":
		return export.OptionalDate(d.HireDate)
	case "fire_date":
		return export.OptionalDate(d.FireDate)
	case "contract_from":
		return export.OptionalDate(d.ContractFrom)
	case "contract_to":
		return export.OptionalDate(d.ContractTo)
	case "contract_indefinite":
		return yesNo(d.ContractIndefinite, lang)
	case "work_location":
		return export.OptionalText(d.WorkLocation)
	case "tags":
		return export.Text(strings.Join(d.Tags, ", "))
	case "language":
		return export.OptionalText(d.Language)
	case "birth_date":
		return export.OptionalDate(d.BirthDate)
	case "rodne_cislo":
		return export.OptionalText(d.RodneCislo)
	case "registration_address":
		return export.OptionalText(d.RegistrationAddress)
	case "residence_address":
		return export.OptionalText(d.ResidenceAddress)
	case "bank_country":
		return export.OptionalText(d.BankCountry)
	case "bank_account":
		return export.OptionalText(d.BankAccount)
	case "iban":
		return export.OptionalText(d.IBAN)
	case "swift":
		return export.OptionalText(d.SWIFT)
	case "is_ready":
		return yesNo(it.IsReady, lang)
	case "documents_valid":
		return export.Int(int64(it.DocumentsSummary.Valid))
	case "documents_warning":
		return export.Int(int64(it.DocumentsSummary.Warning))
	case "documents_expiring_soon":
		return export.Int(int64(it.DocumentsSummary.ExpiringSoon))
	case "documents_expired":
		return export.Int(int64(it.DocumentsSummary.Expired))
	case "documents_no_data":
		return export.Int(int64(it.DocumentsSummary.NoData))
	case "next_expiry_type":
		if it.NextExpiry == nil {
			return export.Text("")
		}
		return export.Text(types.Name(lang, it.NextExpiry.DocumentType))
	case "next_expiry_date":
		if it.NextExpiry == nil {
			return export.Text("")
		}
		return export.Date(it.NextExpiry.ValidUntil)
	}
	return export.Text("")
}

// ComplianceColumns are the columns of the compliance report, by catalogue
// key "compliance.col.<name>".
var ComplianceColumns = []string{"internal_number", "last_name", "first_name", "driver_status", "document_type",
	"status", "valid_until", "days_left"}

// StatusFills are the XLSX background colours of the document statuses in
// the compliance report (documents.StatusFills).
var StatusFills = documents.StatusFills

// ComplianceRow is one driver's required document type.
type ComplianceRow struct {
	DocumentType string
	Status       string
	ValidUntil   *civil.Date
	DaysLeft     *int
}

// Compliance writes the compliance report: for every driver of the
// filtered list (lp as the drivers list takes it) one row per document type
// required of that driver (docs/alerts.md: the company's rules, with the
// non-EU set for drivers from outside the EU, EEA and Switzerland), with
// the document's status, valid_until and the days left until it (negative
// when expired), today being the company's. It needs the documents list
// permission; a driver gets its own rows. read fills the list's
// parameters once the caller may have the report.
func (s *Service) Compliance(ctx context.Context, p auth.Principal, read func(*ListParams) error, lang i18n.Lang, start func() (export.Writer, error)) error {
	only, err := collection(p, auth.DocumentsList)
	if err != nil {
		return err
	}
	// DriversRead is implied by DocumentsList for every role; the list
	// checks it again.
	if _, err := collection(p, auth.DriversRead); err != nil {
		return err
	}
	var lp ListParams
	if err := read(&lp); err != nil {
		return err
	}
	var w export.Writer
	var types documents.TypeNames
	open := func() error {
		var err error
		if w, err = start(); err != nil {
			return err
		}
		if types, err = documents.LoadTypeNames(ctx, s.db, p.CompanyID); err != nil {
			return err
		}
		names := make([]string, len(ComplianceColumns))
		for i, c := range ComplianceColumns {
			names[i] = lang.T("compliance.col." + c)
		}
		return w.Header(names)
	}
	// Batches of drivers as the list reads them, then their required
	// documents in one statement per batch.
	var batch []ExportRow
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		docs, err := s.requiredDocuments(ctx, p.CompanyID, batch)
		if err != nil {
			return err
		}
		for _, r := range batch {
			d := r.Driver
			for _, doc := range docs[d.ID] {
				fill := StatusFills[doc.Status]
				if err := w.Row([]export.Cell{
					export.Text(d.InternalNumber), export.Text(d.LastName), export.Text(d.FirstName),
					export.Text(lang.T("driver.status." + d.Status)),
					export.Text(types.Name(lang, doc.DocumentType)),
					export.Text(lang.T("doc.status." + doc.Status)).Fill(fill),
					export.OptionalDate(doc.ValidUntil), export.OptionalInt(doc.DaysLeft),
				}); err != nil {
					return err
				}
			}
		}
		batch = batch[:0]
		return nil
	}
	err = s.each(ctx, p, only, lp, func(r ExportRow) error {
		if w == nil {
			if err := open(); err != nil {
				return err
			}
		}
		batch = append(batch, r)
		if len(batch) == exportBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	if w == nil {
		if err := open(); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return w.Close()
}

// requiredDocuments returns, per driver of the batch, its required
// document types in the company's type order (konvoj_document_type_order:
// the tag-scoped ones among the others), with their effective status, read
// from the stored effective dates (document_effective, migrations/00039_document_effective.sql)
// instead of working every driver's chains out; a type the driver has no
// document of (or a retired one) is no_data.
func (s *Service) requiredDocuments(ctx context.Context, companyID uuid.UUID, batch []ExportRow) (map[uuid.UUID][]ComplianceRow, error) {
	ids := make([]uuid.UUID, len(batch))
	for i, r := range batch {
		ids[i] = r.Driver.ID
	}
	rows, err := s.db.Query(ctx, `WITH co AS MATERIALIZED (`+companyFacts+` WHERE c.id = $1),
		o AS MATERIALIZED (SELECT konvoj_document_type_order($1) AS type_order)
		SELECT d.id, t.type,
			CASE WHEN e.document_id IS NULL THEN 'no_data' ELSE konvoj_document_status(e.has_file, e.until, co.today) END,
			dd.valid_until, dd.valid_until - co.today
		FROM drivers d
		CROSS JOIN co
		CROSS JOIN o
		CROSS JOIN LATERAL unnest(`+requiredOf+`) t(type)
		LEFT JOIN driver_documents dd ON dd.company_id = d.company_id AND dd.driver_id = d.id AND dd.type = t.type
		LEFT JOIN document_effective e ON e.document_id = dd.id AND e.company_id = d.company_id
		WHERE d.company_id = $1 AND d.id = ANY ($2::uuid[])
		ORDER BY d.id, array_position(o.type_order, t.type)`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("compliance report: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID][]ComplianceRow{}
	for rows.Next() {
		var id uuid.UUID
		var r ComplianceRow
		if err := rows.Scan(&id, &r.DocumentType, &r.Status, &r.ValidUntil, &r.DaysLeft); err != nil {
			return nil, fmt.Errorf("compliance report: %w", err)
		}
		out[id] = append(out[id], r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("compliance report: %w", err)
	}
	return out, nil
}
