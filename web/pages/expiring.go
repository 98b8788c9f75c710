package pages

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// expiringPerPage is the documents list's page size.
const expiringPerPage = 25

// expiringDefaultDays is the window of the page opened without filters
// (the menu's entry): the documents coming due within 30 days.
const expiringDefaultDays = 30

func (p *Pages) mountExpiring(r *web.Routes) {
	p.addNav(views.NavItem{Href: documentsURL, Label: "nav.expiring", Icon: "clock", Description: "nav.expiring.about"},
		auth.DocumentsExpiry)
	r.GET(documentsURL, p.expiringList)
	r.GET("/documents/export", p.exportExpiring)
}

// expiringState is the documents list's filters, sort and page as the
// address holds them (docs/web-app.md, "Documents expiring").
type expiringState struct {
	// Within is expiring_within in days (0: any date). An address without
	// it and without a status filter means expiringDefaultDays; "any"
	// asks for no window.
	Within        int
	Status, Types []string
	// Holders are the holder types listed (none: every one).
	Holders           []string
	SortBy, SortOrder string
	Page              int
}

// readExpiringState takes the list's state from the query.
func readExpiringState(q url.Values) expiringState {
	s := expiringState{
		Status:    listValues(q, "status"),
		Types:     listValues(q, "type"),
		Holders:   listValues(q, "holder_type"),
		SortBy:    q.Get("sort_by"),
		SortOrder: q.Get("sort_order"),
	}
	switch raw := q.Get("expiring_within"); {
	case raw == "" && !q.Has("expiring_within") && len(s.Status) == 0:
		s.Within = expiringDefaultDays
	default:
		// "any", or not a number: no window.
		s.Within, _ = strconv.Atoi(raw)
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

// params turns the state into the service's parameters.
func (s expiringState) params() documents.ExpiryParams {
	ep := documents.ExpiryParams{Status: s.Status, Type: s.Types, HolderType: s.Holders, SortBy: s.SortBy, SortOrder: s.SortOrder,
		Page: paging.Request{Number: s.Page, Size: expiringPerPage}}
	if s.Within != 0 {
		ep.ExpiringWithin = &s.Within
	}
	return ep
}

// drop clears the fields the service refused, so the list can still show.
func (s *expiringState) drop(fields map[string][]string) {
	for f := range fields {
		switch f {
		case "expiring_within":
			s.Within = 0
		case "status":
			s.Status = nil
		case "type":
			s.Types = nil
		case "holder_type":
			s.Holders = nil
		case "sort_by":
			s.SortBy = ""
		case "sort_order":
			s.SortOrder = ""
		}
	}
}

// query is the canonical query of the state: defaults left out, so shared
// links stay short.
func (s expiringState) query() url.Values {
	q := url.Values{}
	switch {
	case s.Within == 0 && len(s.Status) == 0:
		q.Set("expiring_within", "any")
	case s.Within != 0 && (s.Within != expiringDefaultDays || len(s.Status) > 0):
		q.Set("expiring_within", strconv.Itoa(s.Within))
	}
	if len(s.Status) > 0 {
		q.Set("status", strings.Join(s.Status, ","))
	}
	if len(s.Types) > 0 {
		q.Set("type", strings.Join(s.Types, ","))
	}
	if len(s.Holders) > 0 {
		q.Set("holder_type", strings.Join(s.Holders, ","))
	}
	if s.SortBy != "" && s.SortBy != "valid_until" {
		q.Set("sort_by", s.SortBy)
	}
	if s.SortOrder == "desc" {
		q.Set("sort_order", "desc")
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	return q
}

// url is the page's address of the state.
func (s expiringState) url() string { return withQuery("/documents", s.query()) }

func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// expiringList is the "Documents expiring" page: the company's documents,
// one row each, by expiry. An htmx request from the filter form, a sort
// link or the pager gets the results alone, with the address to show.
func (p *Pages) expiringList(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	st := readExpiringState(c.QueryParams())
	var problem []string
	res, err := p.svc.Documents.Expiring(ctx, pr, expiryParams(st.params()))
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		// A hand-edited address: say what was wrong and list without it.
		problem = r.messages()
		st.drop(r.fields)
		res, err = p.svc.Documents.Expiring(ctx, pr, expiryParams(st.params()))
	}
	if err != nil {
		return err
	}
	if len(res.Items) == 0 && st.Page > 1 {
		st.Page = res.LastPage()
		return p.redirect(c, st.url())
	}
	results := expiringResults(lang, st, res)
	results.Problem = strings.Join(problem, " ")
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "expiring-results" {
		c.Response().Header().Set("HX-Push-Url", st.url())
		return p.fragment(c, http.StatusOK, views.ExpiringResultsSection(results))
	}
	d := views.ExpiringData{Results: results}
	d.Within = append(d.Within, views.Option{Value: "any", Label: lang.T("expiring.filter.any_date"), Selected: st.Within == 0})
	choices := dueWithinChoices
	if st.Within != 0 && !slices.Contains(choices, st.Within) {
		// A number from a hand-edited or shared address stays selectable.
		choices = append(slices.Clone(choices), st.Within)
	}
	for _, n := range choices {
		d.Within = append(d.Within, views.Option{Value: strconv.Itoa(n), Label: lang.T("drivers.filter.due_days", "days", strconv.Itoa(n)),
			Selected: st.Within == n})
	}
	for _, s := range summaryOrder {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("doc.status." + s),
			Hint: lang.T("drivers.docfilter." + s), Selected: slices.Contains(st.Status, s)})
	}
	names := documents.TypeNamesFrom(ctx)
	codes := slices.Clone(documents.Types)
	var custom []string
	for code := range names {
		if !documents.IsBuiltIn(code) {
			custom = append(custom, code)
		}
	}
	if shows(pr, auth.FleetRead) {
		for _, h := range []string{documents.HolderDriver, documents.HolderVehicle, documents.HolderTrailer} {
			d.Holders = append(d.Holders, views.Option{Value: h, Label: lang.T("expiring.filter.holder." + h), Selected: slices.Contains(st.Holders, h)})
		}
		for _, code := range append(slices.Clone(documents.VehicleTypes), documents.TrailerTypes...) {
			if !slices.Contains(codes, code) {
				codes = append(codes, code)
			}
		}
	}
	sort.Strings(custom)
	for _, code := range append(codes, custom...) {
		d.Types = append(d.Types, views.Option{Value: code, Label: names.Name(lang, code), Selected: slices.Contains(st.Types, code)})
	}
	return p.render(c, http.StatusOK, "expiring.title", views.Expiring(d))
}

// expiryParams gives the documents service the list's parameters as it
// reads them, after its access check.
func expiryParams(ep documents.ExpiryParams) func(*documents.ExpiryParams) error {
	return func(in *documents.ExpiryParams) error {
		*in = ep
		return nil
	}
}

// expiringColumns are the list's columns; sortBy names the service's sort
// ("" not sortable); number is left out for a caller who sees statuses only.
var expiringColumns = []struct {
	label, sortBy, class string
}{
	{"expiring.col.driver", "driver", ""},
	{"expiring.col.type", "type", ""},
	{"expiring.col.number", "", "hidden lg:table-cell"},
	{"expiring.col.valid_until", "valid_until", ""},
	{"expiring.col.status", "", ""},
}

func expiringResults(lang i18n.Lang, st expiringState, res documents.ExpiryList) views.ExpiringResults {
	sortBy, order := st.SortBy, st.SortOrder
	if sortBy == "" {
		sortBy = "valid_until"
	}
	if order == "" {
		order = "asc"
	}
	r := views.ExpiringResults{SortBy: st.SortBy, SortOrder: st.SortOrder, ShowNumber: res.NumbersShown,
		Pager: pager(res.Page, func(n int) string { at := st; at.Page = n; return at.url() })}
	for _, col := range expiringColumns {
		if col.label == "expiring.col.number" && !res.NumbersShown {
			continue
		}
		sc := views.SortColumn{Label: col.label, Class: col.class, Target: "#expiring-results"}
		if col.sortBy != "" {
			next := st
			next.Page = 1
			next.SortBy, next.SortOrder = col.sortBy, "asc"
			if col.sortBy == sortBy {
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
	q := all.query()
	r.ExportCSV = withParam(withQuery("/documents/export", q), "format", "csv")
	r.ExportXLSX = withParam(withQuery("/documents/export", q), "format", "xlsx")
	for _, it := range res.Items {
		row := views.ExpiringRow{
			DriverURL: holderURL(it.HolderType, it.HolderID), DriverName: it.Holder.Name, DriverNumber: it.Holder.InternalNumber,
			Type: it.Type, DocURL: holderDocumentURL(it.HolderType, it.HolderID, it.ID), Number: deref(it.Number),
			Status: it.EffectiveStatus, Days: it.DaysUntilExpiry,
		}
		if it.ValidUntil != nil {
			row.ValidUntil = lang.Date(*it.ValidUntil)
		}
		if it.LimitedBy != nil {
			row.LimitedBy = *it.LimitedBy
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// exportExpiring downloads the filtered list, the API's export on the
// same service: the page's filters and sort; the service checks the
// caller, then the format.
func (p *Pages) exportExpiring(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	format, ferr := export.FormatParam(c.QueryParam("format"))
	st := readExpiringState(c.QueryParams())
	lang := i18n.From(ctx)
	return web.Export(c, format, "documents-"+pr.Today().String(), lang.T("expiring.sheet"), func(start func() (export.Writer, error)) error {
		return p.svc.Documents.ExportExpiring(ctx, pr, func(ep *documents.ExpiryParams) error {
			if ferr != nil {
				return ferr
			}
			*ep = st.params()
			return nil
		}, lang, start)
	})
}
