package pages

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// The fleet's pages (docs/web-app.md, "Vehicles and trailers"): a list,
// a page, a create and edit form and a delete confirmation for vehicles
// and for trailers, on fleet.Service. The two kinds share the handlers;
// fleetKind holds what differs.

// fleetPerPage is the fleet lists' page size.
const fleetPerPage = 25

// fleetRecord is a vehicle or trailer as the pages use it: the fields
// they show directly, and the object itself for the others.
type fleetRecord struct {
	ID                          uuid.UUID
	Number, Type, Status, Plate string
	Make, Model                 *string
	OfficeID                    *uuid.UUID
	Tags                        []string
	Ready                       bool
	Unit                        *fleet.CurrentUnit
	Summary                     fleet.DocumentsSummary
	object                      any // fleet.Vehicle or fleet.Trailer
}

func vehicleRecord(v fleet.Vehicle) fleetRecord {
	return fleetRecord{ID: v.ID, Number: v.InternalNumber, Type: v.Type, Status: v.Status, Plate: v.PlateNumber,
		Make: v.Make, Model: v.Model, OfficeID: v.OfficeID, Tags: v.Tags, Ready: v.IsReady, Unit: v.CurrentUnit, object: v}
}

func trailerRecord(t fleet.Trailer) fleetRecord {
	return fleetRecord{ID: t.ID, Number: t.InternalNumber, Type: t.Type, Status: t.Status, Plate: t.PlateNumber,
		Make: t.Make, Model: t.Model, OfficeID: t.OfficeID, Tags: t.Tags, Ready: t.IsReady, Unit: t.CurrentUnit, object: t}
}

// fleetKind is what the vehicles' and the trailers' pages do differently.
type fleetKind struct {
	kind     string // vehicle, trailer
	path     string // /vehicles, /trailers
	types    []string
	statuses []string
	list     func(context.Context, auth.Principal, func(*fleet.ListParams) error) (paging.Page[fleetRecord], error)
	get      func(context.Context, auth.Principal, auth.Action, uuid.UUID) (fleetRecord, error)
	create   func(context.Context, auth.Principal, func(*fleet.Input) error) (fleetRecord, error)
	update   func(context.Context, auth.Principal, uuid.UUID, func(*fleet.Input) error) (fleetRecord, error)
	remove   func(context.Context, auth.Principal, uuid.UUID) (fleetRecord, error)
	tags     func(context.Context, auth.Principal) ([]string, error)
	// export writes the filtered list as a table (the API's export).
	export func(context.Context, auth.Principal, func(*fleet.ListParams) error, i18n.Lang, func() (export.Writer, error)) error
	// documents lists a record's documents (the documents service's).
	documents func(context.Context, auth.Principal, uuid.UUID) ([]documents.Document, error)
}

func (k fleetKind) url(id uuid.UUID) string { return k.path + "/" + id.String() }

// typeLabel is a type in words.
func (k fleetKind) typeLabel(lang i18n.Lang, t string) string {
	return lang.Or(t, "fleet."+k.kind+"_type."+t)
}

func (p *Pages) vehicleKind() fleetKind {
	s := p.svc.Fleet
	return fleetKind{
		kind: "vehicle", path: "/vehicles", types: fleet.VehicleTypes, statuses: fleet.VehicleStatuses,
		list: func(ctx context.Context, pr auth.Principal, read func(*fleet.ListParams) error) (paging.Page[fleetRecord], error) {
			res, err := s.ListVehicles(ctx, pr, read)
			return paging.Map(res.Page, func(it fleet.VehicleItem) fleetRecord {
				r := vehicleRecord(it.Vehicle)
				r.Summary = it.DocumentsSummary
				return r
			}), err
		},
		get: func(ctx context.Context, pr auth.Principal, a auth.Action, id uuid.UUID) (fleetRecord, error) {
			v, err := s.GetVehicle(ctx, pr, a, id)
			return vehicleRecord(v), err
		},
		create: func(ctx context.Context, pr auth.Principal, read func(*fleet.Input) error) (fleetRecord, error) {
			v, err := s.CreateVehicle(ctx, pr, read)
			return vehicleRecord(v), err
		},
		update: func(ctx context.Context, pr auth.Principal, id uuid.UUID, read func(*fleet.Input) error) (fleetRecord, error) {
			v, err := s.UpdateVehicle(ctx, pr, id, read)
			return vehicleRecord(v), err
		},
		remove: func(ctx context.Context, pr auth.Principal, id uuid.UUID) (fleetRecord, error) {
			v, err := s.DeleteVehicle(ctx, pr, id)
			return vehicleRecord(v), err
		},
		tags:   s.VehicleTags,
		export: s.ExportVehicles,
		documents: func(ctx context.Context, pr auth.Principal, id uuid.UUID) ([]documents.Document, error) {
			return p.svc.Documents.FleetRead(ctx, pr, "vehicle", id)
		},
	}
}

func (p *Pages) trailerKind() fleetKind {
	s := p.svc.Fleet
	return fleetKind{
		kind: "trailer", path: "/trailers", types: fleet.TrailerTypes, statuses: fleet.TrailerStatuses,
		list: func(ctx context.Context, pr auth.Principal, read func(*fleet.ListParams) error) (paging.Page[fleetRecord], error) {
			res, err := s.ListTrailers(ctx, pr, read)
			return paging.Map(res.Page, func(it fleet.TrailerItem) fleetRecord {
				r := trailerRecord(it.Trailer)
				r.Summary = it.DocumentsSummary
				return r
			}), err
		},
		get: func(ctx context.Context, pr auth.Principal, a auth.Action, id uuid.UUID) (fleetRecord, error) {
			t, err := s.GetTrailer(ctx, pr, a, id)
			return trailerRecord(t), err
		},
		create: func(ctx context.Context, pr auth.Principal, read func(*fleet.Input) error) (fleetRecord, error) {
			t, err := s.CreateTrailer(ctx, pr, read)
			return trailerRecord(t), err
		},
		update: func(ctx context.Context, pr auth.Principal, id uuid.UUID, read func(*fleet.Input) error) (fleetRecord, error) {
			t, err := s.UpdateTrailer(ctx, pr, id, read)
			return trailerRecord(t), err
		},
		remove: func(ctx context.Context, pr auth.Principal, id uuid.UUID) (fleetRecord, error) {
			t, err := s.DeleteTrailer(ctx, pr, id)
			return trailerRecord(t), err
		},
		tags:   s.TrailerTags,
		export: s.ExportTrailers,
		documents: func(ctx context.Context, pr auth.Principal, id uuid.UUID) ([]documents.Document, error) {
			return p.svc.Documents.FleetRead(ctx, pr, "trailer", id)
		},
	}
}

func (p *Pages) mountFleet(r *web.Routes) {
	// A driver sees the records of its own transport unit (on its
	// unit's pages), not a Fleet menu.
	hidden := func(auth.Principal) (views.NavItem, bool) { return views.NavItem{}, false }
	p.addOwnNav(views.NavItem{Href: "/vehicles", Label: "nav.vehicles", Icon: "truck", Description: "nav.vehicles.about"}, auth.FleetRead, hidden)
	p.addOwnNav(views.NavItem{Href: "/trailers", Label: "nav.trailers", Icon: "truck", Description: "nav.trailers.about"}, auth.FleetRead, hidden)
	for _, k := range []fleetKind{p.vehicleKind(), p.trailerKind()} {
		r.GET(k.path, func(c echo.Context) error { return p.fleetList(c, k) })
		r.GET(k.path+"/export", func(c echo.Context) error { return p.exportFleet(c, k) })
		r.GET(k.path+"/new", func(c echo.Context) error { return p.newFleet(c, k) })
		r.POST(k.path+"/new", func(c echo.Context) error { return p.createFleet(c, k) })
		r.GET(k.path+"/:id", func(c echo.Context) error { return p.fleetPage(c, k) })
		r.GET(k.path+"/:id/edit", func(c echo.Context) error { return p.editFleet(c, k) })
		r.POST(k.path+"/:id/edit", func(c echo.Context) error { return p.updateFleet(c, k) })
		r.GET(k.path+"/:id/delete", func(c echo.Context) error { return p.confirmDeleteFleet(c, k) })
		r.POST(k.path+"/:id/delete", func(c echo.Context) error { return p.deleteFleet(c, k) })
		r.GET(k.path+"/:id/documents/:document_id", func(c echo.Context) error { return p.holderDocumentPage(c, k.kind) })
		r.POST(k.path+"/:id/documents/:document_id", func(c echo.Context) error { return p.uploadHolderDocument(c, k.kind) })
	}
}

// fleetState is a fleet list's filters, sort and page as the address
// holds them.
type fleetState struct {
	path              string
	Search            string
	Status, Type, Tag []string
	Ready             string // is_ready: "true", "false" or ""
	SortBy, SortOrder string
	Page              int
}

func readFleetState(path string, q url.Values) fleetState {
	s := fleetState{path: path, Search: strings.TrimSpace(q.Get("search")), Status: listValues(q, "status"),
		Type: listValues(q, "type"), Tag: listValues(q, "tag"), Ready: q.Get("is_ready"),
		SortBy: q.Get("sort_by"), SortOrder: q.Get("sort_order")}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

func (s fleetState) sortBy() string {
	if s.SortBy == "" {
		return "internal_number"
	}
	return s.SortBy
}

func (s fleetState) params() fleet.ListParams {
	return fleet.ListParams{Status: s.Status, Type: s.Type, Tags: s.Tag, IsReady: s.Ready, Search: s.Search,
		SortBy: s.sortBy(), SortOrder: s.SortOrder, Page: paging.Request{Number: s.Page, Size: fleetPerPage}}
}

// drop clears the fields the service refused, so the list still shows.
func (s *fleetState) drop(fields map[string][]string) {
	for f := range fields {
		switch f {
		case "status":
			s.Status = nil
		case "type":
			s.Type = nil
		case "tag":
			s.Tag = nil
		case "is_ready":
			s.Ready = ""
		case "search":
			s.Search = ""
		case "sort_by":
			s.SortBy = ""
		case "sort_order":
			s.SortOrder = ""
		}
	}
}

func (s fleetState) filtered() bool {
	return s.Search != "" || s.Ready != "" || len(s.Status)+len(s.Type)+len(s.Tag) > 0
}

// url is the canonical address of the state: empty values and defaults
// left out.
func (s fleetState) url() string {
	q := url.Values{}
	set := func(name string, v []string) {
		if len(v) > 0 {
			q.Set(name, strings.Join(v, ","))
		}
	}
	if s.Search != "" {
		q.Set("search", s.Search)
	}
	set("status", s.Status)
	set("type", s.Type)
	set("tag", s.Tag)
	if s.Ready != "" {
		q.Set("is_ready", s.Ready)
	}
	if s.SortBy != "" && s.SortBy != "internal_number" {
		q.Set("sort_by", s.SortBy)
	}
	if s.SortOrder == "desc" {
		q.Set("sort_order", "desc")
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return s.path
	}
	return s.path + "?" + q.Encode()
}

// refinesSearch: the list only changes the search of the page shown, which
// already had one (as the drivers list's refinesSearch).
func (s fleetState) refinesSearch(current string) bool {
	u, err := url.Parse(current)
	if err != nil || u.Path != s.path {
		return false
	}
	was := readFleetState(s.path, u.Query())
	if was.Search == "" || s.Search == "" {
		return false
	}
	was.Search, was.Page, s.Search, s.Page = "", 0, "", 0
	return was.url() == s.url()
}

// fleetListParams gives the fleet service a list's parameters as it reads
// them, after its access check.
func fleetListParams(lp fleet.ListParams) func(*fleet.ListParams) error {
	return func(in *fleet.ListParams) error {
		*in = lp
		return nil
	}
}

// fleetColumns are the lists' columns; sortBy names the service's sort
// field ("" not sortable).
var fleetColumns = []struct{ label, sortBy string }{
	{"fleet.col.number", "internal_number"},
	{"fleet.col.plate", "plate_number"},
	{"fleet.col.type", ""},
	{"fleet.col.make_model", ""},
	{"fleet.col.status", ""},
	{"fleet.col.documents", ""},
	{"fleet.col.ready", ""},
}

// fleetList is the vehicles or trailers list (filters, search, sort,
// pager); an htmx request from its form, a sort link or the pager gets the
// results alone, with the address to show.
func (p *Pages) fleetList(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	st := readFleetState(k.path, c.QueryParams())
	var problem []string
	res, err := k.list(ctx, pr, fleetListParams(st.params()))
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		problem = r.messages()
		st.drop(r.fields)
		res, err = k.list(ctx, pr, fleetListParams(st.params()))
	}
	if err != nil {
		return err
	}
	if len(res.Items) == 0 && st.Page > 1 {
		st.Page = res.LastPage()
		return p.redirect(c, st.url())
	}
	results := p.fleetResults(lang, k, st, res)
	results.Problem = strings.Join(problem, " ")
	results.Filtered = st.filtered()
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "fleet-results" {
		history := "HX-Push-Url"
		if st.refinesSearch(c.Request().Header.Get("HX-Current-URL")) {
			history = "HX-Replace-Url"
		}
		c.Response().Header().Set(history, st.url())
		return p.fragment(c, http.StatusOK, views.FleetResultsSection(results))
	}
	tags, err := k.tags(ctx, pr)
	if err != nil {
		return err
	}
	d := views.FleetListData{Kind: k.kind, Path: k.path, Search: st.Search, CanCreate: shows(pr, auth.FleetWrite),
		CanImport: shows(pr, auth.FleetWrite), Results: results}
	for _, s := range k.statuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("fleet.status." + s), Selected: slices.Contains(st.Status, s)})
	}
	for _, t := range k.types {
		d.Types = append(d.Types, views.Option{Value: t, Label: k.typeLabel(lang, t), Selected: slices.Contains(st.Type, t)})
	}
	for _, t := range tags {
		d.Tags = append(d.Tags, views.Option{Value: t, Label: t, Selected: slices.Contains(st.Tag, t)})
	}
	for _, v := range []string{"true", "false"} {
		d.Ready = append(d.Ready, views.Option{Value: v, Label: lang.T("fleet.filter.ready." + v), Selected: st.Ready == v})
	}
	return p.render(c, http.StatusOK, views.FleetTitleKey(k.kind), views.FleetList(d))
}

func (p *Pages) fleetResults(lang i18n.Lang, k fleetKind, st fleetState, res paging.Page[fleetRecord]) views.FleetResults {
	order := st.SortOrder
	if order == "" {
		order = "asc"
	}
	r := views.FleetResults{Kind: k.kind, Path: k.path, SortBy: st.SortBy, SortOrder: st.SortOrder,
		Pager: pager(res, func(n int) string { at := st; at.Page = n; return at.url() })}
	for _, col := range fleetColumns {
		sc := views.SortColumn{Label: col.label, Target: "#fleet-results"}
		if col.sortBy != "" {
			next := st
			next.Page = 1
			next.SortBy, next.SortOrder = col.sortBy, "asc"
			if col.sortBy == st.sortBy() {
				sc.Active, sc.Desc = true, order == "desc"
				if !sc.Desc {
					next.SortOrder = "desc"
				}
			}
			sc.URL = next.url()
		}
		r.Columns = append(r.Columns, sc)
	}
	// The downloads carry the list's filters and sort (not its page).
	all := st
	all.Page = 1
	_, query, _ := strings.Cut(all.url(), "?")
	with := func(format string) string {
		path := k.path + "/export"
		if query != "" {
			path += "?" + query
		}
		return withParam(path, "format", format)
	}
	r.ExportCSV, r.ExportXLSX = with("csv"), with("xlsx")
	for _, it := range res.Items {
		row := views.FleetRow{URL: k.url(it.ID), Number: it.Number, Plate: it.Plate, Type: k.typeLabel(lang, it.Type),
			MakeModel: strings.TrimSpace(deref(it.Make) + " " + deref(it.Model)), Status: it.Status, Ready: it.Ready}
		if !it.Ready {
			row.NotReady = notReadyReason(lang, it)
		}
		counts := map[string]int{"valid": it.Summary.Valid, "warning": it.Summary.Warning,
			"expiring_soon": it.Summary.ExpiringSoon, "expired": it.Summary.Expired, "no_data": it.Summary.NoData}
		for _, s := range summaryOrder {
			if counts[s] > 0 {
				row.Documents = append(row.Documents, views.StatusCount{Status: s, Count: counts[s]})
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// exportFleet downloads the filtered vehicles or trailers list, the API's
// export on the same service (docs/import-export.md): the list page's
// filters and sort; the service checks the caller, then the format.
func (p *Pages) exportFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	format, ferr := export.FormatParam(c.QueryParam("format"))
	st := readFleetState(k.path, c.QueryParams())
	lang := i18n.From(ctx)
	name := strings.TrimPrefix(k.path, "/")
	return web.Export(c, format, name+"-"+pr.Today().String(), lang.T("fleet.export.sheet."+k.kind), func(start func() (export.Writer, error)) error {
		return k.export(ctx, pr, func(lp *fleet.ListParams) error {
			if ferr != nil {
				return ferr
			}
			*lp = st.params()
			return nil
		}, lang, start)
	})
}

// notReadyReason says why a record is not ready: a status other than
// active, else its required documents (docs/fleet.md, "is_ready").
func notReadyReason(lang i18n.Lang, r fleetRecord) string {
	if r.Status != "active" {
		return lang.T("fleet.not_ready.status", "status", i18n.M("fleet.status."+r.Status))
	}
	return lang.T("fleet.not_ready.documents")
}

// fleetPage is a vehicle's or trailer's page. The service decides who may
// read it (a driver: its own unit's only); the page offers only what the
// caller's role allows.
func (p *Pages) fleetPage(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	r, err := k.get(ctx, pr, auth.FleetRead, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	office := ""
	if r.OfficeID != nil && showsAll(pr, auth.FleetRead) {
		if office, err = p.officeName(c, pr, *r.OfficeID); err != nil {
			return err
		}
	}
	d := views.FleetPageData{Kind: k.kind, Path: k.path, URL: k.url(r.ID), Number: r.Number, Plate: r.Plate,
		Type: k.typeLabel(lang, r.Type), Status: r.Status, Ready: r.Ready, Tags: r.Tags,
		CanEdit: shows(pr, auth.FleetWrite), CanDelete: shows(pr, auth.FleetWrite)}
	if !r.Ready {
		d.NotReady = notReadyReason(lang, r)
	}
	if shows(pr, auth.AuditRead) {
		d.HistoryURL = "/audit?" + url.Values{"entity_type": {k.kind}, "entity_id": {r.ID.String()}}.Encode()
	}
	if u := r.Unit; u != nil {
		unit := &views.FleetUnit{DriverName: u.Driver.FirstName + " " + u.Driver.LastName, DriverNumber: u.Driver.InternalNumber}
		if shows(pr, auth.DriversRead) {
			unit.DriverURL = driverURL(u.Driver.ID)
		}
		if u.Trailer != nil && k.kind == "vehicle" {
			unit.Other = &views.FleetUnitRecord{Label: "fleet.unit.trailer", Number: u.Trailer.InternalNumber,
				Plate: deref(u.Trailer.PlateNumber), URL: "/trailers/" + u.Trailer.ID.String()}
		}
		if u.Vehicle != nil && k.kind == "trailer" {
			unit.Other = &views.FleetUnitRecord{Label: "fleet.unit.vehicle", Number: u.Vehicle.InternalNumber,
				Plate: deref(u.Vehicle.PlateNumber), URL: "/vehicles/" + u.Vehicle.ID.String()}
		}
		d.Unit = unit
	}
	d.Sections = fleetSections(lang, k, fleetValues(r), office)
	if err := p.fleetDocuments(ctx, pr, lang, k, r, &d); err != nil {
		return err
	}
	return p.renderTitled(c, http.StatusOK, r.Plate, views.FleetPage(d))
}

// fleetDocuments fills the page's documents section with the documents
// service's list of the record's documents, as the driver page's cards,
// each leading to the document's page.
func (p *Pages) fleetDocuments(ctx context.Context, pr auth.Principal, lang i18n.Lang, k fleetKind, r fleetRecord, d *views.FleetPageData) error {
	docs, err := k.documents(ctx, pr, r.ID)
	if err != nil {
		return err
	}
	d.ShowDocuments = true
	for _, doc := range docs {
		d.Documents = append(d.Documents, documentCard(lang, k.kind, r.ID, doc))
	}
	return nil
}

// fleetSections are the record's fields in words, grouped as the form
// groups them; the fields of a light vehicle or of refrigeration only
// when they apply, the tags apart (in the page's head).
func fleetSections(lang i18n.Lang, k fleetKind, values map[string]string, office string) []views.FleetSection {
	var out []views.FleetSection
	for _, f := range views.FleetFormFields(k.kind) {
		if f.Name == "tags" || !fleetFieldApplies(f.Only, values) {
			continue
		}
		if len(out) == 0 || out[len(out)-1].Title != f.Group {
			out = append(out, views.FleetSection{Title: f.Group})
		}
		v := values[f.Name]
		switch {
		case v == "":
		case f.Name == "type":
			v = k.typeLabel(lang, v)
		case f.Name == "status":
			v = lang.T("fleet.status." + v)
		case f.Name == "assignment_mode":
			v = lang.Or(v, "fleet.assignment."+v)
		case f.Name == "fuel_type":
			v = lang.Or(v, "fleet.fuel."+v)
		case f.Name == "office_id":
			v = office
		case f.Kind == "checkbox":
			v = lang.T(map[bool]string{true: "driver.yes", false: "driver.no"}[v == "true"])
		case f.Kind == "date":
			if d, err := civil.Parse(v); err == nil {
				v = lang.Date(d)
			}
		case f.Kind == "decimal" && lang != i18n.EN:
			v = strings.Replace(v, ".", ",", 1)
		}
		s := &out[len(out)-1]
		s.Fields = append(s.Fields, views.FleetValue{Field: f.Name, Value: v, Wide: f.Wide})
	}
	return out
}

// fleetFieldApplies: a field shown only for a light vehicle or with
// refrigeration applies when the values say so.
func fleetFieldApplies(only string, values map[string]string) bool {
	switch only {
	case "pkv":
		return values["type"] == "pkv"
	case "frigo":
		return values["has_refrigeration"] == "true"
	}
	return true
}

// fleetValues are a stored record's fields as the form shows them, by
// their API names.
func fleetValues(r fleetRecord) map[string]string {
	raw, _ := json.Marshal(r.object) // a struct of plain values always encodes
	var m map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	_ = dec.Decode(&m)
	out := map[string]string{}
	for name, v := range m {
		switch v := v.(type) {
		case string:
			out[name] = v
		case json.Number:
			out[name] = v.String()
		case bool:
			out[name] = strconv.FormatBool(v)
		case []any:
			var parts []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					parts = append(parts, s)
				}
			}
			out[name] = strings.Join(parts, ", ")
		}
	}
	return out
}

// newFleet is the empty create form (admins and dispatchers; others get
// the 403 page, the answer the service gives their create).
func (p *Pages) newFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	if err := p.svc.Fleet.CheckWrite(pr); err != nil {
		return err
	}
	values := map[string]string{"status": "active"}
	if k.kind == "vehicle" {
		values["type"] = "lkv"
	}
	d, err := p.fleetForm(c, pr, k, values, nil)
	if err != nil {
		return err
	}
	d.Creating, d.Action, d.CancelURL = true, k.path+"/new", k.path
	return p.render(c, http.StatusOK, "fleet."+k.kind+".new", views.FleetFormPage(d))
}

// createFleet creates the record from the form; refused values come back
// as the form with the service's messages, translated, at their fields.
func (p *Pages) createFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	var values map[string]string
	created, err := k.create(c.Request().Context(), pr, fleetFormInput(c, k.kind, &values))
	if errs, ok := fleetFormErrors(i18n.From(c.Request().Context()), err); ok {
		d, ferr := p.fleetForm(c, pr, k, values, errs)
		if ferr != nil {
			return ferr
		}
		d.Creating, d.Action, d.CancelURL = true, k.path+"/new", k.path
		return p.fleetFormAnswer(c, "fleet."+k.kind+".new", d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "fleet."+k.kind+".created", "plate", created.Plate, "number", created.Number)
	return p.redirect(c, k.url(created.ID))
}

// editFleet is the edit form with every field.
func (p *Pages) editFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	cur, err := k.get(c.Request().Context(), pr, auth.FleetWrite, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d, err := p.fleetForm(c, pr, k, fleetValues(cur), nil)
	if err != nil {
		return err
	}
	d.Action, d.CancelURL, d.Number = k.url(cur.ID)+"/edit", k.url(cur.ID), cur.Number
	return p.render(c, http.StatusOK, "fleet.edit", views.FleetFormPage(d))
}

// updateFleet saves the edit form: the fields it sent, a partial update.
func (p *Pages) updateFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	id := web.PathID(c, "id")
	var values map[string]string
	updated, err := k.update(ctx, pr, id, fleetFormInput(c, k.kind, &values))
	if errs, ok := fleetFormErrors(i18n.From(ctx), err); ok {
		cur, gerr := k.get(ctx, pr, auth.FleetWrite, id)
		if gerr != nil {
			return gerr
		}
		d, ferr := p.fleetForm(c, pr, k, values, errs)
		if ferr != nil {
			return ferr
		}
		d.Action, d.CancelURL, d.Number = k.url(cur.ID)+"/edit", k.url(cur.ID), cur.Number
		return p.fleetFormAnswer(c, "fleet.edit", d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "fleet.updated")
	return p.redirect(c, k.url(updated.ID))
}

// fleetFormAnswer answers a refused save with 422: the form alone for
// htmx (it swaps the form), the whole page otherwise.
func (p *Pages) fleetFormAnswer(c echo.Context, titleKey string, d views.FleetFormData) error {
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "fleet-form" {
		return p.fragment(c, http.StatusUnprocessableEntity, views.FleetForm(d))
	}
	return p.render(c, http.StatusUnprocessableEntity, titleKey, views.FleetFormPage(d))
}

// fleetForm fills the form's choices and the given values and messages.
func (p *Pages) fleetForm(c echo.Context, pr auth.Principal, k fleetKind, values map[string]string, errs map[string][]string) (views.FleetFormData, error) {
	lang := i18n.From(c.Request().Context())
	d := views.FleetFormData{Kind: k.kind, Path: k.path, CSRF: csrfToken(c), Values: values, Errors: errs, Choices: map[string][]views.Option{}}
	for _, t := range k.types {
		d.Choices["type"] = append(d.Choices["type"], views.Option{Value: t, Label: k.typeLabel(lang, t)})
	}
	for _, s := range k.statuses {
		d.Choices["status"] = append(d.Choices["status"], views.Option{Value: s, Label: lang.T("fleet.status." + s)})
	}
	for _, m := range fleet.AssignmentModes {
		d.Choices["assignment_mode"] = append(d.Choices["assignment_mode"], views.Option{Value: m, Label: lang.T("fleet.assignment." + m)})
	}
	for _, f := range fleet.FuelTypes {
		d.Choices["fuel_type"] = append(d.Choices["fuel_type"], views.Option{Value: f, Label: lang.T("fleet.fuel." + f)})
	}
	offices, err := p.svc.Drivers.Offices(c.Request().Context(), pr)
	if err != nil {
		return d, err
	}
	for _, o := range offices {
		d.Choices["office_id"] = append(d.Choices["office_id"], views.Option{Value: o.ID.String(), Label: o.Name})
	}
	return d, nil
}

// wholeNumber and decimalNumber are the numbers a form's number fields
// send on as JSON numbers; anything else goes on as text, which the
// service refuses with its message.
var (
	wholeNumber   = regexp.MustCompile(`^-?[0-9]+$`)
	decimalNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)
)

// fleetFormInput is the posted form as the service reads it, after its
// access checks: every field the form sent, as the API's JSON would carry
// it (an empty text clears an optional field, as null does). The use of a
// vehicle is sent only for a light vehicle and the temperatures only with
// refrigeration, as the form shows them; otherwise they are cleared.
// values keeps what was sent, to show the form again.
func fleetFormInput(c echo.Context, kind string, values *map[string]string) func(*fleet.Input) error {
	return func(in *fleet.Input) error {
		form, err := c.FormParams()
		if err != nil {
			return apperr.BadRequest("msg.common.form_unreadable")
		}
		if err := web.CheckText(form); err != nil {
			return err
		}
		sent := map[string]string{}
		for _, f := range views.FleetFormFields(kind) {
			if v := form[f.Name]; len(v) > 0 {
				// A checkbox sends a hidden "false" and, ticked, "true".
				sent[f.Name] = v[len(v)-1]
			}
		}
		*values = sent
		for _, f := range views.FleetFormFields(kind) {
			v, ok := sent[f.Name]
			if !ok {
				continue
			}
			var value any = v
			num := strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "").Replace(strings.TrimSpace(v))
			switch {
			case (f.Only == "pkv" && has(sent, "type") && sent["type"] != "pkv") ||
				(f.Only == "frigo" && has(sent, "has_refrigeration") && sent["has_refrigeration"] != "true"):
				value = nil
			case f.Kind == "checkbox":
				value = v == "true"
			case f.Name == "tags":
				value = drivers.ParseTags(v)
			case (f.Kind == "number" || f.Kind == "decimal") && num == "":
				value = nil
			case f.Kind == "number" && wholeNumber.MatchString(num):
				value = json.RawMessage(num)
			case f.Kind == "decimal" && decimalNumber.MatchString(web.FormAmount(num)):
				value = json.RawMessage(web.FormAmount(num))
			}
			if err := in.Set(f.Name, value); err != nil {
				return err
			}
		}
		return nil
	}
}

func has(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// fleetFormErrors is formErrors for the fleet forms: a duplicate plate or
// VIN (409 DuplicateEntry) shows at its field.
func fleetFormErrors(lang i18n.Lang, err error) (map[string][]string, bool) {
	unique := "plate_number"
	var ae *apperr.Error
	if errors.As(err, &ae) && ae.Text.Key == "msg.fleet.vin_taken" {
		unique = "vin"
	}
	return formErrors(lang, err, unique)
}

// confirmDeleteFleet asks before deleting (admins and dispatchers).
func (p *Pages) confirmDeleteFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	r, err := k.get(c.Request().Context(), pr, auth.FleetWrite, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "fleet.delete", views.FleetDelete(views.FleetDeleteData{
		Kind: k.kind, Number: r.Number, Plate: r.Plate, Action: k.url(r.ID) + "/delete", CSRF: csrfToken(c), CancelURL: k.url(r.ID),
	}))
}

// deleteFleet soft-deletes the record and returns to the list; one in an
// active transport unit is refused (409) on the error page, which says so.
func (p *Pages) deleteFleet(c echo.Context, k fleetKind) error {
	pr := web.Principal(c)
	r, err := k.remove(c.Request().Context(), pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "fleet."+k.kind+".deleted", "plate", r.Plate)
	return p.redirect(c, k.path)
}
