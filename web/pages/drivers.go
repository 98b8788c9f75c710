package pages

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/phones"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// driversPerPage is the drivers list's page size.
const driversPerPage = 25

func (p *Pages) mountDrivers(r *web.Routes) {
	p.addOwnNav(views.NavItem{Href: "/drivers", Label: "nav.drivers", Icon: "users", Description: "nav.drivers.about"},
		auth.DriversRead, func(pr auth.Principal) (views.NavItem, bool) {
			// A driver has no list: its entry is its own profile, its one
			// home in the menu (unlinked: /drivers says why there is none).
			href := "/drivers"
			if pr.DriverID != nil {
				href = driverURL(*pr.DriverID)
			}
			return views.NavItem{Href: href, Label: "nav.my_profile", Icon: "user", Description: "nav.my_profile.about"}, true
		})
	r.GET("/drivers", p.driversList)
	r.GET("/drivers/export", p.exportDrivers)
	r.GET("/reports/compliance", p.complianceReport)
	r.GET("/drivers/new", p.newDriver)
	r.POST("/drivers/new", p.createDriver)
	r.GET("/drivers/:id", p.driverPage)
	r.GET("/drivers/:id/edit", p.editDriver)
	r.POST("/drivers/:id/edit", p.updateDriver)
	r.GET("/drivers/:id/delete", p.confirmDeleteDriver)
	r.POST("/drivers/:id/delete", p.deleteDriver)
	r.GET("/drivers/:id/documents/:document_id", p.documentPage)
	r.POST("/drivers/:id/documents/:document_id", p.uploadDocument)
	r.GET("/files/:id/download", p.downloadFile)
}

// listState is the list's filters, sort and page as the URL holds them.
type listState struct {
	Search                              string
	Status, Citizenship, DocumentStatus []string
	Offices, Tags                       []string
	// DueWithin is document_due_within in days (0: not filtered).
	DueWithin int
	// Ready is is_ready: "true", "false" or "" (not filtered).
	Ready             string
	SortBy, SortOrder string
	Page              int
}

// dueWithinChoices are the page's "expiring within" choices, in days. A
// hand-edited address may hold any number the API accepts.
var dueWithinChoices = []int{7, 14, 30, 60, 90}

// refinesSearch tells whether the list st only changes the search of the
// page the browser shows (current, htmx's HX-Current-URL), which already had
// one: the same filters and sort, another search term, any page.
func refinesSearch(current string, st listState) bool {
	u, err := url.Parse(current)
	if err != nil || u.Path != "/drivers" {
		return false
	}
	was := readListState(u.Query())
	if was.Search == "" || st.Search == "" {
		return false
	}
	was.Search, was.Page, st.Search, st.Page = "", 0, "", 0
	return was.url() == st.url()
}

// readListState takes the list's state from the query. Like the API, a
// filter may hold several comma-separated values (OR).
func readListState(q url.Values) listState {
	s := listState{
		Search:         strings.TrimSpace(q.Get("search")),
		Status:         listValues(q, "status"),
		Offices:        listValues(q, "office_id"),
		Citizenship:    listValues(q, "citizenship"),
		Tags:           listValues(q, "tag"),
		DocumentStatus: listValues(q, "document_status"),
		Ready:          q.Get("is_ready"),
		SortBy:         q.Get("sort_by"),
		SortOrder:      q.Get("sort_order"),
	}
	// Not a number names no choice: the filter is left out, as an unknown
	// office finds nobody rather than failing the page.
	s.DueWithin, _ = strconv.Atoi(q.Get("document_due_within"))
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

func listValues(q url.Values, name string) []string {
	var out []string
	for _, v := range q[name] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" && !slices.Contains(out, part) {
				out = append(out, part)
			}
		}
	}
	return out
}

// defaultSort is the sort when the address names none: the next document
// coming due first while the list answers "whose documents expire within N
// days", else the driver number.
func (s listState) defaultSort() string {
	if s.DueWithin != 0 {
		return "next_due"
	}
	return "internal_number"
}

// sortBy is the sort in effect.
func (s listState) sortBy() string {
	if s.SortBy == "" {
		return s.defaultSort()
	}
	return s.SortBy
}

// params turns the state into the service's list parameters.
func (s listState) params() drivers.ListParams {
	lp := drivers.ListParams{
		Status: s.Status, Citizenship: s.Citizenship, Tags: s.Tags, DocumentStatus: s.DocumentStatus, IsReady: s.Ready,
		Search: s.Search, SortBy: s.sortBy(), SortOrder: s.SortOrder, Page: paging.Request{Number: s.Page, Size: driversPerPage},
	}
	if s.DueWithin != 0 {
		lp.DocumentDueWithin = &s.DueWithin
	}
	for _, raw := range s.Offices {
		// A malformed id names no office: the filter then finds nobody,
		// as a deleted office would.
		id, err := uuid.Parse(raw)
		if err != nil {
			id = uuid.Nil
		}
		lp.OfficeIDs = append(lp.OfficeIDs, id)
	}
	return lp
}

// drop clears the fields the service refused, so the list can still show.
func (s *listState) drop(fields map[string][]string) {
	for f := range fields {
		switch f {
		case "status":
			s.Status = nil
		case "citizenship":
			s.Citizenship = nil
		case "tag":
			s.Tags = nil
		case "document_status":
			s.DocumentStatus = nil
		case "document_due_within":
			s.DueWithin = 0
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

func (s listState) filtered() bool {
	return s.Search != "" || s.DueWithin != 0 || s.Ready != "" || len(s.Status)+len(s.Offices)+len(s.Citizenship)+len(s.Tags)+len(s.DocumentStatus) > 0
}

// url is the canonical address of the state: empty values and defaults
// left out, so shared links stay short.
func (s listState) url() string {
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
	set("office_id", s.Offices)
	set("citizenship", s.Citizenship)
	set("tag", s.Tags)
	set("document_status", s.DocumentStatus)
	if s.DueWithin != 0 {
		q.Set("document_due_within", strconv.Itoa(s.DueWithin))
	}
	if s.Ready != "" {
		q.Set("is_ready", s.Ready)
	}
	if s.SortBy != "" && s.SortBy != s.defaultSort() {
		q.Set("sort_by", s.SortBy)
	}
	if s.SortOrder == "desc" {
		q.Set("sort_order", "desc")
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return "/drivers"
	}
	return "/drivers?" + q.Encode()
}

// driversList is the drivers list. An htmx request from the filter form,
// a sort link or the pager gets the results alone, with the URL to show
// in HX-Push-Url. A driver has no list: it goes to its own profile.
func (p *Pages) driversList(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	if ownOnly(pr, auth.DriversRead) {
		return p.ownProfile(c, pr)
	}
	lang := i18n.From(ctx)
	st := readListState(c.QueryParams())
	var problem []string
	res, err := p.svc.Drivers.List(ctx, pr, listParams(st.params()))
	if r, _ := refusalOf(lang, err, noFile); r.invalid() {
		// A hand-edited address: say what was wrong and list without it.
		problem = r.messages()
		st.drop(r.fields)
		res, err = p.svc.Drivers.List(ctx, pr, listParams(st.params()))
	}
	if err != nil {
		return err
	}
	if len(res.Items) == 0 && st.Page > 1 {
		// Past the end (drivers were deleted since the link was made):
		// the last page.
		st.Page = res.LastPage()
		return p.redirect(c, st.url())
	}
	results := p.driverResults(lang, pr, st, res)
	results.Problem = strings.Join(problem, " ")
	results.Filtered = st.filtered()

	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "driver-results" {
		// A new entry in the browser's history for each new list, but not
		// for each refinement of a search being typed: Back returns to the
		// list before the search, not to its first letters.
		history := "HX-Push-Url"
		if refinesSearch(c.Request().Header.Get("HX-Current-URL"), st) {
			history = "HX-Replace-Url"
		}
		c.Response().Header().Set(history, st.url())
		return p.fragment(c, http.StatusOK, views.DriverResultsSection(results))
	}
	offices, err := p.svc.Drivers.Offices(ctx, pr)
	if err != nil {
		return err
	}
	citizenships, err := p.svc.Drivers.Citizenships(ctx, pr)
	if err != nil {
		return err
	}
	tags, err := p.svc.Drivers.Tags(ctx, pr)
	if err != nil {
		return err
	}
	d := views.DriverListData{
		Search:    st.Search,
		CanCreate: shows(pr, auth.DriversCreate),
		CanImport: shows(pr, auth.DriversImport),
		Results:   results,
	}
	for _, s := range drivers.Statuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("driver.status." + s), Selected: slices.Contains(st.Status, s)})
	}
	for _, o := range offices {
		d.Offices = append(d.Offices, views.Option{Value: o.ID.String(), Label: o.Name, Selected: slices.Contains(st.Offices, o.ID.String())})
	}
	for _, code := range citizenships {
		d.Citizenships = append(d.Citizenships, views.Option{Value: code, Label: countryName(lang, code), Selected: slices.Contains(st.Citizenship, code)})
	}
	sortOptions(lang, d.Citizenships)
	for _, t := range tags {
		d.Tags = append(d.Tags, views.Option{Value: t, Label: t, Selected: slices.Contains(st.Tags, t)})
	}
	// The badges' status words, most urgent first, each with what it means.
	for _, s := range summaryOrder {
		d.DocumentStatuses = append(d.DocumentStatuses, views.Option{Value: s, Label: lang.T("doc.status." + s),
			Hint: lang.T("drivers.docfilter." + s), Selected: slices.Contains(st.DocumentStatus, s)})
	}
	for _, n := range dueWithinChoices {
		d.DueWithin = append(d.DueWithin, views.Option{Value: strconv.Itoa(n), Label: lang.T("drivers.filter.due_days", "days", strconv.Itoa(n)),
			Selected: st.DueWithin == n})
	}
	for _, v := range []string{"true", "false"} {
		d.Ready = append(d.Ready, views.Option{Value: v, Label: lang.T("drivers.filter.ready." + v), Selected: st.Ready == v})
	}
	if st.DueWithin != 0 && !slices.Contains(dueWithinChoices, st.DueWithin) {
		// A number from a hand-edited or shared address stays selectable.
		d.DueWithin = append(d.DueWithin, views.Option{Value: strconv.Itoa(st.DueWithin),
			Label: lang.T("drivers.filter.due_days", "days", strconv.Itoa(st.DueWithin)), Selected: true})
	}
	return p.render(c, http.StatusOK, "drivers.title", views.DriversList(d))
}

// exportDrivers downloads the filtered drivers list, the API's export on
// the same service (docs/import-export.md): the list page's filters.
func (p *Pages) exportDrivers(c echo.Context) error {
	return p.driverDownload(c, "drivers", "drivers.export.sheet", p.svc.Drivers.Export)
}

// complianceReport downloads the compliance report of the filtered drivers.
func (p *Pages) complianceReport(c echo.Context) error {
	return p.driverDownload(c, "compliance", "compliance.sheet", p.svc.Drivers.Compliance)
}

// driverDownload serves a table of the filtered drivers list; the service
// checks the caller, then the format.
func (p *Pages) driverDownload(c echo.Context, name, sheet string,
	run func(context.Context, auth.Principal, func(*drivers.ListParams) error, i18n.Lang, func() (export.Writer, error)) error) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	format, ferr := export.FormatParam(c.QueryParam("format"))
	st := readListState(c.QueryParams())
	lang := i18n.From(ctx)
	return web.Export(c, format, name+"-"+pr.Today().String(), lang.T(sheet), func(start func() (export.Writer, error)) error {
		return run(ctx, pr, func(lp *drivers.ListParams) error {
			if ferr != nil {
				return ferr
			}
			*lp = st.params()
			return nil
		}, lang, start)
	})
}

// listParams gives the drivers service a list's parameters as it reads
// them, after its access check.
func listParams(lp drivers.ListParams) func(*drivers.ListParams) error {
	return func(in *drivers.ListParams) error {
		*in = lp
		return nil
	}
}

// driverColumns are the list's columns; sortBy names the service's sort
// field ("" not sortable).
var driverColumns = []struct {
	label, sortBy, class string
}{
	{"drivers.col.number", "internal_number", ""},
	{"drivers.col.name", "last_name", ""},
	{"drivers.col.status", "", ""},
	{"drivers.col.citizenship", "", "hidden xl:table-cell"},
	{"drivers.col.hire_date", "hire_date", "hidden lg:table-cell"},
	{"drivers.col.next_expiry", "next_due", ""},
	{"drivers.col.documents", "", ""},
	{"drivers.col.ready", "", ""},
}

// summaryOrder shows the most urgent document counts first.
var summaryOrder = []string{"expired", "expiring_soon", "warning", "no_data", "valid"}

func (p *Pages) driverResults(lang i18n.Lang, pr auth.Principal, st listState, res drivers.ListResult) views.DriverResults {
	sortBy, order := st.sortBy(), st.SortOrder
	if order == "" {
		order = "asc"
	}
	r := views.DriverResults{SortBy: st.SortBy, SortOrder: st.SortOrder,
		Pager: pager(res.Page, func(n int) string { at := st; at.Page = n; return at.url() })}
	r.ShowNextExpiry = res.NextExpiryShown
	for _, col := range driverColumns {
		if col.sortBy == "next_due" && !r.ShowNextExpiry {
			continue
		}
		sc := views.SortColumn{Label: col.label, Class: col.class}
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
	_, query, _ := strings.Cut(all.url(), "?")
	with := func(path, format string) string {
		if query != "" {
			path += "?" + query
		}
		return withParam(path, "format", format)
	}
	r.ExportCSV, r.ExportXLSX = with("/drivers/export", "csv"), with("/drivers/export", "xlsx")
	if r.ShowNextExpiry {
		r.Compliance = with("/reports/compliance", "xlsx")
	}
	for _, it := range res.Items {
		row := views.DriverRow{
			URL: "/drivers/" + it.ID.String(), Number: it.InternalNumber, Name: it.FirstName + " " + it.LastName,
			Email: it.Email, Status: it.Status, Ready: it.IsReady,
		}
		if it.Phone != nil {
			row.Phone = phones.Display(*it.Phone)
		}
		if it.Citizenship != nil {
			row.Citizenship = countryName(lang, *it.Citizenship)
		}
		if it.HireDate != nil {
			row.HireDate = lang.Date(*it.HireDate)
		}
		// The next document coming due, and the expired ones apart: an
		// expired document is late, not next (docs/lists.md).
		if nd := it.NextDue; nd != nil {
			row.NextDue = datedCard(lang, it.ID, *nd)
		}
		for _, ex := range it.Expired {
			row.Expired = append(row.Expired, *datedCard(lang, it.ID, ex))
		}
		counts := map[string]int{
			"valid": it.DocumentsSummary.Valid, "warning": it.DocumentsSummary.Warning,
			"expiring_soon": it.DocumentsSummary.ExpiringSoon, "expired": it.DocumentsSummary.Expired,
			"no_data": it.DocumentsSummary.NoData,
		}
		for _, s := range summaryOrder {
			if counts[s] > 0 {
				row.Documents = append(row.Documents, views.StatusCount{Status: s, Count: counts[s]})
			}
		}
		r.Rows = append(r.Rows, row)
	}
	return r
}

// datedCard is a list row's dated document (its next due or an expired
// one) as the views show it.
func datedCard(lang i18n.Lang, driverID uuid.UUID, doc drivers.NextExpiry) *views.DocumentCard {
	days := doc.DaysUntilExpiry
	return &views.DocumentCard{
		ID: doc.DocumentID.String(), URL: documentURL(driverID, doc.DocumentID),
		Type: doc.DocumentType, Status: doc.Status, ValidUntil: lang.Date(doc.ValidUntil), Days: &days, Versions: -1,
	}
}

// ownProfile sends a driver to its own record, or explains that its
// account is not linked to one yet.
func (p *Pages) ownProfile(c echo.Context, pr auth.Principal) error {
	if pr.DriverID != nil {
		return p.redirect(c, "/drivers/"+pr.DriverID.String())
	}
	p.flash(c, views.FlashInfo, "driver.no_record")
	return p.redirect(c, "/")
}

// driverPage is a driver's profile with its documents. The service decides
// who may read it (a driver its own record only) and whether documents are
// shown; the page offers only the actions the caller's role allows.
func (p *Pages) driverPage(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	d, err := p.svc.Drivers.Read(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	office := ""
	if d.OfficeID != nil {
		if office, err = p.officeName(c, pr, *d.OfficeID); err != nil {
			return err
		}
	}
	self := pr.DriverID != nil && *pr.DriverID == d.ID
	data := views.DriverPageData{
		ID: d.ID.String(), URL: driverURL(d.ID), Name: fullName(d), Initials: initials(d.FirstName, d.LastName),
		Number: d.InternalNumber, Email: d.Email, Phone: phones.Display(deref(d.Phone)), Status: d.Status, Ready: d.IsReady,
		Self:          self,
		Sections:      profileSections(lang, d, office),
		ShowDocuments: d.Documents != nil,
		CanEdit:       shows(pr, auth.DriversUpdate),
		CanDelete:     shows(pr, auth.DriversDelete),
	}
	if shows(pr, auth.AuditRead) {
		data.HistoryURL = "/audit?driver_id=" + d.ID.String()
	}
	if showsAll(pr, auth.FinanceRead) {
		data.FinanceURL = ledgerURL(d.ID)
	}
	if shows(pr, auth.PenaltiesRead) {
		data.PenaltiesURL = penaltiesURL(d.ID)
	}
	// Only the company's required types are missing without a file; a
	// type it does not require (A1 for Switzerland, a new custom type) is
	// "not uploaded", in grey, after them (docs/web-app.md).
	for _, doc := range d.Documents {
		card := documentCard(lang, documents.HolderDriver, d.ID, doc)
		card.Optional = !slices.Contains(d.RequiredTypes, doc.Type)
		data.Documents = append(data.Documents, card)
		if card.Status == "no_data" && !card.Optional {
			data.Missing++
		}
	}
	data.Attention = byUrgency(data.Documents, "expired", "expiring_soon", "warning")
	if self {
		// On the driver's phone what needs doing comes first.
		data.Documents = byUrgency(data.Documents, "expired", "expiring_soon", "warning", "no_data", "valid")
		slices.SortStableFunc(data.Documents, func(a, b views.DocumentCard) int {
			return notUploaded(a) - notUploaded(b)
		})
		// ... but before the valid ones.
		slices.SortStableFunc(data.Documents, func(a, b views.DocumentCard) int {
			return boolRank(a.Status == "valid") - boolRank(b.Status == "valid")
		})
	}
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == views.DriverPageID {
		// A change of the driver or its documents (static/live.js).
		return p.fragment(c, http.StatusOK, views.DriverPage(data))
	}
	return p.render(c, http.StatusOK, "drivers.title", views.DriverPage(data))
}

// notUploaded is 1 for a document of a type not required without a file
// (it sorts after the others), else 0.
func notUploaded(c views.DocumentCard) int {
	if c.Optional && c.Status == "no_data" {
		return 1
	}
	return 0
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// byUrgency returns the documents in the given statuses, in that order
// (the documents' own order within a status).
func byUrgency(docs []views.DocumentCard, statuses ...string) []views.DocumentCard {
	var out []views.DocumentCard
	for _, s := range statuses {
		for _, d := range docs {
			if d.Status == s {
				out = append(out, d)
			}
		}
	}
	return out
}

// documentCard is a document of holder holderID (of holderType) as a card
// that links to the document's page.
func documentCard(lang i18n.Lang, holderType string, holderID uuid.UUID, doc documents.Document) views.DocumentCard {
	// The badge, the date, the days left and the cause follow one date:
	// the effective one (the capping document's while a cap limits this
	// one), docs/drivers-and-documents.md, "Validity chains".
	card := views.DocumentCard{
		ID: doc.ID.String(), URL: holderDocumentURL(holderType, holderID, doc.ID), Type: doc.Type,
		Status: doc.Status, Number: deref(doc.Number), Days: doc.EffectiveDays, Versions: -1,
	}
	if doc.Country != nil {
		card.Country = countryName(lang, *doc.Country)
	}
	if doc.ValidFrom != nil {
		card.ValidFrom = lang.Date(*doc.ValidFrom)
	}
	if doc.EffectiveUntil != nil {
		card.ValidUntil = lang.Date(*doc.EffectiveUntil)
	}
	if doc.Files != nil {
		card.Versions = len(doc.Files)
	}
	if doc.LimitedBy != nil {
		card.LimitedBy = *doc.LimitedBy
		if doc.ValidUntil != nil {
			card.OwnValidUntil = lang.Date(*doc.ValidUntil)
		}
	}
	return card
}

func profileSections(lang i18n.Lang, d drivers.Driver, office string) []views.ProfileSection {
	yesNo := lang.T("driver.no")
	if d.ContractIndefinite {
		yesNo = lang.T("driver.yes")
	}
	country := func(code *string) string {
		if code == nil {
			return ""
		}
		return countryName(lang, *code)
	}
	f := func(name, value string) views.ProfileField {
		return views.ProfileField{Label: "driver.field." + name, Value: value}
	}
	wide := func(name, value string) views.ProfileField {
		return views.ProfileField{Label: "driver.field." + name, Value: value, Wide: true}
	}
	sections := []views.ProfileSection{
		{Title: "driver.section.personal", Fields: []views.ProfileField{
			f("first_name", d.FirstName), f("last_name", d.LastName), f("middle_name", deref(d.MiddleName)),
			f("birth_date", formatDate(lang, d.BirthDate)), f("citizenship", country(d.Citizenship)),
			f("rodne_cislo", deref(d.RodneCislo)),
		}},
		{Title: "driver.section.contact", Fields: []views.ProfileField{
			f("email", d.Email), f("phone", phones.Display(deref(d.Phone))),
			wide("registration_address", deref(d.RegistrationAddress)), wide("residence_address", deref(d.ResidenceAddress)),
		}},
		{Title: "driver.section.employment", Fields: []views.ProfileField{
			f("status", lang.T("driver.status."+d.Status)), f("office_id", office),
			f("hire_date", formatDate(lang, d.HireDate)), f("fire_date", formatDate(lang, d.FireDate)),
			f("contract_from", formatDate(lang, d.ContractFrom)), f("contract_to", formatDate(lang, d.ContractTo)),
			f("contract_indefinite", yesNo), f("work_location", deref(d.WorkLocation)),
		}},
		{Title: "driver.section.bank", Fields: []views.ProfileField{
			f("bank_country", country(d.BankCountry)), f("bank_account", deref(d.BankAccount)),
			f("iban", deref(d.IBAN)), f("swift", deref(d.SWIFT)),
		}},
	}
	if d.PersonalHidden() {
		return withoutPersonal(sections)
	}
	return sections
}

// withoutPersonal leaves the personal fields (auth.PersonalFields) out of
// the profile, and a section left empty, for a caller the drivers service
// withheld them from (docs/permissions.md).
func withoutPersonal(sections []views.ProfileSection) []views.ProfileSection {
	personal := map[string]bool{}
	for _, name := range auth.PersonalFields {
		personal["driver.field."+name] = true
	}
	out := sections[:0]
	for _, s := range sections {
		fields := s.Fields[:0]
		for _, f := range s.Fields {
			if !personal[f.Label] {
				fields = append(fields, f)
			}
		}
		if s.Fields = fields; len(fields) > 0 {
			out = append(out, s)
		}
	}
	return out
}

// officeName is the name of one of the company's offices ("" when it is
// gone).
func (p *Pages) officeName(c echo.Context, pr auth.Principal, id uuid.UUID) (string, error) {
	offices, err := p.svc.Drivers.Offices(c.Request().Context(), pr)
	if err != nil {
		return "", err
	}
	for _, o := range offices {
		if o.ID == id {
			return o.Name, nil
		}
	}
	return "", nil
}
