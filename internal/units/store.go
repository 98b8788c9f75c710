package units

import (
	"context"
	"encoding/json"
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

// unitSelect reads units with their driver, vehicle and trailer (alias u
// for the unit) in the columns scanUnit reads.
const unitSelect = `SELECT u.id, u.company_id, d.id, d.internal_number, d.first_name, d.last_name,
		v.id, v.internal_number, coalesce(v.plate_number, ''), v.type,
		t.id, t.internal_number, coalesce(t.plate_number, ''), t.type,
		u.assigned_at, u.unassigned_at, u.is_ready, u.not_ready_reasons, u.ready_until, u.created_at, u.updated_at
	FROM transport_units u
	JOIN drivers d ON d.id = u.driver_id AND d.company_id = u.company_id
	JOIN vehicles v ON v.id = u.vehicle_id AND v.company_id = u.company_id
	LEFT JOIN trailers t ON t.id = u.trailer_id AND t.company_id = u.company_id`

// scanUnit reads a row of unitSelect (extra targets after its columns).
func scanUnit(row pgx.Row, u *Unit, extra ...any) error {
	var tID *uuid.UUID
	var tNumber, tPlate, tType *string
	var reasons []byte
	targets := []any{&u.ID, &u.companyID, &u.Driver.ID, &u.Driver.InternalNumber, &u.Driver.FirstName, &u.Driver.LastName,
		&u.Vehicle.ID, &u.Vehicle.InternalNumber, &u.Vehicle.PlateNumber, &u.Vehicle.Type,
		&tID, &tNumber, &tPlate, &tType,
		&u.AssignedAt, &u.UnassignedAt, &u.IsReady, &reasons, &u.ReadyUntil, &u.CreatedAt, &u.UpdatedAt}
	if err := row.Scan(append(targets, extra...)...); err != nil {
		return err
	}
	if tID != nil {
		u.Trailer = &UnitVehicle{ID: *tID, InternalNumber: *tNumber, PlateNumber: *tPlate, Type: *tType}
	}
	return decodeReasons(reasons, &u.Readiness)
}

// decodeReasons reads the stored reasons; never nil.
func decodeReasons(raw []byte, r *Readiness) error {
	r.NotReadyReasons = []Reason{}
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, &r.NotReadyReasons); err != nil {
		return fmt.Errorf("decode readiness reasons: %w", err)
	}
	return nil
}

// unitRow reads unit id without access checks (access.go checks).
func unitRow(ctx context.Context, db postgres.DBTX, id uuid.UUID, lock bool) (Unit, bool, error) {
	sql := unitSelect + ` WHERE u.id = $1 AND u.deleted_at IS NULL`
	if lock {
		sql += ` FOR UPDATE OF u`
	}
	var u Unit
	err := scanUnit(db.QueryRow(ctx, sql, id), &u)
	if postgres.IsNotFound(err) {
		return Unit{}, false, nil
	}
	if err != nil {
		return Unit{}, false, fmt.Errorf("load transport unit %s: %w", id, err)
	}
	return u, true, nil
}

// unitsByID reads the company's units ids, in the order of their ids.
func unitsByID(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, ids []uuid.UUID) ([]Unit, error) {
	rows, err := db.Query(ctx, unitSelect+` WHERE u.company_id = $1 AND u.id = ANY ($2) AND u.deleted_at IS NULL ORDER BY u.id`, companyID, ids)
	if err != nil {
		return nil, fmt.Errorf("load transport units: %w", err)
	}
	return postgres.AppendRows(nil, rows, func(row pgx.Row, u *Unit) error { return scanUnit(row, u) })
}

// refresh works the readiness of the company's units ids out again as of
// the company's today and stores it (konvoj_refresh_units): a change of
// is_ready of a unit whose readiness was worked out before is queued for
// Flush.
func refresh(ctx context.Context, tx postgres.DBTX, companyID uuid.UUID, ids []uuid.UUID) error {
	if _, err := tx.Exec(ctx, `SELECT konvoj_refresh_units($1, $2::uuid[])`, companyID, ids); err != nil {
		return fmt.Errorf("refresh transport units: %w", err)
	}
	return nil
}

// readiness works out the readiness of a driver with a vehicle and a
// trailer (either may be nil: a driver alone) as of on, for a trip
// through through, without storing anything.
func readiness(ctx context.Context, db postgres.DBTX, companyID, driverID uuid.UUID, vehicleID, trailerID *uuid.UUID, on, through civil.Date) (Readiness, error) {
	var r Readiness
	var raw []byte
	err := db.QueryRow(ctx, `SELECT is_ready, reasons, ready_until
		FROM konvoj_unit_readiness($1, $2, $3, ARRAY[$4::uuid], ARRAY[$4::uuid], ARRAY[$5::uuid], ARRAY[$6::uuid])`,
		companyID, on, through, driverID, vehicleID, trailerID).Scan(&r.IsReady, &raw, &r.ReadyUntil)
	if postgres.IsNotFound(err) {
		// No such driver in the company (a preview of another company's).
		return Readiness{}, apperr.NotFound("msg.common.not_found.driver")
	}
	if err != nil {
		return Readiness{}, fmt.Errorf("work out readiness: %w", err)
	}
	return r, decodeReasons(raw, &r)
}

// The unique indexes that hold a driver, a vehicle or a trailer to one
// active unit (migrations/00001_schema.sql).
var takenIndexes = map[string]string{
	"transport_units_active_driver_key":  "driver",
	"transport_units_active_vehicle_key": "vehicle",
	"transport_units_active_trailer_key": "trailer",
}

// takenBy reports which of the unit's parts another active unit holds
// ("driver", "vehicle", "trailer") when err is the refusal of the unique
// indexes; "" otherwise.
func takenBy(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return takenIndexes[pgErr.ConstraintName]
	}
	return ""
}

// holding finds the active unit that holds the record id as its part
// (driver, vehicle or trailer) and answers the 409 that names it by its
// driver's and vehicle's internal numbers, with its id in the body.
func holding(ctx context.Context, db postgres.DBTX, companyID uuid.UUID, what string, id uuid.UUID) error {
	var unitID uuid.UUID
	var driver, vehicle string
	err := db.QueryRow(ctx, `SELECT u.id, d.internal_number, v.internal_number
		FROM transport_units u
		JOIN drivers d ON d.id = u.driver_id
		JOIN vehicles v ON v.id = u.vehicle_id
		WHERE u.company_id = $1 AND u.`+what+`_id = $2 AND u.unassigned_at IS NULL AND u.deleted_at IS NULL`,
		companyID, id).Scan(&unitID, &driver, &vehicle)
	if postgres.IsNotFound(err) {
		// Ended meanwhile: the client may try again.
		return apperr.Conflict("msg.units.busy")
	}
	if err != nil {
		return fmt.Errorf("find the unit of %s %s: %w", what, id, err)
	}
	return takenErr(what, driver, vehicle).With("unit_id", unitID)
}

// searchCondition is the list's search over the driver's name, the
// internal numbers and the plates (parameter n holds the words).
func searchCondition(n int) string {
	return fmt.Sprintf(`konvoj_unaccent(lower(concat_ws(' ', d.first_name, d.last_name, d.internal_number, v.internal_number,
		replace(replace(v.plate_number, ' ', ''), '-', ''), t.internal_number, replace(replace(t.plate_number, ' ', ''), '-', ''))))
		LIKE ALL (SELECT '%%' || konvoj_unaccent(w) || '%%' FROM unnest($%d::text[]) w)`, n)
}

// searchWords splits a search into lower-case words, with the plates'
// spaces and dashes left out (a plate is searched as one word).
func searchWords(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.NewReplacer("-", "", "%", "", "_", "").Replace(w)
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// takenErr is the 409 of a part another unit holds.
func takenErr(what, driver, vehicle string) *apperr.Error {
	switch what {
	case "driver":
		return apperr.New(apperr.KindConflict, "msg.units.driver_taken", "driver", driver, "vehicle", vehicle)
	case "vehicle":
		return apperr.New(apperr.KindConflict, "msg.units.vehicle_taken", "driver", driver, "vehicle", vehicle)
	}
	return apperr.New(apperr.KindConflict, "msg.units.trailer_taken", "driver", driver, "vehicle", vehicle)
}
