package fleet

import (
	"context"
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
)

// The vehicles and trailers exports (docs/import-export.md): the list's
// filtered set, in its order, every row, streamed.

// exportBatch is how many records an export reads per statement: the
// list's own query after its keyset cursor, page after page.
const exportBatch = 500

// VehicleExportColumns and TrailerExportColumns are the columns of an
// export, by field name; the header is the catalogue's
// "fleet.field.<name>", which the import reads back, so an exported file can
// be edited and imported.
var (
	VehicleExportColumns = []string{"internal_number", "type", "status", "assignment_mode", "plate_number", "vin", "make",
		"model", "year", "fuel_type", "emission_class", "color", "gross_weight_kg", "payload_kg", "axles", "odometer_km",
		"first_registration_date", "office", "tags", "notes", "is_ready", "documents_valid", "documents_warning",
		"documents_expiring_soon", "documents_expired", "documents_no_data"}
	TrailerExportColumns = []string{"internal_number", "type", "status", "plate_number", "vin", "make", "model", "year",
		"has_refrigeration", "temperature_min", "temperature_max", "volume_m3", "color", "gross_weight_kg", "payload_kg",
		"axles", "first_registration_date", "office", "tags", "notes", "is_ready", "documents_valid", "documents_warning",
		"documents_expiring_soon", "documents_expired", "documents_no_data"}
)

// ExportColumns are the export's columns of kind.
func ExportColumns(kind Kind) []string {
	if kind == trailerKind {
		return TrailerExportColumns
	}
	return VehicleExportColumns
}

// ExportVehicles writes the filtered vehicles (the list's filters and
// sort; its paging is ignored) as a table, headers and words in lang. The
// checks come first (the role, then read's parameters and the filter
// values: 403, 400, 422); start is called only when they passed, then the
// rows stream as they are read, inside one read-only snapshot.
func (s *Service) ExportVehicles(ctx context.Context, p auth.Principal, read func(*ListParams) error, lang i18n.Lang, start func() (export.Writer, error)) error {
	return s.export(ctx, p, vehicles, read, lang, start)
}

// ExportTrailers is ExportVehicles for trailers.
func (s *Service) ExportTrailers(ctx context.Context, p auth.Principal, read func(*ListParams) error, lang i18n.Lang, start func() (export.Writer, error)) error {
	return s.export(ctx, p, trailers, read, lang, start)
}

func (s *Service) export(ctx context.Context, p auth.Principal, k kindSpec, read func(*ListParams) error, lang i18n.Lang, start func() (export.Writer, error)) error {
	only, err := collection(p, auth.FleetRead)
	if err != nil {
		return err
	}
	var lp ListParams
	if err := read(&lp); err != nil {
		return err
	}
	lp.Feed = feed.Params{}
	if err := lp.normalize(k); err != nil {
		return err
	}
	if lp.SortBy == "" {
		lp.SortBy = defaultSortField
	}
	if lp.SortOrder == "" {
		lp.SortOrder = "asc"
	}
	lp.Page = paging.Request{Keyset: true, Size: exportBatch}
	tx, err := s.db.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return fmt.Errorf("export %s: %w", k.table, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	offices, err := officeNamesByID(ctx, tx, p.CompanyID)
	if err != nil {
		return err
	}
	w, err := start()
	if err != nil {
		return err
	}
	cols := ExportColumns(k.kind)
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = lang.T("fleet.field." + c)
	}
	if err := w.Header(names); err != nil {
		return err
	}
	var after *cursor
	for {
		q := listQuery{kind: k, params: lp, companyID: p.CompanyID, only: only, after: after}
		items, keys, _, err := q.run(ctx, tx)
		if err != nil {
			return err
		}
		more := len(items) > lp.Page.Size
		if more {
			items, keys = items[:lp.Page.Size], keys[:lp.Page.Size]
		}
		for _, r := range items {
			cells := make([]export.Cell, len(cols))
			for i, c := range cols {
				cells[i] = k.exportCell(r, c, lang, offices)
			}
			if err := w.Row(cells); err != nil {
				return err
			}
		}
		if !more {
			return w.Close()
		}
		last := len(items) - 1
		after = &cursor{SortBy: lp.SortBy, SortOrder: lp.SortOrder, Key: keys[last], ID: items[last].ID}
	}
}

// officeNamesByID are the names of the company's offices.
func officeNamesByID(ctx context.Context, tx pgx.Tx, company uuid.UUID) (map[uuid.UUID]string, error) {
	rows, err := tx.Query(ctx, `SELECT id, name FROM offices WHERE company_id = $1`, company)
	if err != nil {
		return nil, fmt.Errorf("export: offices: %w", err)
	}
	defer rows.Close()
	out := map[uuid.UUID]string{}
	for rows.Next() {
		var id uuid.UUID
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("export: offices: %w", err)
		}
		out[id] = name
	}
	return out, rows.Err()
}

// choiceCell is a closed field's value in words of lang.
func (k kindSpec) choiceCell(field string, v *string, lang i18n.Lang) export.Cell {
	if v == nil || *v == "" {
		return export.Text("")
	}
	_, key := Choices(k.kind, field)
	return export.Text(lang.T(key(*v)))
}

func yesNoCell(b bool, lang i18n.Lang) export.Cell {
	if b {
		return export.Text(lang.T("export.yes"))
	}
	return export.Text(lang.T("export.no"))
}

func intCell(n *int) export.Cell { return export.OptionalInt(n) }

func (k kindSpec) exportCell(r record, col string, lang i18n.Lang, offices map[uuid.UUID]string) export.Cell {
	switch col {
	case "internal_number":
		return export.Text(r.InternalNumber)
	case "type":
		return k.choiceCell(col, &r.Type, lang)
	case "status":
		return k.choiceCell(col, &r.Status, lang)
	case "assignment_mode":
		return k.choiceCell(col, r.AssignmentMode, lang)
	case "fuel_type":
		return k.choiceCell(col, r.FuelType, lang)
	case "plate_number":
		return export.Text(r.PlateNumber)
	case "vin":
		return export.OptionalText(r.VIN)
	case "make":
		return export.OptionalText(r.Make)
	case "model":
		return export.OptionalText(r.Model)
	case "year":
		return intCell(r.Year)
	case "emission_class":
		return export.OptionalText(r.EmissionClass)
	case "color":
		return export.OptionalText(r.Color)
	case "gross_weight_kg":
		return intCell(r.GrossWeightKg)
	case "payload_kg":
		return intCell(r.PayloadKg)
	case "axles":
		return intCell(r.Axles)
	case "odometer_km":
		return intCell(r.OdometerKm)
	case "first_registration_date":
		return export.OptionalDate(r.FirstRegistrationDate)
	case "has_refrigeration":
		return yesNoCell(r.HasRefrigeration, lang)
	case "temperature_min":
		return optionalNumber(r.TemperatureMin)
	case "temperature_max":
		return optionalNumber(r.TemperatureMax)
	case "volume_m3":
		return optionalNumber(r.VolumeM3)
	case "office":
		if r.OfficeID == nil {
			return export.Text("")
		}
		return export.Text(offices[*r.OfficeID])
	case "tags":
		return export.Text(strings.Join(r.Tags, ", "))
	case "notes":
		return export.OptionalText(r.Notes)
	case "is_ready":
		return yesNoCell(r.IsReady, lang)
	case "documents_valid":
		return export.Int(int64(r.Summary.Valid))
	case "documents_warning":
		return export.Int(int64(r.Summary.Warning))
	case "documents_expiring_soon":
		return export.Int(int64(r.Summary.ExpiringSoon))
	case "documents_expired":
		return export.Int(int64(r.Summary.Expired))
	case "documents_no_data":
		return export.Int(int64(r.Summary.NoData))
	}
	return export.Text("")
}

// optionalNumber is a decimal number cell (two decimals), empty for nil.
func optionalNumber(d *decimal.Decimal) export.Cell {
	if d == nil {
		return export.Text("")
	}
	return export.Number(*d)
}
