package pages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The driver import pages (docs/import-export.md), on the imports service
// the API uses: upload (always a dry run first), the check with its column
// matching and preview, a new check with other matches, the confirmed run,
// and the progress of a large file, which runs as a job.

// importPreviewRows is the most rows the preview shows.
const importPreviewRows = 20

// importUpdateRows and importCreateRows are the most rows the check lists
// that update and create drivers, so a large file's check stays small.
const (
	importUpdateRows = 50
	importCreateRows = 20
)

// Each kind (drivers, vehicles, trailers) has the same pages under its
// own address (/drivers/import, /vehicles/import, /trailers/import); an
// import's page is reached under any of them and links to its kind's.
func (p *Pages) mountImports(r *web.Routes) {
	for _, kind := range imports.Kinds {
		base := views.ImportBase(string(kind))
		r.GET(base, p.importUpload(kind))
		r.POST(base, p.importStart(kind))
		r.GET(base+"/template", p.importTemplate(kind))
		r.GET(base+"/:id", p.importPage)
		r.GET(base+"/:id/progress", p.importProgress)
		r.POST(base+"/:id/mapping", p.importMapping)
		r.POST(base+"/:id/confirm", p.importConfirm)
	}
}

func importURL(kind string, id uuid.UUID) string { return views.ImportBase(kind) + "/" + id.String() }

func (p *Pages) importUpload(kind imports.Kind) echo.HandlerFunc {
	return func(c echo.Context) error {
		if _, err := p.svc.Imports.UploadLimit(web.Principal(c), kind); err != nil {
			return err
		}
		return p.render(c, http.StatusOK, views.ImportTitleKey(string(kind)), views.ImportUploadPage(p.importUploadData(c, kind)))
	}
}

func (p *Pages) importUploadData(c echo.Context, kind imports.Kind) views.ImportUploadData {
	lang := i18n.From(c.Request().Context())
	d := views.ImportUploadData{Kind: string(kind), CSRF: csrfToken(c), MaxSize: formatSize(lang, p.svc.Imports.MaxBytes())}
	for _, k := range imports.Importable(web.Principal(c)) {
		d.Kinds = append(d.Kinds, string(k))
	}
	return d
}

// importStart checks an uploaded file as a dry run and opens its page; a
// refused file comes back in the form.
func (p *Pages) importStart(kind imports.Kind) echo.HandlerFunc {
	return func(c echo.Context) error { return p.importStarted(c, kind) }
}

func (p *Pages) importStarted(c echo.Context, kind imports.Kind) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	im, err := p.startImport(c, pr, kind)
	if err == nil {
		return p.redirect(c, importURL(im.Kind, im.ID))
	}
	r, ok := refusalOf(i18n.From(ctx), err, p.svc.Imports.MaxBytes())
	if !ok {
		return err
	}
	// Read what the browser still sends (bounded by the cap), so it gets
	// the answer rather than a reset connection.
	_, _ = io.Copy(io.Discard, c.Request().Body)
	d := p.importUploadData(c, kind)
	d.Errors = append(d.Errors, r.messages()...)
	if isHTMX(c) {
		return p.fragment(c, r.status, views.ImportUploadForm(d))
	}
	return p.render(c, r.status, views.ImportTitleKey(string(kind)), views.ImportUploadPage(d))
}

// startImport reads the upload as the API does, always as a dry run.
func (p *Pages) startImport(c echo.Context, pr auth.Principal, kind imports.Kind) (imports.Import, error) {
	body := func() (*multipart.Reader, error) { return web.UploadBody(c, p.svc.Imports.MaxBytes()) }
	return p.svc.Imports.Receive(c.Request().Context(), pr, kind, body, "", "", true)
}

// importTemplate downloads the kind's template in the page's language.
func (p *Pages) importTemplate(kind imports.Kind) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, pr := c.Request().Context(), web.Principal(c)
		return web.ExportBuilt(c, kind.TemplateName(), func(readFormat func() (export.Format, error)) ([]byte, error) {
			return p.svc.Imports.Template(ctx, pr, kind, i18n.From(ctx), readFormat)
		})
	}
}

func (p *Pages) importPage(c echo.Context) error {
	d, err := p.importState(c)
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, views.ImportTitleKey(d.Kind), views.ImportPage(d))
}

// importProgress is what the page polls while the import runs: the
// progress, then the result.
func (p *Pages) importProgress(c echo.Context) error {
	d, err := p.importState(c)
	if err != nil {
		return err
	}
	return p.fragment(c, http.StatusOK, views.ImportState(d))
}

// importState reads what the page of the path's import shows.
func (p *Pages) importState(c echo.Context) (views.ImportData, error) {
	return p.importData(c, web.PathID(c, "id"))
}

func (p *Pages) importData(c echo.Context, id uuid.UUID) (views.ImportData, error) {
	ctx, pr := c.Request().Context(), web.Principal(c)
	lang := i18n.From(ctx)
	pv, err := p.svc.Imports.Preview(ctx, pr, id, lang, importPreviewRows, max(importUpdateRows, importCreateRows))
	if err != nil {
		return views.ImportData{}, err
	}
	d := views.ImportData{Kind: pv.Kind, CSRF: csrfToken(c), Token: forms.NewToken(), URL: importURL(pv.Kind, id), Filename: pv.Filename, Status: pv.Status,
		DryRun: pv.DryRun, Progress: pv.Progress, Rows: pv.Rows}
	if d.Running() || d.Status == "failed" {
		return d, nil
	}
	d.Rows, d.Created, d.Updated, d.Unchanged, d.Problems = pv.Rows, pv.Created, pv.Updated, pv.Unchanged, len(pv.Errors)
	d.ValidRows = pv.Mode == drivers.ModeValidRows
	importChanges(lang, pv, &d)
	d.Fields = []views.Option{{Value: "", Label: lang.T("imports.ignore")}}
	for _, f := range pv.Fields.List() {
		d.Fields = append(d.Fields, views.Option{Value: f, Label: pv.Fields.Label(lang, f)})
	}
	column := map[string]int{} // field → its column
	for i, col := range pv.Columns {
		vc := views.ImportColumn{Header: col.Header, Field: col.Field}
		if col.Field != "" {
			vc.Label = pv.Fields.Label(lang, col.Field)
			column[col.Field] = i
		}
		for _, r := range pv.Lines {
			if i < len(r.Cells) && r.Cells[i] != "" {
				vc.Sample = r.Cells[i]
				break
			}
		}
		d.Columns = append(d.Columns, vc)
	}
	byRow := map[int][]imports.RowError{}
	var errRows []int
	for _, e := range pv.Errors {
		if byRow[e.Row] == nil {
			errRows = append(errRows, e.Row)
		}
		byRow[e.Row] = append(byRow[e.Row], e)
	}
	d.ErrorRows, d.SkippedRows = len(byRow), rowRanges(errRows)
	for _, r := range pv.Lines {
		row := views.ImportPreviewRow{Line: r.Line, Cells: make([]views.ImportCell, len(pv.Columns))}
		for i := range row.Cells {
			if i < len(r.Cells) {
				row.Cells[i].Text = r.Cells[i]
			}
		}
		for _, e := range byRow[r.Line] {
			if i, ok := column[e.Field]; ok {
				row.Cells[i].Errors = append(row.Cells[i].Errors, e.Message)
			} else {
				row.Others = append(row.Others, e.Message)
			}
		}
		d.Preview = append(d.Preview, row)
	}
	return d, nil
}

// importMapping checks the file again with the columns matched as the
// form says: a new dry run, whose page opens.
func (p *Pages) importMapping(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	im, err := p.svc.Imports.Again(ctx, pr, id, i18n.From(ctx), func(cur imports.Import, in *imports.Again) error {
		form, err := c.FormParams()
		if err != nil {
			return apperr.BadRequest("msg.common.form_unreadable")
		}
		in.DryRun, in.Mapping = true, map[string]string{}
		for i, col := range cur.Columns {
			if v, ok := form["field."+strconv.Itoa(i)]; ok && len(v) > 0 {
				in.Mapping[col.Header] = v[0]
			}
		}
		return nil
	})
	if err != nil {
		return p.importRefused(c, id, err)
	}
	return p.redirect(c, importURL(im.Kind, im.ID))
}

// importConfirm runs a checked file for real, with its column matching,
// once per confirmation form: a repeated send opens the run the first one
// started.
func (p *Pages) importConfirm(c echo.Context) error {
	ctx, pr := c.Request().Context(), web.Principal(c)
	id := web.PathID(c, "id")
	var claim forms.Claim
	claimed := false
	im, err := p.svc.Imports.Again(ctx, pr, id, i18n.From(ctx), func(_ imports.Import, in *imports.Again) error {
		var err error
		if claim, err = p.svc.Forms.Claim(ctx, pr, c.FormValue("form_token")); err != nil {
			return err
		}
		if !claim.Fresh {
			return errFormDone
		}
		claimed, in.DryRun = true, false
		mode, ok := imports.ReadMode(c.FormValue("mode"))
		if !ok {
			return apperr.Invalid("mode", "msg.imports.mode")
		}
		in.Mode = mode
		return nil
	})
	if errors.Is(err, errFormDone) {
		return p.redirect(c, claim.Done)
	}
	if err != nil {
		if claimed {
			if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
				return rerr
			}
		}
		return p.importRefused(c, id, err)
	}
	to := importURL(im.Kind, im.ID)
	if err := p.svc.Forms.Finish(ctx, pr, claim, to); err != nil {
		return err
	}
	return p.redirect(c, to)
}

// importRefused shows a refused matching on the import's page with the
// messages; any other error goes to the error page.
func (p *Pages) importRefused(c echo.Context, id uuid.UUID, err error) error {
	r, ok := refusalOf(i18n.From(c.Request().Context()), err, noFile)
	if !ok || r.status != http.StatusUnprocessableEntity {
		return err
	}
	d, derr := p.importData(c, id)
	if derr != nil {
		return derr
	}
	d.Errors = append(d.Errors, r.messages()...)
	return p.render(c, r.status, views.ImportTitleKey(d.Kind), views.ImportPage(d))
}

// importChanges lists the import's changes as its page shows them: the
// first rows that update (the driver, each value old → new in the
// language's words) and create drivers, and the unchanged rows by number.
func importChanges(lang i18n.Lang, pv imports.Preview, d *views.ImportData) {
	var unchanged []int
	cell := map[string]int{}
	for i, col := range pv.Columns {
		if col.Field != "" {
			cell[col.Field] = i
		}
	}
	value := func(r imports.Row, field string) string {
		if i, ok := cell[field]; ok && i < len(r.Cells) {
			return strings.TrimSpace(r.Cells[i])
		}
		return ""
	}
	for _, c := range pv.Changes {
		switch c.Action {
		case drivers.ActionUpdate:
			if len(d.Updates) == importUpdateRows {
				d.MoreUpdates++
				continue
			}
			u := views.ImportUpdate{Row: c.Row}
			if n, ok := pv.Drivers[*c.DriverID]; ok {
				u.Driver, u.URL = n.Name+" ("+n.Number+")", importRecordURL(pv.Kind, *c.DriverID)
			}
			for _, f := range pv.Fields.List() {
				if fc, ok := c.Fields[f]; ok {
					u.Fields = append(u.Fields, views.ImportFieldChange{Label: pv.Fields.Label(lang, f),
						Old: importKindValueText(lang, pv.Kind, f, fc.Old, pv.Offices), New: importKindValueText(lang, pv.Kind, f, fc.New, pv.Offices)})
				}
			}
			d.Updates = append(d.Updates, u)
		case drivers.ActionCreate:
			if len(d.Creates) == importCreateRows {
				d.MoreCreates++
				continue
			}
			r := pv.NewRows[c.Row]
			nc := views.ImportCreate{Row: c.Row, Name: strings.TrimSpace(value(r, "first_name") + " " + value(r, "last_name")),
				Email: value(r, "email")}
			if pv.Kind != string(imports.Drivers) {
				nc.Name, nc.Email = value(r, "plate_number"), value(r, "make")
			}
			if c.DriverID != nil {
				if n, ok := pv.Drivers[*c.DriverID]; ok {
					nc.Name, nc.URL = n.Name+" ("+n.Number+")", importRecordURL(pv.Kind, *c.DriverID)
				}
			}
			d.Creates = append(d.Creates, nc)
		default:
			unchanged = append(unchanged, c.Row)
		}
	}
	d.UnchangedCount, d.UnchangedRows = len(unchanged), rowRanges(unchanged)
}

// importValueText is a changed value for people: a dash for none, an
// office by its name, a country by its name, tags joined, and what the
// audit log shows for the rest (dates in the language's form, yes/no,
// statuses in words).
func importValueText(lang i18n.Lang, field string, raw json.RawMessage, offices map[uuid.UUID]string) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil || v == nil {
		return "—"
	}
	switch x := v.(type) {
	case string:
		switch field {
		case "office_id":
			if id, err := uuid.Parse(x); err == nil && offices[id] != "" {
				return offices[id]
			}
		case "citizenship", "bank_country":
			return countryName(lang, x)
		}
	case []any:
		parts := make([]string, len(x))
		for i, p := range x {
			parts[i] = fmt.Sprint(p)
		}
		if len(parts) == 0 {
			return "—"
		}
		return strings.Join(parts, ", ")
	}
	// The audit log's formatting of a driver's stored value; no field of
	// an import row names a custom document type, so no request context
	// is needed for its name.
	f := auditFormat{ctx: context.Background(), lang: lang, loc: time.UTC, entityType: "driver"}
	if text, ok := f.value(field, raw); ok {
		return text
	}
	return string(raw)
}

// maxRanges is the most runs of rows rowRanges names.
const maxRanges = 50

// rowRanges names row numbers in order compactly: "2–4, 9", the first
// maxRanges runs and "…".
func rowRanges(rows []int) string {
	rows = slices.Clone(rows)
	slices.Sort(rows)
	var parts []string
	for i := 0; i < len(rows); {
		j := i
		for j+1 < len(rows) && rows[j+1] == rows[j]+1 {
			j++
		}
		if len(parts) == maxRanges {
			parts = append(parts, "…")
			break
		}
		if j > i {
			parts = append(parts, strconv.Itoa(rows[i])+"–"+strconv.Itoa(rows[j]))
		} else {
			parts = append(parts, strconv.Itoa(rows[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}
