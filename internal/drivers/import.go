package drivers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// The driver import (docs/import-export.md): rows of a file, already
// matched to fields, are checked with the same rules as a create or update
// and, when no row has an error, written in one transaction.

// ImportFields are the driver columns an import reads, by field name. office
// is an office's name; the others are the API's fields. Document columns
// are "<type>_number" and "<type>_valid_until" (DocumentColumns).
var ImportFields = []string{"internal_number", "first_name", "middle_name", "last_name", "email", "phone",
	"citizenship", "status", "office", "office_id", "hire_date", "fire_date", "contract_from", "contract_to",
	"contract_indefinite", "work_location", "tags", "language", "birth_date", "rodne_cislo",
	"registration_address", "residence_address", "bank_country", "bank_account", "iban", "swift"}

// DocumentColumns are the import's document columns: for each document type
// its number and its valid_until.
func DocumentColumns() []string {
	var cols []string
	for _, t := range documents.Types {
		cols = append(cols, t+"_number", t+"_valid_until")
	}
	return cols
}

// ImportRow is one data row: Line is its row number in the file (the header
// is row 1) and Values the text of its non-empty cells by field.
type ImportRow struct {
	Line   int
	Values map[string]string
}

// ImportError is a problem of one row and field.
type ImportError struct {
	Row     int
	Field   string
	Message i18n.Message
}

// ImportResult is what an import did, or would do in a dry run.
type ImportResult struct {
	Rows, Created, Updated, Unchanged int
	Errors                            []ImportError
}

// ImportOptions are an import's settings.
type ImportOptions struct {
	// ID is the import's id, named in its import.completed audit row.
	ID uuid.UUID
	// DryRun checks and counts without writing.
	DryRun bool
	// Progress is called with the rows done so far (nil: not reported).
	Progress func(done int)
	// Finish runs in the import's transaction after the rows were written
	// (a real run without errors), to store the result with them.
	Finish func(ctx context.Context, tx pgx.Tx, res ImportResult) error
}

// importTarget is what a row does.
type importTarget struct {
	row      ImportRow
	existing *Driver // nil: a new driver
	next     Driver
	docs     map[string]docChange // by document type
	changed  bool
}

// docChange is the metadata an import sets on one document.
type docChange struct {
	number, validUntil *string // nil: not in the row
	numberVal          *string
	untilVal           *civil.Date
}

// storedDoc is a document's importable metadata as stored.
type storedDoc struct {
	number     *string
	validFrom  *civil.Date
	validUntil *civil.Date
}

// Import checks every row and, unless it is a dry run or a row has an
// error, creates and updates the drivers in one transaction with their
// audit rows and one import.completed row: all or nothing. A row updates
// the live driver with its internal_number, else the one with its e-mail,
// else creates a driver (a new DRV- number; the file's number is not kept).
// An empty cell leaves the field as it is. company is the caller's company
// as Principal.Scope(auth.DriversImport) proved it.
func (s *Service) Import(ctx context.Context, p auth.Principal, company auth.Ref, rows []ImportRow, o ImportOptions) (ImportResult, error) {
	if err := company.Check(p, auth.DriversImport); err != nil {
		return ImportResult{}, err
	}
	res := ImportResult{Rows: len(rows)}
	existing, err := loadAllDrivers(ctx, s.db, company.CompanyID())
	if err != nil {
		return res, err
	}
	offices, err := loadOffices(ctx, s.db, company.CompanyID())
	if err != nil {
		return res, err
	}
	byNumber, byEmail := map[string]*Driver{}, map[string]*Driver{}
	for i := range existing {
		d := &existing[i]
		byNumber[strings.ToUpper(d.InternalNumber)] = d
		byEmail[strings.ToLower(d.Email)] = d
	}
	needDocs := false
	for _, r := range rows {
		for f := range r.Values {
			if isDocumentColumn(f) {
				needDocs = true
			}
		}
	}
	var stored map[uuid.UUID]map[string]storedDoc
	if needDocs {
		if stored, err = loadDocumentMetadata(ctx, s.db, company.CompanyID()); err != nil {
			return res, err
		}
	}
	addErr := func(row int, field string, m i18n.Message) {
		res.Errors = append(res.Errors, ImportError{Row: row, Field: field, Message: m})
	}
	targets := make([]importTarget, 0, len(rows))
	seenEmail := map[string]int{}     // e-mail → first row
	seenDriver := map[uuid.UUID]int{} // existing driver → first row
	for i, r := range rows {
		if o.Progress != nil && i%500 == 0 {
			o.Progress(i / 2) // checking is the first half of the work
		}
		t := importTarget{row: r}
		if n := strings.ToUpper(strings.TrimSpace(r.Values["internal_number"])); n != "" {
			t.existing = byNumber[n]
		}
		email := strings.ToLower(strings.TrimSpace(r.Values["email"]))
		if t.existing == nil && email != "" {
			t.existing = byEmail[email]
		}
		var in Input
		var v apperr.Validation
		for f, text := range r.Values {
			if f == "internal_number" || isDocumentColumn(f) {
				continue
			}
			if err := importValue(&in, &v, f, text, offices); err != nil {
				return res, err
			}
		}
		creating := t.existing == nil
		if creating {
			t.next = Driver{CompanyID: company.CompanyID(), Status: "active", Flags: json.RawMessage(`{}`)}
		} else {
			t.next = *t.existing
		}
		var oldOffice *uuid.UUID
		if !creating {
			oldOffice = t.existing.OfficeID
		}
		c := checkInput(in, &t.next, creating, oldOffice, func(id uuid.UUID) (bool, error) { _, ok := offices.byID[id]; return ok, nil })
		if c.err != nil && apperr.KindOf(c.err) != apperr.KindValidation {
			return res, c.err
		}
		for f, msgs := range v.Messages() {
			for _, m := range msgs {
				addErr(r.Line, f, m)
			}
		}
		for f, msgs := range c.v.Messages() {
			if v.Has(f) || (f == "office_id" && r.Values["office_id"] == "" && r.Values["office"] != "") {
				continue
			}
			for _, m := range msgs {
				addErr(r.Line, f, m)
			}
		}
		// E-mails are unique among live drivers: within the file (both rows
		// are marked) and against drivers the file does not change.
		if e := strings.ToLower(t.next.Email); e != "" {
			if first, dup := seenEmail[e]; dup {
				addErr(r.Line, "email", i18n.M("msg.imports.email_twice", "row", first))
				if first > 0 {
					addErr(first, "email", i18n.M("msg.imports.email_twice", "row", r.Line))
					seenEmail[e] = -first // the first row is marked once
				}
			} else {
				seenEmail[e] = r.Line
				if other, ok := byEmail[e]; ok && (t.existing == nil || other.ID != t.existing.ID) {
					addErr(r.Line, "email", i18n.M("msg.drivers.email_taken"))
				}
			}
		}
		if t.existing != nil {
			if first, dup := seenDriver[t.existing.ID]; dup {
				addErr(r.Line, "internal_number", i18n.M("msg.imports.driver_twice", "row", first, "number", t.existing.InternalNumber))
			} else {
				seenDriver[t.existing.ID] = r.Line
			}
		}
		var docStore map[string]storedDoc
		if t.existing != nil {
			docStore = stored[t.existing.ID]
		}
		docs, docChanged := importDocuments(r, docStore, addErr)
		t.docs = docs
		if creating {
			t.changed = true
		} else {
			_, newValues := audit.Diff(t.existing.auditValues(), t.next.auditValues())
			t.changed = len(newValues) > 0 || docChanged
		}
		switch {
		case creating:
			res.Created++
		case t.changed:
			res.Updated++
		default:
			res.Unchanged++
		}
		targets = append(targets, t)
	}
	slices.SortStableFunc(res.Errors, func(a, b ImportError) int { return a.Row - b.Row })
	if o.DryRun || len(res.Errors) > 0 {
		if o.Progress != nil {
			o.Progress(len(rows))
		}
		return res, nil
	}
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		var changed []importChange
		if err := s.writeImport(ctx, tx, p, company, targets, o, &changed); err != nil {
			return err
		}
		if err := emitImported(ctx, tx, company, changed); err != nil {
			return err
		}
		// The row belongs to the company (an import is no audited entity of
		// its own); new_values names the import.
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "company", EntityID: company.CompanyID(), Action: "import.completed",
			NewValues: map[string]any{"import_id": o.ID, "rows": res.Rows, "created": res.Created, "updated": res.Updated, "unchanged": res.Unchanged}}); err != nil {
			return err
		}
		if o.Finish != nil {
			return o.Finish(ctx, tx, res)
		}
		return nil
	})
	if err != nil {
		return ImportResult{}, err
	}
	return res, nil
}

// writeImport writes the rows that change something, pipelined in batches.
// New drivers get their numbers in one step (the company row stays locked
// until the transaction ends, as for a single create).
// importChange is a driver an import created or updated, for its webhook
// event.
type importChange struct {
	id      uuid.UUID
	created bool
}

// emitImported writes the driver.created and driver.updated events of an
// import (docs/webhooks.md), reading the drivers back only when an
// endpoint wants them.
func emitImported(ctx context.Context, tx pgx.Tx, company auth.Ref, changed []importChange) error {
	wanted, err := webhooks.Wanted(ctx, tx, company.CompanyID(), webhooks.DriverCreated, webhooks.DriverUpdated)
	if err != nil || !wanted {
		return err
	}
	for _, c := range changed {
		d, err := getDriver(ctx, tx, company, c.id, false)
		if err != nil {
			return err
		}
		event := webhooks.DriverUpdated
		if c.created {
			event = webhooks.DriverCreated
		}
		if err := webhooks.Emit(ctx, tx, company.CompanyID(), event, d); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) writeImport(ctx context.Context, tx pgx.Tx, p auth.Principal, company auth.Ref, targets []importTarget, o ImportOptions,
	changed *[]importChange) error {
	creates := 0
	for _, t := range targets {
		if t.existing == nil {
			creates++
		}
	}
	var seq int64
	if creates > 0 {
		if err := tx.QueryRow(ctx, `UPDATE companies SET driver_number_seq = driver_number_seq + $2 WHERE id = $1
			RETURNING driver_number_seq - $2`, company.CompanyID(), creates).Scan(&seq); err != nil {
			return fmt.Errorf("import: reserve driver numbers: %w", err)
		}
	}
	const batchSize = 500
	batch := &pgx.Batch{}
	flush := func() error {
		if batch.Len() == 0 {
			return nil
		}
		err := tx.SendBatch(ctx, batch).Close()
		batch = &pgx.Batch{}
		if err != nil {
			return wrapWriteErr(err, "import drivers")
		}
		return nil
	}
	for i, t := range targets {
		if o.Progress != nil && i%500 == 0 {
			o.Progress(len(targets)/2 + i/2)
		}
		if !t.changed {
			continue
		}
		d := t.next
		var oldValues, newValues map[string]any
		action := "updated"
		if t.existing == nil {
			seq++
			d.ID = uuid.New()
			d.InternalNumber = fmt.Sprintf("DRV-%04d", seq)
			vals := writableValues(d)
			args := append([]any{d.ID, d.CompanyID, d.InternalNumber, seq}, vals...)
			batch.Queue(`INSERT INTO drivers (id, company_id, internal_number, internal_seq, `+writableColumns+`)
				VALUES ($1, $2, $3, $4, `+placeholders(5, len(vals))+`)`, args...)
			batch.Queue(`INSERT INTO driver_documents (company_id, driver_id, type) SELECT $1, $2, t FROM unnest($3::text[]) AS t`,
				d.CompanyID, d.ID, documents.Types)
			action, newValues = "created", d.auditValues()
		} else {
			oldValues, newValues = audit.Diff(t.existing.auditValues(), d.auditValues())
			if len(newValues) > 0 {
				vals := writableValues(d)
				batch.Queue(`UPDATE drivers SET (`+writableColumns+`) = ROW(`+placeholders(3, len(vals))+`)
					WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL`, append([]any{company.CompanyID(), d.ID}, vals...)...)
			}
		}
		for typ, c := range t.docs {
			sets, args := []string{}, []any{d.CompanyID, d.ID, typ}
			if c.number != nil {
				args = append(args, c.numberVal)
				sets = append(sets, fmt.Sprintf("number = $%d", len(args)))
			}
			if c.validUntil != nil {
				args = append(args, c.untilVal)
				sets = append(sets, fmt.Sprintf("valid_until = $%d", len(args)))
			}
			batch.Queue(`UPDATE driver_documents SET `+strings.Join(sets, ", ")+`
				WHERE company_id = $1 AND driver_id = $2 AND type = $3`, args...)
		}
		if len(newValues) > 0 || action == "created" {
			*changed = append(*changed, importChange{id: d.ID, created: action == "created"})
			if err := audit.Queue(batch, p, audit.Entry{EntityType: entityType, EntityID: d.ID, Action: action,
				OldValues: oldValues, NewValues: newValues}); err != nil {
				return err
			}
		}
		for typ, c := range t.docs {
			docNew := map[string]any{"document_type": typ}
			if c.number != nil {
				docNew["number"] = c.numberVal
			}
			if c.validUntil != nil {
				docNew["valid_until"] = c.untilVal
			}
			if err := audit.Queue(batch, p, audit.Entry{EntityType: "driver", EntityID: d.ID, Action: "document.imported",
				NewValues: docNew}); err != nil {
				return err
			}
		}
		if batch.Len() >= batchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// importOffices are the company's live offices, by id and by name.
type importOffices struct {
	byID   map[uuid.UUID]bool
	byName map[string]uuid.UUID
}

func loadOffices(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (importOffices, error) {
	o := importOffices{byID: map[uuid.UUID]bool{}, byName: map[string]uuid.UUID{}}
	rows, err := db.Query(ctx, `SELECT id, name FROM offices WHERE company_id = $1 AND deleted_at IS NULL`, companyID)
	if err != nil {
		return o, fmt.Errorf("import: offices: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return o, fmt.Errorf("import: offices: %w", err)
		}
		o.byID[id] = true
		o.byName[strings.ToLower(strings.TrimSpace(name))] = id
	}
	return o, rows.Err()
}

// loadAllDrivers reads every live driver of the company (full records).
func loadAllDrivers(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) ([]Driver, error) {
	rows, err := db.Query(ctx, `SELECT `+driverColumns+` FROM drivers d WHERE d.company_id = $1 AND d.deleted_at IS NULL`, companyID)
	if err != nil {
		return nil, fmt.Errorf("import: drivers: %w", err)
	}
	defer rows.Close()
	var out []Driver
	for rows.Next() {
		var d Driver
		if err := rows.Scan(&d.ID, &d.CompanyID, &d.OfficeID, &d.InternalNumber, &d.FirstName, &d.LastName,
			&d.MiddleName, &d.BirthDate, &d.Citizenship, &d.RodneCislo, &d.Email, &d.Phone, &d.RegistrationAddress,
			&d.ResidenceAddress, &d.Status, &d.HireDate, &d.FireDate, &d.ContractFrom, &d.ContractTo, &d.ContractIndefinite,
			&d.WorkLocation, &d.BankCountry, &d.BankAccount, &d.IBAN, &d.SWIFT, &d.Flags, &d.Tags, &d.Language,
			&d.CreatedAt, &d.UpdatedAt); err != nil {
			return nil, fmt.Errorf("import: drivers: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// loadDocumentMetadata reads number, valid_from and valid_until of every
// document of the company's live drivers.
func loadDocumentMetadata(ctx context.Context, db postgres.DBTX, companyID uuid.UUID) (map[uuid.UUID]map[string]storedDoc, error) {
	rows, err := db.Query(ctx, `SELECT dd.driver_id, dd.type, dd.number, dd.valid_from, dd.valid_until
		FROM driver_documents dd JOIN drivers d ON d.company_id = dd.company_id AND d.id = dd.driver_id
		WHERE dd.company_id = $1 AND d.deleted_at IS NULL`, companyID)
	if err != nil {
		return nil, fmt.Errorf("import: documents: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID]map[string]storedDoc{}
	for rows.Next() {
		var id uuid.UUID
		var typ string
		var s storedDoc
		if err := rows.Scan(&id, &typ, &s.number, &s.validFrom, &s.validUntil); err != nil {
			return nil, fmt.Errorf("import: documents: %w", err)
		}
		if out[id] == nil {
			out[id] = map[string]storedDoc{}
		}
		out[id][typ] = s
	}
	return out, rows.Err()
}

func isDocumentColumn(field string) bool {
	for _, t := range documents.Types {
		if field == t+"_number" || field == t+"_valid_until" {
			return true
		}
	}
	return false
}

// importDocuments reads a row's document columns; changed says whether any
// differs from what is stored.
func importDocuments(r ImportRow, stored map[string]storedDoc, addErr func(int, string, i18n.Message)) (map[string]docChange, bool) {
	docs := map[string]docChange{}
	changed := false
	for _, typ := range documents.Types {
		num, hasNum := r.Values[typ+"_number"]
		until, hasUntil := r.Values[typ+"_valid_until"]
		if !hasNum && !hasUntil {
			continue
		}
		var c docChange
		cur := stored[typ]
		if hasNum {
			field := typ + "_number"
			n := strings.TrimSpace(num)
			switch {
			case strings.ContainsFunc(n, unicode.IsControl):
				addErr(r.Line, field, i18n.M("msg.documents.number_chars"))
			case utf8.RuneCountInString(n) > 100:
				addErr(r.Line, field, i18n.M("msg.common.too_long", "field", i18n.M("field.document.number"), "max", 100))
			default:
				c.number, c.numberVal = &n, &n
				if cur.number == nil || *cur.number != n {
					changed = true
				}
			}
		}
		if hasUntil {
			field := typ + "_valid_until"
			day, ok := ParseImportDate(until)
			switch {
			case !ok:
				addErr(r.Line, field, i18n.M("msg.common.not_date", "field", i18n.M("field.document.valid_until")))
			case cur.validFrom != nil && day.Before(*cur.validFrom):
				addErr(r.Line, field, i18n.M("msg.documents.until_before_from"))
			default:
				iso := day.String()
				c.validUntil, c.untilVal = &iso, &day
				if cur.validUntil == nil || *cur.validUntil != day {
					changed = true
				}
			}
		}
		if c.number != nil || c.validUntil != nil {
			docs[typ] = c
		}
	}
	return docs, changed
}
