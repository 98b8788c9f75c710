package api

import (
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/web"
)

// exportVehicles streams the filtered vehicles list as CSV or XLSX
// (docs/import-export.md): the list's filters, sort and permission.
func (h *Handlers) exportVehicles(c echo.Context) error {
	p := web.Principal(c)
	read, format := fleetExportQuery(c)
	lang := callerLang(c, p)
	return web.Export(c, format, "vehicles-"+p.Today().String(), lang.T("fleet.export.sheet.vehicle"), func(start func() (export.Writer, error)) error {
		return h.Fleet.ExportVehicles(c.Request().Context(), p, read, lang, start)
	})
}

// exportTrailers is exportVehicles for trailers.
func (h *Handlers) exportTrailers(c echo.Context) error {
	p := web.Principal(c)
	read, format := fleetExportQuery(c)
	lang := callerLang(c, p)
	return web.Export(c, format, "trailers-"+p.Today().String(), lang.T("fleet.export.sheet.trailer"), func(start func() (export.Writer, error)) error {
		return h.Fleet.ExportTrailers(c.Request().Context(), p, read, lang, start)
	})
}

// fleetExportQuery is a fleet export's query: read gives the service the
// list's filters and sort, or the 400 of a malformed parameter or format,
// after its checks; format is the file's (CSV when refused: no file is
// started then).
func fleetExportQuery(c echo.Context) (read func(*fleet.ListParams) error, format export.Format) {
	q := query{c: c}
	lp := fleet.ListParams{
		Status:         q.list("status"),
		Type:           q.list("type"),
		OfficeIDs:      q.uuids("office_id"),
		Tags:           q.list("tag"),
		DocumentStatus: q.list("document_status"),
		IsReady:        q.str("is_ready"),
		Search:         q.str("search"),
		SortBy:         q.str("sort_by"),
		SortOrder:      q.str("sort_order"),
	}
	format, ferr := export.FormatParam(q.str("format"))
	return func(in *fleet.ListParams) error {
		if err := q.err(); err != nil {
			return err
		}
		if ferr != nil {
			return ferr
		}
		*in = lp
		return nil
	}, format
}
