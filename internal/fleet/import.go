package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/patch"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// The vehicles and trailers import (docs/import-export.md): rows of a file,
// already matched to fields by the imports service (the drivers' machinery),
// are checked with the rules of a create or an update and, unless it is a
// dry run or a row has an error (all or nothing), written in one
// transaction. A row updates the live record of its kind with its internal
// number, else the one with its plate (compared as PlateKey), else creates
// one.

// VehicleImportFields and TrailerImportFields are the columns an import of
// the kind reads, by field name: the API's fields, office as an office's
// name and internal_number to find the record.
var (
	VehicleImportFields = []string{"internal_number", "type", "status", "assignment_mode", "plate_number", "vin", "make",
		"model", "year", "fuel_type", "emission_class", "color", "gross_weight_kg", "payload_kg", "axles", "odometer_km",
		"first_registration_date", "office", "office_id", "tags", "notes"}
	TrailerImportFields = []string{"internal_number", "type", "status", "plate_number", "vin", "make", "model", "year",
		"has_refrigeration", "temperature_min", "temperature_max", "volume_m3", "color", "gross_weight_kg", "payload_kg",
		"axles", "first_registration_date", "office", "office_id", "tags", "notes"}
)

// ImportFields are the import's fields of kind (vehicle or trailer).
func ImportFields(kind Kind) []string {
	if kind == trailerKind {
		return TrailerImportFields
	}
	return VehicleImportFields
}

// Choices are the values of a closed field of the kind (type, status,
// assignment_mode, fuel_type, has_refrigeration), each with its catalogue
// key, for the import's words and the template's lists; nil for another
// field.
func Choices(kind Kind, field string) (values []string, key func(string) string) {
	k := specOf(kind)
	switch field {
	case "type":
		return k.types, func(v string) string { return "fleet." + string(kind) + ".type." + v }
	case "status":
		return k.statuses, func(v string) string { return "fleet." + string(kind) + ".status." + v }
	case "assignment_mode":
		if kind == vehicleKind {
			return AssignmentModes, func(v string) string { return "fleet.assignment_mode." + v }
		}
	case "fuel_type":
		if kind == vehicleKind {
			return FuelTypes, func(v string) string { return "fleet.fuel_type." + v }
		}
	case "has_refrigeration":
		if kind == trailerKind {
			return []string{"true", "false"}, func(v string) string {
				if v == "true" {
					return "export.yes"
				}
				return "export.no"
			}
		}
	}
	return nil, nil
}

func specOf(kind Kind) kindSpec {
	if kind == trailerKind {
		return trailers
	}
	return vehicles
}

// fleetTarget is what a row does.
type fleetTarget struct {
	row      drivers.ImportRow
	existing *record // nil: a new record
	next     record
	// oldValues and newValues are the fields an update changes.
	oldValues, newValues map[string]any
	fields               map[string]drivers.FieldChange
	changed              bool
}

// identifier is a live vehicle's or trailer's plate and VIN, which are
// unique among both kinds of the company.
type identifier struct {
	kind   Kind
	id     uuid.UUID
	number string
}

// ImportVehicles checks the rows of a vehicles import and, unless it is a
// dry run or (all or nothing) a row has an error, writes them in one
// transaction with their audit rows, webhook events and one
// import.completed row. The caller's company is the one imported into.
func (s *Service) ImportVehicles(ctx context.Context, p auth.Principal, rows []drivers.ImportRow, o drivers.ImportOptions) (drivers.ImportResult, error) {
	return s.importRows(ctx, p, vehicles, rows, o)
}

// ImportTrailers is ImportVehicles for trailers.
func (s *Service) ImportTrailers(ctx context.Context, p auth.Principal, rows []drivers.ImportRow, o drivers.ImportOptions) (drivers.ImportResult, error) {
	return s.importRows(ctx, p, trailers, rows, o)
}

func (s *Service) importRows(ctx context.Context, p auth.Principal, k kindSpec, rows []drivers.ImportRow, o drivers.ImportOptions) (drivers.ImportResult, error) {
	if _, err := collection(p, auth.FleetWrite); err != nil {
		return drivers.ImportResult{}, err
	}
	company := p.CompanyID
	res := drivers.ImportResult{Rows: len(rows)}
	existing, err := loadAllRecords(ctx, s.db, k, company)
	if err != nil {
		return res, err
	}
	plates, vins, err := loadIdentifiers(ctx, s.db, company)
	if err != nil {
		return res, err
	}
	offices, err := loadOfficeNames(ctx, s.db, company)
	if err != nil {
		return res, err
	}
	byNumber, byPlate := map[string]*record{}, map[string]*record{}
	for i := range existing {
		r := &existing[i]
		byNumber[strings.ToUpper(r.InternalNumber)] = r
		byPlate[PlateKey(r.PlateNumber)] = r
	}
	addErr := func(row int, field string, m i18n.Message) {
		res.Errors = append(res.Errors, drivers.ImportError{Row: row, Field: field, Message: m})
	}
	fx := patch.Facts{Today: p.Today()}
	targets := make([]fleetTarget, 0, len(rows))
	seenPlate, seenVIN := map[string]int{}, map[string]int{}
	seenRecord := map[uuid.UUID]int{}
	for i, r := range rows {
		if o.Progress != nil && i%500 == 0 {
			o.Progress(i / 2)
		}
		t := fleetTarget{row: r, fields: map[string]drivers.FieldChange{}}
		if n := strings.ToUpper(strings.TrimSpace(r.Values["internal_number"])); n != "" {
			t.existing = byNumber[n]
		}
		plateKey := PlateKey(r.Values["plate_number"])
		if t.existing == nil && plateKey != "" {
			t.existing = byPlate[plateKey]
		}
		var in Input
		var v apperr.Validation
		for f, text := range r.Values {
			if f == "internal_number" {
				continue
			}
			k.importValue(&in, &v, f, text, offices)
		}
		creating := t.existing == nil
		if !creating && plateKey == PlateKey(t.existing.PlateNumber) {
			// The same plate written another way ("1ab-2345") keeps the
			// stored spelling.
			delete(in.Fields, "plate_number")
		}
		if creating {
			t.next = record{CompanyID: company, Status: "active", Tags: []string{}}
		} else {
			t.next = *t.existing
		}
		var rv apperr.Validation
		k.apply(in, &t.next, creating, fx, &rv)
		if t.next.OfficeID != nil && !rv.Has("office_id") && !v.Has("office") && !offices.byID[*t.next.OfficeID] {
			rv.Add("office_id", "msg.drivers.office_unknown")
		}
		if k.kind == trailerKind {
			t.next.Tags = withFrigo(t.next)
		}
		for _, f := range v.Fields() {
			for _, m := range v.Messages()[f] {
				addErr(r.Line, f, m)
			}
		}
		for _, f := range rv.Fields() {
			if v.Has(f) || (f == "office_id" && v.Has("office")) {
				continue
			}
			for _, m := range rv.Messages()[f] {
				addErr(r.Line, f, k.importWording(f, r.Values[f], m))
			}
		}
		// A row whose number is one record's and plate another's changes
		// neither.
		twoRecords := false
		if other, ok := byPlate[plateKey]; ok && t.existing != nil && other.ID != t.existing.ID {
			twoRecords = true
			addErr(r.Line, "internal_number", i18n.M("msg.imports.two_records", "number", t.existing.InternalNumber,
				"plate", other.PlateNumber, "plate_number", other.InternalNumber))
		}
		var self uuid.UUID
		if t.existing != nil {
			self = t.existing.ID
		}
		// Plates and VINs are unique among the company's vehicles and
		// trailers: within the file (both rows are marked) and against the
		// records the row does not change.
		if key := PlateKey(t.next.PlateNumber); key != "" && !twoRecords && !rv.Has("plate_number") {
			if first, dup := seenPlate[key]; dup {
				addErr(r.Line, "plate_number", i18n.M("msg.imports.plate_twice", "row", abs(first)))
				if first > 0 {
					addErr(first, "plate_number", i18n.M("msg.imports.plate_twice", "row", r.Line))
					seenPlate[key] = -first
				}
			} else {
				seenPlate[key] = r.Line
				if other, ok := plates[key]; ok && other.id != self {
					addErr(r.Line, "plate_number", i18n.M("msg.fleet.plate_taken", "number", other.number))
				}
			}
		}
		if t.next.VIN != nil && !rv.Has("vin") {
			key := *t.next.VIN
			if first, dup := seenVIN[key]; dup {
				addErr(r.Line, "vin", i18n.M("msg.imports.vin_twice", "row", abs(first)))
				if first > 0 {
					addErr(first, "vin", i18n.M("msg.imports.vin_twice", "row", r.Line))
					seenVIN[key] = -first
				}
			} else {
				seenVIN[key] = r.Line
				if other, ok := vins[key]; ok && other.id != self {
					addErr(r.Line, "vin", i18n.M("msg.fleet.vin_taken", "number", other.number))
				}
			}
		}
		if t.existing != nil {
			if first, dup := seenRecord[t.existing.ID]; dup {
				addErr(r.Line, "internal_number", i18n.M("msg.imports.record_twice", "row", first, "number", t.existing.InternalNumber))
			} else {
				seenRecord[t.existing.ID] = r.Line
			}
		}
		if creating {
			t.changed = true
		} else {
			t.oldValues, t.newValues = audit.Diff(k.auditValues(*t.existing), k.auditValues(t.next))
			for f, nv := range t.newValues {
				t.fields[f] = fieldChange(t.oldValues[f], nv)
			}
			t.changed = len(t.fields) > 0
		}
		targets = append(targets, t)
	}
	slices.SortStableFunc(res.Errors, func(a, b drivers.ImportError) int { return a.Row - b.Row })
	bad := map[int]bool{}
	for _, e := range res.Errors {
		bad[e.Row] = true
	}
	var apply []fleetTarget
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
		}
	}
	if o.DryRun || (len(res.Errors) > 0 && !o.ValidRows) {
		for _, t := range apply {
			res.Changes = append(res.Changes, t.change(k, nil))
		}
		if o.Progress != nil {
			o.Progress(len(rows))
		}
		return res, nil
	}
	err = postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		res.Changes = res.Changes[:0]
		var entries []audit.Entry
		var created, updated []uuid.UUID
		for i, t := range apply {
			if o.Progress != nil && i%500 == 0 {
				o.Progress(len(apply)/2 + i/2)
			}
			if !t.changed {
				res.Changes = append(res.Changes, t.change(k, nil))
				continue
			}
			if t.existing == nil {
				id, err := k.insert(ctx, tx, t.next)
				if err != nil {
					return err
				}
				out, err := k.loadRow(ctx, tx, company, id, false)
				if err != nil {
					return err
				}
				created = append(created, id)
				entries = append(entries, audit.Entry{EntityType: string(k.kind), EntityID: id, Action: "created", NewValues: k.auditValues(out)})
				res.Changes = append(res.Changes, t.change(k, &id))
				continue
			}
			next := t.next
			if next.Type != t.existing.Type {
				if err := k.addDocuments(ctx, tx, company, next.ID, next.Type); err != nil {
					return err
				}
			}
			if err := k.update(ctx, tx, &next, fx.Today); err != nil {
				return err
			}
			updated = append(updated, next.ID)
			entries = append(entries, audit.Entry{EntityType: string(k.kind), EntityID: next.ID, Action: "updated",
				OldValues: t.oldValues, NewValues: t.newValues})
			res.Changes = append(res.Changes, t.change(k, nil))
		}
		if err := audit.RecordAll(ctx, tx, p, entries); err != nil {
			return err
		}
		if err := k.emitImported(ctx, tx, company, created, updated); err != nil {
			return err
		}
		if err := k.unitsAfterImport(ctx, tx, p, company, apply); err != nil {
			return err
		}
		completed := map[string]any{"import_id": o.ID, "kind": k.table, "rows": res.Rows, "created": res.Created,
			"updated": res.Updated, "unchanged": res.Unchanged}
		if o.ValidRows {
			completed["mode"], completed["skipped"] = drivers.ModeValidRows, len(bad)
		}
		if err := audit.Record(ctx, tx, p, audit.Entry{EntityType: "company", EntityID: company, Action: "import.completed",
			NewValues: completed}); err != nil {
			return err
		}
		if o.Finish != nil {
			return o.Finish(ctx, tx, res)
		}
		return nil
	})
	if err != nil {
		return drivers.ImportResult{}, err
	}
	return res, nil
}

// unitsAfterImport follows an import's changes of vehicles or trailers in
// active transport units (docs/dispatch.md) as an update does: a vehicle
// the import sells leaves its unit, and the changes of readiness its
// statuses, types and tags caused are told in the import's transaction,
// not by the scheduler's next look. An import that updates no record costs
// no statement; one that does, one statement when no unit's readiness
// changed.
func (k kindSpec) unitsAfterImport(ctx context.Context, tx pgx.Tx, p auth.Principal, company uuid.UUID, apply []fleetTarget) error {
	updated := false
	for _, t := range apply {
		if t.existing == nil || !t.changed {
			continue
		}
		updated = true
		if k.kind == vehicleKind && t.next.Status == "sold" && t.existing.Status != "sold" {
			if err := units.EndOf(ctx, tx, p, company, "vehicle_id", t.existing.ID); err != nil {
				return err
			}
		}
	}
	if !updated {
		return nil
	}
	return units.Flush(ctx, tx, company)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// eventChunk is how many records an import reads back per statement for
// their events.
const eventChunk = 500

// emitImported writes the created and updated events of an import's
// records (the live streams record every event), eventChunk at a time.
func (k kindSpec) emitImported(ctx context.Context, tx pgx.Tx, company uuid.UUID, created, updated []uuid.UUID) error {
	for _, ids := range []struct {
		ids   []uuid.UUID
		event string
	}{{created, k.created}, {updated, k.updated}} {
		for chunk := range slices.Chunk(ids.ids, eventChunk) {
			records, err := k.loadRows(ctx, tx, company, chunk)
			if err != nil {
				return err
			}
			events := make([]webhooks.Event, len(records))
			for i, r := range records {
				events[i] = webhooks.Event{Type: ids.event, Data: k.answer(r)}
			}
			if err := webhooks.EmitMany(ctx, tx, company, events); err != nil {
				return err
			}
		}
	}
	return nil
}

// change is what the row does, for the import's answer; a new record's id
// is named once a real run created it.
func (t fleetTarget) change(k kindSpec, createdID *uuid.UUID) drivers.RowChange {
	c := drivers.RowChange{Row: t.row.Line, Holder: string(k.kind), Action: drivers.ActionUnchanged, Fields: map[string]drivers.FieldChange{}}
	switch {
	case t.existing == nil:
		c.Action, c.DriverID = drivers.ActionCreate, createdID
	case t.changed:
		c.Action, c.Fields = drivers.ActionUpdate, t.fields
	}
	if t.existing != nil {
		id := t.existing.ID
		c.DriverID = &id
	}
	return c
}

// fieldChange is a value's change as the API writes it.
func fieldChange(old, new any) drivers.FieldChange {
	o, _ := json.Marshal(old)
	n, _ := json.Marshal(new)
	return drivers.FieldChange{Old: o, New: n}
}

// importOffices are the company's live offices, by id and by folded name.
type importOffices struct {
	byID   map[uuid.UUID]bool
	byName map[string]uuid.UUID
}

func loadOfficeNames(ctx context.Context, db postgres.DBTX, company uuid.UUID) (importOffices, error) {
	o := importOffices{byID: map[uuid.UUID]bool{}, byName: map[string]uuid.UUID{}}
	rows, err := db.Query(ctx, `SELECT id, name FROM offices WHERE company_id = $1 AND deleted_at IS NULL`, company)
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

// loadAllRecords reads every live record of the kind of the company (its
// stored fields, without summary, readiness or unit).
func loadAllRecords(ctx context.Context, db postgres.DBTX, k kindSpec, company uuid.UUID) ([]record, error) {
	names := []string{"r.id", "r.company_id", "r.internal_number"}
	for _, c := range k.columns {
		names = append(names, "r."+c.name)
	}
	names = append(names, "r.created_at", "r.updated_at")
	rows, err := db.Query(ctx, `SELECT `+strings.Join(names, ", ")+` FROM `+k.table+` r WHERE r.company_id = $1 AND r.deleted_at IS NULL`, company)
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", k.table, err)
	}
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, r *record) error {
		t := []any{&r.ID, &r.CompanyID, &r.InternalNumber}
		for _, c := range k.columns {
			t = append(t, c.scan(r))
		}
		if err := row.Scan(append(t, &r.CreatedAt, &r.UpdatedAt)...); err != nil {
			return err
		}
		r.Tags = tagsValue(r.Tags)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import: %s: %w", k.table, err)
	}
	return out, nil
}

// loadIdentifiers reads the plates (by PlateKey) and VINs of the company's
// live vehicles and trailers.
func loadIdentifiers(ctx context.Context, db postgres.DBTX, company uuid.UUID) (map[string]identifier, map[string]identifier, error) {
	rows, err := db.Query(ctx, `SELECT 'vehicle', id, internal_number, plate_number, vin FROM vehicles WHERE company_id = $1 AND deleted_at IS NULL
		UNION ALL
		SELECT 'trailer', id, internal_number, plate_number, vin FROM trailers WHERE company_id = $1 AND deleted_at IS NULL`, company)
	if err != nil {
		return nil, nil, fmt.Errorf("import: plates: %w", err)
	}
	defer rows.Close()
	plates, vins := map[string]identifier{}, map[string]identifier{}
	for rows.Next() {
		var kind string
		var id identifier
		var plate, vin *string
		if err := rows.Scan(&kind, &id.id, &id.number, &plate, &vin); err != nil {
			return nil, nil, fmt.Errorf("import: plates: %w", err)
		}
		id.kind = Kind(kind)
		if plate != nil && PlateKey(*plate) != "" {
			plates[PlateKey(*plate)] = id
		}
		if vin != nil && *vin != "" {
			vins[strings.ToUpper(*vin)] = id
		}
	}
	return plates, vins, rows.Err()
}

// importValue turns one cell's text into the field's value of an Input, as
// a client would send it, so the fleet's own rules judge it: words in any
// of Konvoj's languages (types, statuses, yes/no), numbers with a decimal
// comma or point and spaces between thousands, dates as ISO, Czech
// (1. 3. 2026) or spreadsheet day numbers, an office by its name, tags
// separated by commas. A value that cannot be read is passed on as text,
// and the field's rule answers with its usual message.
func (k kindSpec) importValue(in *Input, v *apperr.Validation, field, text string, offices importOffices) {
	text = strings.TrimSpace(text)
	set := func(name string, value any) { _ = in.Set(name, value) }
	switch field {
	case "office", "office_id":
		if id, ok := offices.byName[strings.ToLower(text)]; ok {
			set("office_id", id.String())
			return
		}
		if _, err := uuid.Parse(text); err == nil && field == "office_id" {
			set("office_id", text)
			return
		}
		v.Add(field, "msg.imports.office_unknown", "office", text)
		return
	case "type", "status", "assignment_mode", "fuel_type":
		set(field, word(k.kind, field, text))
		return
	case "has_refrigeration":
		if b, ok := yesNo(text); ok {
			set(field, b)
			return
		}
		v.Add(field, "msg.imports.yes_no", "field", patch.Label(field), "value", text)
		return
	case "year", "gross_weight_kg", "payload_kg", "axles", "odometer_km":
		n, err := strconv.ParseInt(numberText(text), 10, 64)
		if err != nil {
			v.Add(field, "msg.imports.number", "field", patch.Label(field), "value", text)
			return
		}
		set(field, n)
		return
	case "temperature_min", "temperature_max", "volume_m3":
		d, err := decimal.NewFromString(strings.ReplaceAll(numberText(text), ",", "."))
		if err != nil {
			v.Add(field, "msg.imports.number", "field", patch.Label(field), "value", text)
			return
		}
		set(field, json.RawMessage(d.String()))
		return
	case "first_registration_date":
		if d, ok := drivers.ParseImportDate(text); ok {
			set(field, d.String())
			return
		}
		v.Add(field, "msg.imports.date", "field", patch.Label(field), "value", text)
		return
	case "tags":
		var tags []string
		for _, t := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' }) {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, strings.ToLower(t))
			}
		}
		set(field, tags)
		return
	}
	set(field, text)
}

// numberText is a number's text without spaces between thousands.
func numberText(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\u00a0' || r == '\u202f' {
			return -1
		}
		return r
	}, s)
}

// word maps a closed field's value in any language ("Návěs chladírenský")
// to its value; anything else is returned as it is.
func word(kind Kind, field, text string) string {
	values, key := Choices(kind, field)
	low := strings.ToLower(text)
	for _, val := range values {
		if low == val {
			return val
		}
		for _, l := range i18n.Langs {
			if strings.ToLower(l.T(key(val))) == low {
				return val
			}
		}
	}
	return text
}

// yesNo reads a yes or no in any language, or true/false, 1/0.
func yesNo(text string) (bool, bool) {
	low := strings.ToLower(text)
	switch low {
	case "true", "1", "yes", "y", "ano", "a", "x":
		return true, true
	case "false", "0", "no", "n", "ne":
		return false, true
	}
	for _, l := range i18n.Langs {
		if strings.ToLower(l.T("export.yes")) == low {
			return true, true
		}
		if strings.ToLower(l.T("export.no")) == low {
			return false, true
		}
	}
	return false, false
}

// importWording says a refused closed value in words, naming the cell's
// text and the values allowed in the reader's language; other messages
// are kept.
func (k kindSpec) importWording(field, text string, m i18n.Message) i18n.Message {
	text = strings.TrimSpace(text)
	if text == "" {
		return m
	}
	switch m.Key {
	case "msg.fleet.type", "msg.fleet.status", "msg.fleet.assignment_mode", "msg.fleet.fuel_type":
		values, key := Choices(k.kind, field)
		allowed := make([]i18n.Message, len(values))
		for i, v := range values {
			allowed[i] = i18n.M(key(v))
		}
		return i18n.M("msg.imports.choice", "field", patch.Label(field), "value", text, "allowed", allowed)
	case "msg.common.not_date":
		return i18n.M("msg.imports.date", "field", patch.Label(field), "value", text)
	}
	return m
}
