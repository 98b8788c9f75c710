package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/postgres"
)

// The SQL of the fleet. A record's document statuses, documents_summary,
// is_ready and current unit come with the record in one statement
// (docs/fleet.md): statuses by konvoj_document_status, the required types
// from the company's rules of the holder type read once per statement (the
// CTE ru), the active unit from transport_units.

// facts are the statement's company facts (alias co: today in the
// company's time zone) and its rules of the kind's holder type (alias ru:
// the required types with whom they are required for), each read once.
func (k kindSpec) facts(company string) string {
	return k.factsOf(company, `SELECT konvoj_today(c.timezone) AS today FROM companies c WHERE c.id = `+company)
}

// factsOf is facts whose today is the query today (a statement that
// knows it already).
func (k kindSpec) factsOf(company, today string) string {
	return `co AS MATERIALIZED (` + today + `),
		ru AS MATERIALIZED (SELECT r.document_type, r.required_for FROM konvoj_document_rules(` + company + `, '` + string(k.kind) + `') r WHERE r.required)`
}

// required is the types record r (of table alias r) needs to be ready:
// the rules required for all and for its tags, that apply to its type.
func (k kindSpec) required() string {
	return `ARRAY(SELECT ru.document_type FROM ru
			WHERE konvoj_fleet_type_applies('` + string(k.kind) + `', r.type, ru.document_type)
				AND (ru.required_for = 'all' OR (ru.required_for LIKE 'tag:%' AND substr(ru.required_for, 5) = ANY (r.tags))))`
}

// holderColumn is the documents' column that names a record of the kind.
func (k kindSpec) holderColumn() string { return string(k.kind) + "_id" }

// summary counts the documents of record r by status (alias s) and how
// many required types are usable (valid, warning or expiring_soon); a
// record has one document per type. Retired custom types are left out.
func (k kindSpec) summary() string {
	return `CROSS JOIN LATERAL (SELECT ` + k.required() + ` AS types) rq
		CROSS JOIN LATERAL (
			SELECT count(*) AS total,
				count(*) FILTER (WHERE x.status = 'valid') AS valid,
				count(*) FILTER (WHERE x.status = 'warning') AS warning,
				count(*) FILTER (WHERE x.status = 'expiring_soon') AS expiring_soon,
				count(*) FILTER (WHERE x.status = 'expired') AS expired,
				count(*) FILTER (WHERE x.status = 'no_data') AS no_data,
				count(*) FILTER (WHERE x.type = ANY (rq.types) AND x.status IN ('valid', 'warning', 'expiring_soon')) AS ready_docs
			FROM (
				SELECT dd.type, konvoj_document_status(dd.current_file_id IS NOT NULL, dd.valid_until, co.today) AS status
				FROM driver_documents dd
				WHERE dd.` + k.holderColumn() + ` = r.id AND dd.company_id = r.company_id
					AND NOT EXISTS (SELECT 1 FROM document_types dt WHERE dt.company_id = r.company_id
						AND dt.holder_type = '` + string(k.kind) + `' AND dt.code = dd.type AND dt.retired)
			) x
		) s`
}

// ready is is_ready over r, rq and s.
const ready = `(r.status = 'active' AND s.ready_docs = cardinality(rq.types))`

// unit is the active transport unit of record r (alias cu), with its
// driver, vehicle and trailer.
func (k kindSpec) unit() string {
	return `LEFT JOIN LATERAL (
			SELECT u.id, ud.id AS driver_id, ud.internal_number AS driver_number, ud.first_name, ud.last_name,
				uv.id AS vehicle_id, uv.internal_number AS vehicle_number, uv.plate_number AS vehicle_plate,
				ut.id AS trailer_id, ut.internal_number AS trailer_number, ut.plate_number AS trailer_plate
			FROM transport_units u
			JOIN drivers ud ON ud.id = u.driver_id
			JOIN vehicles uv ON uv.id = u.vehicle_id
			LEFT JOIN trailers ut ON ut.id = u.trailer_id
			WHERE u.` + k.holderColumn() + ` = r.id AND u.company_id = r.company_id
				AND u.unassigned_at IS NULL AND u.deleted_at IS NULL
			LIMIT 1
		) cu ON true`
}

// selectColumns are the record's columns as the reads scan them (scan).
func (k kindSpec) selectColumns() string {
	names := []string{"r.id", "r.company_id", "r.internal_number"}
	for _, c := range k.columns {
		names = append(names, "r."+c.name)
	}
	names = append(names, "r.created_at", "r.updated_at", "r.deleted_at",
		"s.total", "s.valid", "s.warning", "s.expiring_soon", "s.expired", "s.no_data", ready,
		"cu.id", "cu.driver_id", "cu.driver_number", "cu.first_name", "cu.last_name",
		"cu.vehicle_id", "cu.vehicle_number", "cu.vehicle_plate", "cu.trailer_id", "cu.trailer_number", "cu.trailer_plate")
	return strings.Join(names, ", ")
}

// unitRow is the nullable columns of a record's current unit.
type unitRow struct {
	id, driverID, vehicleID, trailerID                      *uuid.UUID
	driverNumber, first, last, vehicleNumber, trailerNumber *string
	vehiclePlate, trailerPlate                              *string
}

// scanTargets are selectColumns' targets into r; the unit's go to u.
func (k kindSpec) scanTargets(r *record, u *unitRow) []any {
	t := []any{&r.ID, &r.CompanyID, &r.InternalNumber}
	for _, c := range k.columns {
		t = append(t, c.scan(r))
	}
	s := &r.Summary
	return append(t, &r.CreatedAt, &r.UpdatedAt, &r.DeletedAt,
		&s.Total, &s.Valid, &s.Warning, &s.ExpiringSoon, &s.Expired, &s.NoData, &r.IsReady,
		&u.id, &u.driverID, &u.driverNumber, &u.first, &u.last,
		&u.vehicleID, &u.vehicleNumber, &u.vehiclePlate, &u.trailerID, &u.trailerNumber, &u.trailerPlate)
}

// value is the current unit of a record of kind k, or nil.
func (u unitRow) value(k kindSpec) *CurrentUnit {
	if u.id == nil {
		return nil
	}
	cu := &CurrentUnit{ID: *u.id, Driver: UnitDriver{ID: *u.driverID, InternalNumber: *u.driverNumber, FirstName: *u.first, LastName: *u.last}}
	if k.kind == trailerKind {
		cu.Vehicle = &UnitRecord{ID: *u.vehicleID, InternalNumber: *u.vehicleNumber, PlateNumber: u.vehiclePlate}
	}
	if u.trailerID != nil {
		cu.Trailer = &UnitRecord{ID: *u.trailerID, InternalNumber: *u.trailerNumber, PlateNumber: u.trailerPlate}
	}
	return cu
}

// scan reads a row of selectColumns.
func (k kindSpec) scan(row pgx.Row, r *record) error {
	var u unitRow
	if err := row.Scan(k.scanTargets(r, &u)...); err != nil {
		return err
	}
	r.CurrentUnit = u.value(k)
	r.Tags = tagsValue(r.Tags)
	return nil
}

// loadRow reads the company's live record id of the kind with its
// summary, readiness and unit, without access checks (access.go checks;
// a create reads back what it wrote), locked until the transaction ends
// when lock is set. errNoRecord when there is none.
func (k kindSpec) loadRow(ctx context.Context, db postgres.DBTX, companyID, id uuid.UUID, lock bool) (record, error) {
	sql := `WITH ` + k.facts("$1") + `
		SELECT ` + k.selectColumns() + `
		FROM ` + k.table + ` r
		CROSS JOIN co
		` + k.summary() + `
		` + k.unit() + `
		WHERE r.company_id = $1 AND r.id = $2 AND r.deleted_at IS NULL`
	if lock {
		sql += ` FOR UPDATE OF r`
	}
	var r record
	err := k.scan(db.QueryRow(ctx, sql, companyID, id), &r)
	if errors.Is(err, pgx.ErrNoRows) {
		return record{}, errNoRecord
	}
	if err != nil {
		return record{}, fmt.Errorf("get %s %s: %w", k.kind, id, err)
	}
	return r, nil
}

// errNoRecord is loadRow's answer when the company has no live record of
// that id: the access file words it (404, or 403 for another company's).
var errNoRecord = errors.New("no such record")

// writable are the kind's writable column names and the record's values.
func (k kindSpec) writable(r record) (string, []any) {
	names := make([]string, len(k.columns))
	vals := make([]any, len(k.columns))
	for i, c := range k.columns {
		names[i], vals[i] = c.name, c.val(&r)
	}
	return strings.Join(names, ", "), vals
}

// placeholders returns "$from, $from+1, …" for n values.
func placeholders(from, n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("$%d", from+i)
	}
	return strings.Join(ps, ", ")
}

// insert stores a new record as given, numbered with the company's next
// number of the kind, and its document records; it checks nothing and
// writes no audit row (the service does; test data and seeds call the
// exported InsertVehicle and InsertTrailer).
func (k kindSpec) insert(ctx context.Context, tx postgres.DBTX, r record) (uuid.UUID, error) {
	// The UPDATE locks the company row until the transaction ends, so
	// concurrent creates queue here and never share a number; a rolled-back
	// create gives its number back.
	var seq int64
	if err := tx.QueryRow(ctx, `UPDATE companies SET `+k.seq+` = `+k.seq+` + 1 WHERE id = $1 RETURNING `+k.seq,
		r.CompanyID).Scan(&seq); err != nil {
		return uuid.Nil, fmt.Errorf("next %s number of company %s: %w", k.kind, r.CompanyID, err)
	}
	names, vals := k.writable(r)
	var id uuid.UUID
	err := tx.QueryRow(ctx, `INSERT INTO `+k.table+` (company_id, internal_number, internal_seq, `+names+`)
		VALUES ($1, $2, $3, `+placeholders(4, len(vals))+`) RETURNING id`,
		append([]any{r.CompanyID, fmt.Sprintf("%s-%04d", k.prefix, seq), seq}, vals...)...).Scan(&id)
	if err != nil {
		return uuid.Nil, writeErr(err, "insert "+string(k.kind))
	}
	if err := k.addDocuments(ctx, tx, r.CompanyID, id, r.Type); err != nil {
		return uuid.Nil, err
	}
	return id, nil
}

// addDocuments gives record id (of type typ) an empty document record of
// each type that applies to it and it does not have yet: the built-in
// types of its holder type that apply to its type and the company's live
// custom types of the holder type.
func (k kindSpec) addDocuments(ctx context.Context, tx postgres.DBTX, companyID, id uuid.UUID, typ string) error {
	holder := string(k.kind)
	_, err := tx.Exec(ctx, `INSERT INTO driver_documents (company_id, holder_type, `+k.holderColumn()+`, type)
		SELECT $1, $3::text, $2, t.code FROM (
			SELECT b.type AS code FROM konvoj_builtin_document_types($3) b WHERE konvoj_fleet_type_applies($3, $4, b.type)
			UNION ALL
			SELECT dt.code FROM document_types dt WHERE dt.company_id = $1 AND dt.holder_type = $3 AND NOT dt.retired
		) t
		ON CONFLICT DO NOTHING`, companyID, id, holder, typ)
	if err != nil {
		return fmt.Errorf("add documents of %s %s: %w", holder, id, err)
	}
	return nil
}

// update writes every writable column of r (the merged record, locked by
// the loader) and answers it as written, with its summary, readiness and
// unit, in the same statement; today is the company's (the loader read
// the company's facts).
func (k kindSpec) update(ctx context.Context, tx postgres.DBTX, r *record, today civil.Date) error {
	names, vals := k.writable(*r)
	sql := `WITH ` + k.factsOf("$1", `SELECT $3::date AS today`) + `,
		r AS (UPDATE ` + k.table + ` SET (` + names + `) = ROW(` + placeholders(4, len(vals)) + `)
			WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL RETURNING *)
		SELECT ` + k.selectColumns() + `
		FROM r
		CROSS JOIN co
		` + k.summary() + `
		` + k.unit()
	var out record
	if err := k.scan(tx.QueryRow(ctx, sql, append([]any{r.CompanyID, r.ID, today}, vals...)...), &out); err != nil {
		return writeErr(err, "update "+string(k.kind)+" "+r.ID.String())
	}
	*r = out
	return nil
}

// softDelete marks the record deleted: its plate and VIN are free again
// (the identifiers' trigger), its documents stay.
func (k kindSpec) softDelete(ctx context.Context, tx postgres.DBTX, companyID, id uuid.UUID) error {
	if _, err := tx.Exec(ctx, `UPDATE `+k.table+` SET deleted_at = now() WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL`,
		companyID, id); err != nil {
		return fmt.Errorf("delete %s %s: %w", k.kind, id, err)
	}
	return nil
}

// writeErr turns the identifiers' refusal (migrations/00049_fleet_identifiers.sql)
// into 409 DuplicateEntry naming the record that holds the plate or VIN;
// it is the check that holds under concurrent requests.
func writeErr(err error, what string) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "fleet_identifiers_pkey" {
		// The detail is "<plate|vin> <holder type> <id> <internal number>".
		parts := strings.Fields(pgErr.Detail)
		number := ""
		if len(parts) == 4 {
			number = parts[3]
		}
		if len(parts) > 0 && parts[0] == "vin" {
			return apperr.Duplicate("msg.fleet.vin_taken", "number", number)
		}
		return apperr.Duplicate("msg.fleet.plate_taken", "number", number)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// officeExists reports whether the office is a live office of the company.
func officeExists(ctx context.Context, db postgres.DBTX, companyID, officeID uuid.UUID) (bool, error) {
	var ok bool
	err := db.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM offices WHERE company_id = $1 AND id = $2 AND deleted_at IS NULL)`,
		companyID, officeID).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("check office %s: %w", officeID, err)
	}
	return ok, nil
}

// InsertVehicle stores a new vehicle as given (its number and document
// records come with it) in tx, checking nothing and writing no audit row:
// the create calls it after its checks, and test data and seeds are made
// with it.
func InsertVehicle(ctx context.Context, tx postgres.DBTX, v Vehicle) (uuid.UUID, error) {
	r := v.record()
	if r.Status == "" {
		r.Status = "active"
	}
	return vehicles.insert(ctx, tx, r)
}

// InsertTrailer is InsertVehicle for a trailer; one with refrigeration
// gets the frigo tag.
func InsertTrailer(ctx context.Context, tx postgres.DBTX, t Trailer) (uuid.UUID, error) {
	r := t.record()
	if r.Status == "" {
		r.Status = "active"
	}
	r.Tags = withFrigo(r)
	return trailers.insert(ctx, tx, r)
}

// notFoundErr is the 404 of a missing record of the kind.
func (k kindSpec) notFoundErr() error {
	if k.kind == trailerKind {
		return apperr.NotFound("msg.common.not_found.trailer")
	}
	return apperr.NotFound("msg.common.not_found.vehicle")
}
