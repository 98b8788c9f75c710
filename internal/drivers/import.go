package drivers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
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
	"github.com/konvoj/konvoj/internal/units"
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

// DocumentColumns are the import's document columns of the document types
// (a company's: documents.LiveTypes): for each its number and its
// valid_until.
func DocumentColumns(types []string) []string {
	cols := make([]string, 0, 2*len(types))
	for _, t := range types {
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

// ImportResult is what an import did, or would do in a dry run: the
// counts, the errors by row and what each row without an error changes.
type ImportResult struct {
	Rows, Created, Updated, Unchanged int
	Errors                            []ImportError
	Changes                           []RowChange
}

// The modes of an import: how a real run treats rows with errors.
const (
	// ModeAllOrNothing changes nothing while a row has an error.
	ModeAllOrNothing = "all_or_nothing"
	// ModeValidRows applies the rows without errors and reports the others.
	ModeValidRows = "valid_rows"
)

// The actions of a row.
const (
	ActionCreate    = "create"
	ActionUpdate    = "update"
	ActionUnchanged = "unchanged"
)

// RowChange is what one row of the file does (docs/import-export.md): it
// creates a driver, updates one (Fields: each value it changes, old and
// new, by field name, the document columns' too) or leaves one unchanged.
// DriverID is the driver's (a new driver's only once a real run created
// it). An import of vehicles or trailers answers the same (Holder names
// the kind, and DriverID is then the vehicle's or trailer's id, written as
// vehicle_id or trailer_id: RowChange.MarshalJSON).
type RowChange struct {
	Row      int                    `json:"row"`
	Action   string                 `json:"action"`
	DriverID *uuid.UUID             `json:"driver_id"`
	Fields   map[string]FieldChange `json:"fields"`
	// Holder is "vehicle" or "trailer" for a fleet import, "" for drivers.
	Holder string `json:"-"`
}

// FieldChange is a field's value before and after a row, as the API writes
// them (null for none).
type FieldChange struct {
	Old json.RawMessage `json:"old"`
	New json.RawMessage `json:"new"`
}

// ImportOptions are an import's settings.
type ImportOptions struct {
	// ID is the import's id, named in its import.completed audit row.
	ID uuid.UUID
	// DryRun checks and counts without writing.
	DryRun bool
	// ValidRows applies the rows without errors and skips the others
	// (ModeValidRows); the counts then say what was (or would be) applied.
	// Otherwise a row with an error changes nothing.
	ValidRows bool
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
	// id is the driver's: the existing one's, or the new driver's.
	id   uuid.UUID
	next Driver
	docs map[string]docChange // by document type
	// oldValues and newValues are the driver fields an update changes
	// (audit.Diff); fields every value it changes, documents too.
	oldValues, newValues map[string]any
	fields               map[string]FieldChange
	changed              bool
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
// An empty cell leaves the field as it is. The caller's company is the
// one imported into.
func (s *Service) Import(ctx context.Context, p auth.Principal, rows []ImportRow, o ImportOptions) (ImportResult, error) {
	if _, err := collection(p, auth.DriversImport); err != nil {
		return ImportResult{}, err
	}
	companyID := p.CompanyID
	res := ImportResult{Rows: len(rows)}
	existing, err := loadAllDrivers(ctx, s.db, companyID)
	if err != nil {
		return res, err
	}
	offices, err := loadOffices(ctx, s.db, companyID)
	if err != nil {
		return res, err
	}
	byNumber, byEmail := map[string]*Driver{}, map[string]*Driver{}
	for i := range existing {
		d := &existing[i]
		byNumber[strings.ToUpper(d.InternalNumber)] = d
		byEmail[strings.ToLower(d.Email)] = d
	}
	// The document columns of the company's types in use, custom ones too.
	types, _, err := documents.LiveTypes(ctx, s.db, companyID)
	if err != nil {
		return res, err
	}
	noExpiry, err := documents.WithoutExpiry(ctx, s.db, companyID)
	if err != nil {
		return res, err
	}
	docColumns := map[string]bool{}
	for _, c := range DocumentColumns(types) {
		docColumns[c] = true
	}
	needDocs := false
	for _, r := range rows {
		for f := range r.Values {
			if docColumns[f] {
				needDocs = true
			}
		}
	}
	var stored map[uuid.UUID]map[string]storedDoc
	if needDocs {
		if stored, err = loadDocumentMetadata(ctx, s.db, companyID); err != nil {
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
			if f == "internal_number" || docColumns[f] {
				continue
			}
			if err := importValue(&in, &v, f, text, offices); err != nil {
				return res, err
			}
		}
		creating := t.existing == nil
		if creating {
			t.next = Driver{CompanyID: companyID, Status: "active", Flags: json.RawMessage(`{}`)}
		} else {
			t.next = *t.existing
		}
		var oldOffice *uuid.UUID
		if !creating {
			oldOffice = t.existing.OfficeID
		}
		c := checkInput(in, &t.next, creating, oldOffice, FactsOf(p), func(id uuid.UUID) (bool, error) { _, ok := offices.byID[id]; return ok, nil })
		if c.err != nil && apperr.KindOf(c.err) != apperr.KindValidation {
			return res, c.err
		}
		for _, f := range v.Fields() {
			for _, m := range v.Messages()[f] {
				addErr(r.Line, f, m)
			}
		}
		for _, f := range c.v.Fields() {
			msgs := c.v.Messages()[f]
			if v.Has(f) || (f == "office_id" && r.Values["office_id"] == "" && r.Values["office"] != "") {
				continue
			}
			for _, m := range msgs {
				addErr(r.Line, f, importWording(f, r.Values[f], m))
			}
		}
		// E-mails are unique among live drivers: within the file (both rows
		// are marked) and against drivers the file does not change. A row
		// whose number is one driver's and e-mail another's changes neither.
		twoDrivers := false
		if other, ok := byEmail[email]; ok && t.existing != nil && other.ID != t.existing.ID {
			twoDrivers = true
			addErr(r.Line, "internal_number", i18n.M("msg.imports.two_drivers", "number", t.existing.InternalNumber,
				"number_driver", t.existing.name(), "email", other.Email, "email_driver", other.name()+" ("+other.InternalNumber+")"))
		}
		if e := strings.ToLower(t.next.Email); e != "" && !twoDrivers {
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
		t.docs, t.fields = importDocuments(r, types, noExpiry, docStore, addErr)
		if creating {
			t.id, t.changed = uuid.New(), true
		} else {
			t.id = t.existing.ID
			t.oldValues, t.newValues = audit.Diff(t.existing.auditValues(), t.next.auditValues())
			for f, nv := range t.newValues {
				t.fields[f] = fieldChange(t.oldValues[f], nv)
			}
			t.changed = len(t.fields) > 0
		}
		targets = append(targets, t)
	}
	slices.SortStableFunc(res.Errors, func(a, b ImportError) int { return a.Row - b.Row })
	bad := map[int]bool{} // rows with an error
	for _, e := range res.Errors {
		bad[e.Row] = true
	}
	// Without errors, or applying the valid rows, every row counts (as it
	// always did when all or nothing: what the file would do); else the
	// rows with errors are skipped and counted apart.
	apply := targets[:0:0]
	for _, t := range targets {
		if o.ValidRows && bad[t.row.Line] {
			continue
		}
		switch {
		case t.existing == nil:
			res.Created++
		case t.changed:
			res.Updated++
		default:
			res.Unchanged++
		}
		if !bad[t.row.Line] {
			apply = append(apply, t)
			res.Changes = append(res.Changes, t.change(o.DryRun))
		}
	}
	if o.DryRun || (len(res.Errors) > 0 && !o.ValidRows) {
		if o.Progress != nil {
			o.Progress(len(rows))
		}
		return res, nil
	}
	targets = apply
	err = s.write(ctx, companyID, func(tx pgx.Tx) error {
		var changed []importChange
		if err := s.writeImport(ctx, tx, p, companyID, targets, o, &changed); err != nil {
			return err
		}
		if err := emitImported(ctx, tx, companyID, changed); err != nil {
			return err
		}
		if err := unitsAfterImport(ctx, tx, p, companyID, targets); err != nil {
			return err
		}
		// The row belongs to the company (an import is no audited entity of
		// its own); new_values names the import.
		completed := map[string]any{"import_id": o.ID, "rows": res.Rows, "created": res.Created, "updated": res.Updated, "unchanged": res.Unchanged}
		if o.ValidRows {
			completed["mode"], completed["skipped"] = ModeValidRows, len(bad)
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "company", EntityID: companyID, Action: "import.completed",
			NewValues: completed}); err != nil {
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

// unitsAfterImport follows an import's changes of drivers in active
// transport units (docs/dispatch.md) as a driver's update does: a driver
// the import terminates leaves its unit, and the changes of readiness its
// statuses, citizenships, tags and documents caused are told in the
// import's transaction, not by the scheduler's next look. An import that
// updates no driver costs no statement; one that does, one statement when
// no unit's readiness changed.
func unitsAfterImport(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID uuid.UUID, targets []importTarget) error {
	updated := false
	for _, t := range targets {
		if t.existing == nil || !t.changed {
			continue
		}
		updated = true
		if t.next.Status == "terminated" && t.existing.Status != "terminated" {
			if err := units.EndOf(ctx, tx, p, companyID, "driver_id", t.existing.ID); err != nil {
				return err
			}
		}
	}
	if !updated {
		return nil
	}
	return units.Flush(ctx, tx, companyID)
}

// importChange is a driver an import created or updated, for its webhook
// event.
type importChange struct {
	id      uuid.UUID
	created bool
}

// emitImported writes the driver.created and driver.updated events of an
// import (docs/webhooks.md; the live streams record every event): the
// drivers read back and their events written importChunk at a time.
func emitImported(ctx context.Context, tx pgx.Tx, companyID uuid.UUID, changed []importChange) error {
	for chunk := range slices.Chunk(changed, importChunk) {
		at := map[uuid.UUID]int{} // the file's order
		ids := make([]uuid.UUID, len(chunk))
		for i, c := range chunk {
			ids[i], at[c.id] = c.id, i
		}
		drivers, err := loadDriverRows(ctx, tx, companyID, ids)
		if err != nil {
			return err
		}
		slices.SortFunc(drivers, func(a, b Driver) int { return at[a.ID] - at[b.ID] })
		events := make([]webhooks.Event, len(drivers))
		for i, d := range drivers {
			events[i] = webhooks.Event{Type: webhooks.DriverUpdated, Data: d}
			if chunk[at[d.ID]].created {
				events[i].Type = webhooks.DriverCreated
			}
		}
		if err := webhooks.EmitMany(ctx, tx, companyID, events); err != nil {
			return err
		}
	}
	return nil
}

// importChunk is how many rows of the file the write phase handles per
// round: the new drivers, their document records, the updated drivers, the
// document metadata and the audit rows of a chunk are one statement each
// (INSERT … SELECT FROM unnest; COPY is refused under row-level security),
// and progress is reported after each chunk.
const importChunk = 500

// importWrite is what one chunk of an import writes.
type importWrite struct {
	created, updated []Driver
	seqs             []int64 // of created
	docs             docUpdates
	audit            []audit.Entry
	// analyze refreshes the planner's statistics of drivers once the new
	// drivers are written (migrations/00028_imports.sql).
	analyze bool
}

// docUpdates are document metadata changes as column arrays.
type docUpdates struct {
	driverIDs           []uuid.UUID
	types               []string
	setNumber, setUntil []bool
	numbers             []*string
	validUntil          []*civil.Date
}

// writeImport writes the rows that change something, chunk by chunk, in
// the import's transaction. New drivers get their numbers in one step (the
// company row stays locked until the transaction ends, as for a single
// create, so no document type is created meanwhile).
func (s *Service) writeImport(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID uuid.UUID, targets []importTarget, o ImportOptions,
	changed *[]importChange) error {
	creates := 0
	for _, t := range targets {
		if t.existing == nil {
			creates++
		}
	}
	var seq int64
	// The foreign keys of every row written (a driver's office and company,
	// a document's driver and company) are checked by cached plans, which
	// the connections' plan_cache_mode = force_custom_plan (internal/postgres)
	// would plan again for each of the rows. Their generic plans are right
	// whatever the company (a key's lookup, once the statistics know the
	// company's new drivers: konvoj_analyze_drivers), so the import's
	// transaction lets PostgreSQL keep them.
	if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = auto`); err != nil {
		return fmt.Errorf("import: plan cache mode: %w", err)
	}
	if creates > 0 {
		if err := tx.QueryRow(ctx, `UPDATE companies SET driver_number_seq = driver_number_seq + $2 WHERE id = $1
			RETURNING driver_number_seq - $2`, companyID, creates).Scan(&seq); err != nil {
			return fmt.Errorf("import: reserve driver numbers: %w", err)
		}
	}
	analyzed := creates <= importChunk
	for from := 0; from < len(targets); from += importChunk {
		if o.Progress != nil {
			o.Progress(len(targets)/2 + from/2)
		}
		// The first chunk with new drivers of a large import refreshes the
		// statistics.
		w := importWrite{analyze: !analyzed}
		for _, t := range targets[from:min(from+importChunk, len(targets))] {
			if !t.changed {
				continue
			}
			d := t.next
			oldValues, newValues := t.oldValues, t.newValues
			action := "updated"
			if t.existing == nil {
				seq++
				d.ID = t.id
				d.InternalNumber = fmt.Sprintf("DRV-%04d", seq)
				w.created, w.seqs = append(w.created, d), append(w.seqs, seq)
				action, newValues = "created", d.auditValues()
			} else {
				if len(newValues) > 0 {
					w.updated = append(w.updated, d)
				}
			}
			if len(newValues) > 0 || action == "created" {
				*changed = append(*changed, importChange{id: d.ID, created: action == "created"})
				w.audit = append(w.audit, audit.Entry{EntityType: entityType, EntityID: d.ID, Action: action,
					OldValues: oldValues, NewValues: newValues})
			}
			for _, typ := range slices.Sorted(maps.Keys(t.docs)) {
				c := t.docs[typ]
				w.docs.add(d.ID, typ, c)
				docNew := map[string]any{"document_type": typ}
				if c.number != nil {
					docNew["number"] = c.numberVal
				}
				if c.validUntil != nil {
					docNew["valid_until"] = c.untilVal
				}
				w.audit = append(w.audit, audit.Entry{EntityType: "driver", EntityID: d.ID, Action: "document.imported",
					NewValues: docNew})
			}
		}
		if err := w.exec(ctx, tx, p, companyID); err != nil {
			return err
		}
		analyzed = analyzed || len(w.created) > 0
	}
	return nil
}

func (u *docUpdates) add(driverID uuid.UUID, typ string, c docChange) {
	u.driverIDs = append(u.driverIDs, driverID)
	u.types = append(u.types, typ)
	u.setNumber = append(u.setNumber, c.number != nil)
	u.numbers = append(u.numbers, c.numberVal)
	u.setUntil = append(u.setUntil, c.validUntil != nil)
	u.validUntil = append(u.validUntil, c.untilVal)
}

// analyzeTables refreshes the planner's statistics of drivers and their
// documents when the chunk is to.
func (w *importWrite) analyzeTables(ctx context.Context, tx pgx.Tx) error {
	if !w.analyze {
		return nil
	}
	if _, err := tx.Exec(ctx, `SELECT konvoj_analyze_drivers()`); err != nil {
		return fmt.Errorf("import: statistics of drivers: %w", err)
	}
	return nil
}

// exec writes a chunk: the new drivers and their document records, the
// updated drivers, the document metadata (after the records exist), then
// the audit rows.
func (w *importWrite) exec(ctx context.Context, tx pgx.Tx, p auth.Principal, companyID uuid.UUID) error {
	if len(w.created) > 0 {
		names, arrays, args := driverArrays(w.created, 2)
		ids := make([]uuid.UUID, len(w.created))
		numbers := make([]string, len(w.created))
		for i, d := range w.created {
			ids[i], numbers[i] = d.ID, d.InternalNumber
		}
		n := len(args)
		_, err := tx.Exec(ctx, `INSERT INTO drivers (id, company_id, internal_number, internal_seq, `+writableColumns+`)
			SELECT u.id, $1, u.internal_number, u.internal_seq, `+bulkSelect+`
			FROM unnest(`+arrays+fmt.Sprintf(`, $%d::uuid[], $%d::text[], $%d::bigint[]`, n+2, n+3, n+4)+`)
				AS u(`+names+`, id, internal_number, internal_seq)`,
			append(append([]any{companyID}, args...), ids, numbers, w.seqs)...)
		if err != nil {
			return wrapWriteErr(err, "import: insert drivers")
		}
		// The statistics, before the document records check their drivers
		// and the metadata is written (migrations/00028_imports.sql).
		if err := w.analyzeTables(ctx, tx); err != nil {
			return err
		}
		if err := documents.CreateForDrivers(ctx, tx, companyID, ids); err != nil {
			return err
		}
		if err := w.analyzeTables(ctx, tx); err != nil {
			return err
		}
	}
	if len(w.updated) > 0 {
		names, arrays, args := driverArrays(w.updated, 2)
		ids := make([]uuid.UUID, len(w.updated))
		for i, d := range w.updated {
			ids[i] = d.ID
		}
		_, err := tx.Exec(ctx, `UPDATE drivers d SET (`+writableColumns+`) = ROW(`+bulkSelect+`)
			FROM unnest(`+arrays+fmt.Sprintf(`, $%d::uuid[]`, len(args)+2)+`) AS u(`+names+`, id)
			WHERE d.company_id = $1 AND d.id = u.id AND d.deleted_at IS NULL`,
			append(append([]any{companyID}, args...), ids)...)
		if err != nil {
			return wrapWriteErr(err, "import: update drivers")
		}
	}
	if u := w.docs; len(u.driverIDs) > 0 {
		// A column the row did not hold keeps its value; valid_until is
		// logged (document_validity_changes) only when it changes.
		_, err := tx.Exec(ctx, `UPDATE driver_documents dd SET
				number = CASE WHEN u.set_number THEN u.number ELSE dd.number END,
				valid_until = CASE WHEN u.set_until THEN u.valid_until ELSE dd.valid_until END
			FROM unnest($2::uuid[], $3::text[], $4::boolean[], $5::text[], $6::boolean[], $7::date[])
				AS u(driver_id, type, set_number, number, set_until, valid_until)
			WHERE dd.company_id = $1 AND dd.driver_id = u.driver_id AND dd.type = u.type`,
			companyID, u.driverIDs, u.types, u.setNumber, u.numbers, u.setUntil, u.validUntil)
		if err != nil {
			return fmt.Errorf("import: document metadata: %w", err)
		}
	}
	return audit.RecordAll(ctx, tx, p, w.audit)
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
	out, err := postgres.AppendRows(nil, rows, func(r pgx.Row, d *Driver) error {
		return r.Scan(&d.ID, &d.CompanyID, &d.OfficeID, &d.InternalNumber, &d.FirstName, &d.LastName,
			&d.MiddleName, &d.BirthDate, &d.Citizenship, &d.RodneCislo, &d.Email, &d.Phone, &d.RegistrationAddress,
			&d.ResidenceAddress, &d.Status, &d.HireDate, &d.FireDate, &d.ContractFrom, &d.ContractTo, &d.ContractIndefinite,
			&d.WorkLocation, &d.BankCountry, &d.BankAccount, &d.IBAN, &d.SWIFT, &d.Flags, &d.Tags, &d.Language,
			&d.CreatedAt, &d.UpdatedAt)
	})
	if err != nil {
		return nil, fmt.Errorf("import: drivers: %w", err)
	}
	return out, nil
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

// importDocuments reads a row's columns of the document types; fields are
// the columns whose value differs from what is stored, old and new. A
// valid_until of a type without expiry (noExpiry) is refused, as an upload
// refuses it.
func importDocuments(r ImportRow, types []string, noExpiry map[string]bool, stored map[string]storedDoc,
	addErr func(int, string, i18n.Message)) (map[string]docChange, map[string]FieldChange) {
	docs := map[string]docChange{}
	fields := map[string]FieldChange{}
	for _, typ := range types {
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
					fields[field] = fieldChange(cur.number, n)
				}
			}
		}
		if hasUntil {
			field := typ + "_valid_until"
			day, ok := ParseImportDate(until)
			switch {
			case noExpiry[typ]:
				addErr(r.Line, field, i18n.M("msg.documents.no_expiry"))
			case !ok:
				addErr(r.Line, field, i18n.M("msg.imports.date", "field", i18n.M("field.document.valid_until"), "value", strings.TrimSpace(until)))
			case cur.validFrom != nil && day.Before(*cur.validFrom):
				addErr(r.Line, field, i18n.M("msg.documents.until_before_from"))
			default:
				iso := day.String()
				c.validUntil, c.untilVal = &iso, &day
				if cur.validUntil == nil || *cur.validUntil != day {
					fields[field] = fieldChange(cur.validUntil, day)
				}
			}
		}
		if c.number != nil || c.validUntil != nil {
			docs[typ] = c
		}
	}
	return docs, fields
}

// fieldChange is a value's change as the API writes it.
func fieldChange(old, new any) FieldChange {
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(new)
	return FieldChange{Old: o, New: n}
}

// change is what the row does, for the import's answer; a new driver's id
// is named once a real run creates it.
func (t importTarget) change(dryRun bool) RowChange {
	c := RowChange{Row: t.row.Line, Action: ActionUnchanged, Fields: map[string]FieldChange{}}
	switch {
	case t.existing == nil:
		c.Action = ActionCreate
	case t.changed:
		c.Action, c.Fields = ActionUpdate, t.fields
	}
	if t.existing != nil || !dryRun {
		id := t.id
		c.DriverID = &id
	}
	return c
}

// name is the driver's first and last name, as messages name a driver.
func (d Driver) name() string { return d.FirstName + " " + d.LastName }
