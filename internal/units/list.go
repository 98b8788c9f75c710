package units

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// List returns a page of the company's units (docs/dispatch.md): the
// active ones by default, the ended ones (the history) with Active false,
// filtered by readiness, office (the driver's or the vehicle's), driver,
// vehicle, trailer and a search; ordered by the driver's number, then the
// newest assignment first. A driver caller sees its own units only.
func (s *Service) List(ctx context.Context, p auth.Principal, read func(*ListParams) error) (paging.Page[Unit], error) {
	only, err := collection(p, readUnits)
	if err != nil {
		return paging.Page[Unit]{}, err
	}
	var f ListParams
	if err := read(&f); err != nil {
		return paging.Page[Unit]{}, err
	}
	active := true
	if f.Active != nil {
		active = *f.Active
	}
	page := f.Page.Or(20)
	offices := f.OfficeIDs
	if offices == nil {
		offices = []uuid.UUID{}
	}
	words := searchWords(f.Search)
	if words == nil {
		words = []string{}
	}
	rows, err := s.db.Query(ctx, unitSelect+`
		WHERE u.company_id = $1 AND u.deleted_at IS NULL AND (u.unassigned_at IS NULL) = $2
			AND ($3::boolean IS NULL OR u.is_ready = $3)
			AND (cardinality($4::uuid[]) = 0 OR d.office_id = ANY ($4) OR v.office_id = ANY ($4))
			AND ($5::uuid IS NULL OR u.driver_id = $5)
			AND ($6::uuid IS NULL OR u.vehicle_id = $6)
			AND ($7::uuid IS NULL OR u.trailer_id = $7)
			AND ($8::uuid IS NULL OR u.driver_id = $8)
			AND (cardinality($9::text[]) = 0 OR `+searchCondition(9)+`)
		ORDER BY d.internal_seq, u.assigned_at DESC, u.id
		LIMIT $10 OFFSET $11`,
		p.CompanyID, active, f.IsReady, offices, f.DriverID, f.VehicleID, f.TrailerID, only, words, page.Size, page.Offset())
	if err != nil {
		return paging.Page[Unit]{}, fmt.Errorf("list transport units: %w", err)
	}
	out, err := postgres.AppendRows(nil, rows, func(row pgx.Row, u *Unit) error { return scanUnit(row, u) })
	if err != nil {
		return paging.Page[Unit]{}, fmt.Errorf("list transport units: %w", err)
	}
	var total int
	if err := s.db.QueryRow(ctx, `SELECT count(*) FROM transport_units u
		JOIN drivers d ON d.id = u.driver_id AND d.company_id = u.company_id
		JOIN vehicles v ON v.id = u.vehicle_id AND v.company_id = u.company_id
		LEFT JOIN trailers t ON t.id = u.trailer_id AND t.company_id = u.company_id
		WHERE u.company_id = $1 AND u.deleted_at IS NULL AND (u.unassigned_at IS NULL) = $2
			AND ($3::boolean IS NULL OR u.is_ready = $3)
			AND (cardinality($4::uuid[]) = 0 OR d.office_id = ANY ($4) OR v.office_id = ANY ($4))
			AND ($5::uuid IS NULL OR u.driver_id = $5)
			AND ($6::uuid IS NULL OR u.vehicle_id = $6)
			AND ($7::uuid IS NULL OR u.trailer_id = $7)
			AND ($8::uuid IS NULL OR u.driver_id = $8)
			AND (cardinality($9::text[]) = 0 OR `+searchCondition(9)+`)`,
		p.CompanyID, active, f.IsReady, offices, f.DriverID, f.VehicleID, f.TrailerID, only, words).Scan(&total); err != nil {
		return paging.Page[Unit]{}, fmt.Errorf("count transport units: %w", err)
	}
	return paging.New(out, total, page), nil
}

// FreeDrivers are the company's active drivers in no active unit, by
// number, matching the search (name, internal number), at most limit, each
// with its readiness: the board's drivers to assign.
func (s *Service) FreeDrivers(ctx context.Context, p auth.Principal, search string, limit int) ([]Free, error) {
	return s.free(ctx, p, "drivers", search, limit)
}

// FreeVehicles are FreeDrivers for vehicles (search: internal number,
// plate).
func (s *Service) FreeVehicles(ctx context.Context, p auth.Principal, search string, limit int) ([]Free, error) {
	return s.free(ctx, p, "vehicles", search, limit)
}

// FreeTrailers are FreeDrivers for trailers.
func (s *Service) FreeTrailers(ctx context.Context, p auth.Principal, search string, limit int) ([]Free, error) {
	return s.free(ctx, p, "trailers", search, limit)
}

// free lists a table's free records with their readiness, worked out by
// konvoj_unit_readiness with the record alone.
func (s *Service) free(ctx context.Context, p auth.Principal, table, search string, limit int) ([]Free, error) {
	if _, err := collection(p, writeUnits); err != nil {
		return nil, err
	}
	if limit < 1 || limit > 500 {
		limit = 50
	}
	words := searchWords(search)
	if words == nil {
		words = []string{}
	}
	var name, plate, typ, text, column, arrays string
	switch table {
	case "drivers":
		name, plate, typ, column = "concat_ws(' ', r.first_name, r.last_name)", "''", "''", "driver_id"
		text = "concat_ws(' ', r.first_name, r.last_name, r.internal_number)"
		arrays = "ARRAY(SELECT id FROM c ORDER BY seq), '{}'::uuid[], '{}'::uuid[]"
	case "vehicles":
		name, plate, typ, column = "''", "coalesce(r.plate_number, '')", "r.type", "vehicle_id"
		text = "concat_ws(' ', r.internal_number, replace(replace(r.plate_number, ' ', ''), '-', ''))"
		arrays = "'{}'::uuid[], ARRAY(SELECT id FROM c ORDER BY seq), '{}'::uuid[]"
	default:
		table, name, plate, typ, column = "trailers", "''", "coalesce(r.plate_number, '')", "r.type", "trailer_id"
		text = "concat_ws(' ', r.internal_number, replace(replace(r.plate_number, ' ', ''), '-', ''))"
		arrays = "'{}'::uuid[], '{}'::uuid[], ARRAY(SELECT id FROM c ORDER BY seq)"
	}
	rows, err := s.db.Query(ctx, `
		WITH c AS MATERIALIZED (
			SELECT r.id, r.internal_number, `+name+` AS name, `+plate+` AS plate, `+typ+` AS type, r.internal_seq AS seq
			FROM `+table+` r
			WHERE r.company_id = $1 AND r.deleted_at IS NULL AND r.status = 'active'
				AND NOT EXISTS (SELECT FROM transport_units u WHERE u.`+column+` = r.id AND u.unassigned_at IS NULL AND u.deleted_at IS NULL)
				AND (cardinality($2::text[]) = 0
					OR konvoj_unaccent(lower(`+text+`)) LIKE ALL (SELECT '%' || konvoj_unaccent(w) || '%' FROM unnest($2::text[]) w))
			ORDER BY r.internal_seq
			LIMIT $3
		)
		SELECT c.id, c.internal_number, c.name, c.plate, c.type, coalesce(x.is_ready, false)
		FROM c
		LEFT JOIN konvoj_unit_readiness($1, $4, $4, ARRAY(SELECT id FROM c ORDER BY seq), `+arrays+`) x ON x.key = c.id
		ORDER BY c.seq`, p.CompanyID, words, limit, p.Today())
	if err != nil {
		return nil, fmt.Errorf("free %s: %w", table, err)
	}
	return postgres.AppendRows(nil, rows, func(row pgx.Row, f *Free) error {
		return row.Scan(&f.ID, &f.InternalNumber, &f.Name, &f.PlateNumber, &f.Type, &f.IsReady)
	})
}
