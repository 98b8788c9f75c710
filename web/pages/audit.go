package pages

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/shopspring/decimal"
	"golang.org/x/text/collate"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// auditPerPage is the audit log page size.
const auditPerPage = 50

// auditDriverMatches is how many drivers a name search offers to pick from.
const auditDriverMatches = 10

func (p *Pages) mountAudit(r *web.Routes) {
	p.addNav(views.NavItem{Href: "/audit", Label: "nav.audit", Icon: "clipboard", Description: "nav.audit.about"}, auth.AuditRead)
	r.GET("/audit", p.auditLog)
	r.GET("/audit/export", p.auditExport)
}

// auditState is the log's filters and page as the URL holds them: who
// (user_id), what was done (action), what kind of record (entity_type),
// which record (driver_id, or a driver to find by name, or entity_id) and
// when (from, to: days in the company's time zone, both included).
type auditState struct {
	UserID, Action, EntityType, DriverID, Driver, EntityID, From, To string
	Page                                                             int
}

func readAuditState(q url.Values) auditState {
	s := auditState{
		UserID: q.Get("user_id"), Action: q.Get("action"), EntityType: q.Get("entity_type"), DriverID: q.Get("driver_id"),
		Driver: strings.TrimSpace(q.Get("driver")), EntityID: strings.TrimSpace(q.Get("entity_id")),
		From: q.Get("from"), To: q.Get("to"),
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

// url is the state's address, empty values left out.
func (s auditState) url() string { return s.at("/audit") }

// at is the state's query on path.
func (s auditState) at(path string) string {
	q := url.Values{}
	for _, kv := range [][2]string{{"user_id", s.UserID}, {"action", s.Action}, {"entity_type", s.EntityType}, {"driver_id", s.DriverID},
		{"driver", s.Driver}, {"entity_id", s.EntityID}, {"from", s.From}, {"to", s.To}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

func (s auditState) filtered() bool {
	return s.UserID != "" || s.Action != "" || s.EntityType != "" || s.DriverID != "" || s.Driver != "" || s.EntityID != "" || s.From != "" || s.To != ""
}

// auditLog lists the company's audit rows, newest first, with filters.
// The service decides who may read them (403 page for other roles).
func (p *Pages) auditLog(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	// The people of the "who" filter come first: the service refuses a
	// role that may not read the log before the page does anything else.
	people, err := p.svc.Audit.People(ctx, pr)
	if err != nil {
		return err
	}
	st := readAuditState(c.QueryParams())
	if hasEmptyValue(c.QueryParams()) {
		// The filter form sends its empty fields too: keep the address
		// short and shareable.
		return p.redirect(c, st.url())
	}
	d := views.AuditData{Filtered: st.filtered(), ClearURL: "/audit", DriverID: st.DriverID, Driver: st.Driver, EntityID: st.EntityID,
		From: st.From, To: st.To}
	f, problems := auditFilter(lang, st, people, pr.Location())
	f.Page = paging.Request{Number: st.Page, Size: auditPerPage}

	// Who, what and what kind: choices of the selects.
	for _, pe := range people {
		d.People = append(d.People, views.Option{Value: pe.ID.String(), Label: pe.Name, Selected: pe.ID.String() == st.UserID})
	}
	for _, a := range audit.Actions {
		d.Actions = append(d.Actions, views.Option{Value: a, Label: lang.T("audit.action." + a), Selected: a == st.Action})
	}
	sortOptions(lang, d.Actions)
	for _, et := range audit.EntityTypes {
		d.EntityTypes = append(d.EntityTypes, views.Option{Value: et, Label: lang.T("audit.entity." + et), Selected: et == st.EntityType})
	}

	// Which record: a driver picked by id or found by name.
	if st.DriverID != "" {
		d.PickedDriver = &views.DriverRef{Name: st.DriverID}
		id := f.DriverIDs[0]
		drv, err := p.svc.Drivers.Read(ctx, pr, id)
		switch kind := apperr.KindOf(err); {
		case err == nil:
			d.PickedDriver = &views.DriverRef{URL: driverURL(drv.ID), Name: fullName(drv), Number: drv.InternalNumber}
		case kind != apperr.KindNotFound && kind != apperr.KindAccessDenied:
			return err
		}
		// A deleted (or unknown) driver keeps its id as the name until a
		// row of the log names it.
		unpick := st
		unpick.DriverID, unpick.Page = "", 1
		d.UnpickURL = unpick.url()
	} else if st.Driver != "" {
		res, err := p.svc.Drivers.List(ctx, pr, listParams(drivers.ListParams{Search: st.Driver, SortBy: "last_name", Page: paging.Request{Number: 1, Size: auditDriverMatches}}))
		if r, _ := refusalOf(lang, err, noFile); r.invalid() {
			problems = append(problems, r.messages()...)
			res, err = drivers.ListResult{}, nil
		}
		if err != nil {
			return err
		}
		switch {
		case res.Total == 1:
			next := st
			next.Driver, next.DriverID, next.Page = "", res.Items[0].ID.String(), 1
			return p.redirect(c, next.url())
		case res.Total == 0:
			problems = append(problems, lang.T("audit.driver.none", "search", st.Driver))
		default:
			// Several match: the person picks one; the log waits for it.
			for _, it := range res.Items {
				pick := st
				pick.Driver, pick.DriverID, pick.Page = "", it.ID.String(), 1
				d.DriverMatches = append(d.DriverMatches, views.DriverRef{URL: pick.url(), Name: it.FirstName + " " + it.LastName, Number: it.InternalNumber})
			}
		}
	}
	d.Problem = strings.Join(problems, " ")
	loc := pr.Location()
	// While a name search has found nobody or several, the log waits for
	// the person to pick a driver.
	if waiting := st.Driver != "" && st.DriverID == ""; !waiting {
		exp := st
		exp.Page = 1
		d.ExportCSV, d.ExportXLSX = withParam(exp.at("/audit/export"), "format", "csv"), withParam(exp.at("/audit/export"), "format", "xlsx")
		rows, err := p.svc.Audit.List(ctx, pr, func(in *audit.Filter) error {
			*in = f
			return nil
		})
		if err != nil {
			return err
		}
		d.Pager = pager(rows, func(n int) string { at := st; at.Page = n; return at.url() })
		for _, r := range rows.Items {
			d.Rows = append(d.Rows, auditRow(c.Request().Context(), loc, r))
			if d.PickedDriver != nil && d.PickedDriver.URL == "" && r.Subject.DriverName != "" {
				d.PickedDriver.Name = r.Subject.DriverName
			}
		}
	}
	return p.render(c, http.StatusOK, "audit.title", views.AuditLog(d))
}

// auditFilter is the service's filter of the state, the same for the page
// and its export: a person, action or kind the choices do not hold is
// ignored; a driver id that is not one names nobody (an empty log); a
// record id or a day that cannot be read is left out, and problems say so.
func auditFilter(lang i18n.Lang, st auditState, people []audit.Person, loc *time.Location) (audit.Filter, []string) {
	var f audit.Filter
	var problems []string
	for _, pe := range people {
		if pe.ID.String() == st.UserID {
			f.UserIDs = []uuid.UUID{pe.ID}
		}
	}
	if slices.Contains(audit.Actions, st.Action) {
		f.Actions = []string{st.Action}
	}
	if slices.Contains(audit.EntityTypes, st.EntityType) {
		f.EntityTypes = []string{st.EntityType}
	}
	if st.DriverID != "" {
		id, err := uuid.Parse(st.DriverID)
		if err != nil {
			id = uuid.Nil // names nobody: the log is empty, as for a deleted id
		}
		f.DriverIDs = []uuid.UUID{id}
	}
	if st.EntityID != "" {
		id, err := uuid.Parse(st.EntityID)
		if err != nil {
			problems = append(problems, lang.T("audit.bad_entity_id"))
		} else {
			f.EntityIDs = []uuid.UUID{id}
		}
	}
	// When: whole days in the company's time zone, both included.
	for _, day := range []struct {
		raw  string
		into **time.Time
		end  bool
	}{{st.From, &f.From, false}, {st.To, &f.To, true}} {
		if day.raw == "" {
			continue
		}
		t, err := time.ParseInLocation(time.DateOnly, day.raw, loc)
		if err != nil {
			problems = append(problems, lang.T("audit.bad_date"))
			continue
		}
		if day.end {
			t = t.AddDate(0, 0, 1).Add(-time.Microsecond)
		}
		*day.into = &t
	}
	return f, problems
}

// auditExportColumns are the export's columns, by the catalogue key of
// their header.
var auditExportColumns = []string{"audit.when", "audit.user", "audit.action", "audit.entity", "audit.filter.driver", "audit.document", "audit.changes"}

// auditExport downloads the filtered log (the page's filters, a driver
// picked by id) as CSV or XLSX, in words as the page shows it, without
// the technical details; rows are read and written one at a time.
func (p *Pages) auditExport(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	lang := i18n.From(ctx)
	people, err := p.svc.Audit.People(ctx, pr) // refuses a role that may not read the log
	if err != nil {
		return err
	}
	var format export.Format
	read := func(f *audit.Filter) error {
		*f, _ = auditFilter(lang, readAuditState(c.QueryParams()), people, pr.Location())
		var err error
		format, err = export.FormatParam(c.QueryParam("format"))
		return err
	}
	loc := pr.Location()
	var w export.Writer
	err = p.svc.Audit.Each(ctx, pr, read, func(l audit.Log) error {
		if w == nil {
			var err error
			if w, err = auditExportStart(c, lang, pr, format); err != nil {
				return err
			}
		}
		r := auditRow(ctx, loc, l)
		changes := make([]string, 0, len(r.Changes))
		for _, ch := range r.Changes {
			changes = append(changes, ch.Label+": "+strings.Join(slices.DeleteFunc([]string{ch.Old, ch.New}, func(s string) bool { return s == "" }), " → "))
		}
		driver := r.Driver.Name
		if r.DriverDeleted {
			driver += " " + lang.T("audit.driver.deleted")
		}
		return w.Row([]export.Cell{export.Text(r.When), export.Text(r.User), export.Text(r.ActionLabel), export.Text(r.Kind),
			export.Text(driver), export.Text(r.Document.Name), export.Text(strings.Join(changes, "; "))})
	})
	if err != nil {
		return err
	}
	if w == nil { // no rows: the header alone
		if w, err = auditExportStart(c, lang, pr, format); err != nil {
			return err
		}
	}
	return w.Close()
}

// auditExportStart commits the response to the download and writes the
// header row.
func auditExportStart(c echo.Context, lang i18n.Lang, pr auth.Principal, format export.Format) (export.Writer, error) {
	var w export.Writer
	err := web.Export(c, format, export.FileName("audit", pr.Today().String()), lang.T("audit.title"),
		func(start func() (export.Writer, error)) error {
			var err error
			w, err = start()
			return err
		})
	if err != nil {
		return nil, err
	}
	names := make([]string, len(auditExportColumns))
	for i, k := range auditExportColumns {
		names[i] = lang.T(k)
	}
	return w, w.Header(names)
}

// auditRow turns an audit row into words: the action and record kind
// translated, the record named and linked, the changes as old → new, and
// what only a technician reads (ids, hashes, storage, the client) apart.
func auditRow(ctx context.Context, loc *time.Location, r audit.Log) views.AuditRow {
	lang := i18n.From(ctx)
	row := views.AuditRow{
		When: lang.DateTime(r.CreatedAt, loc), Action: r.Action, ActionLabel: lang.Or(r.Action, "audit.action."+r.Action),
		EntityType: r.EntityType, Kind: lang.Or(r.EntityType, "audit.entity."+r.EntityType),
	}
	if r.User != nil {
		row.User = *r.User
	}
	sub := r.Subject
	if sub.DriverID != nil {
		row.Driver = views.DriverRef{Name: sub.DriverName}
		if !sub.DriverDeleted {
			row.Driver.URL = driverURL(*sub.DriverID)
		}
		row.DriverDeleted = sub.DriverDeleted
	}
	if sub.DocumentID != nil && sub.DriverID != nil {
		row.Document = views.DriverRef{Name: views.DocType(ctx, sub.DocumentType)}
		if !sub.DriverDeleted {
			row.Document.URL = driverURL(*sub.DriverID) + "/documents/" + sub.DocumentID.String()
		}
	}
	row.Changes, row.Technical = auditChanges(ctx, loc, r)
	row.Technical = append([]views.AuditChange{{Field: "entity_id", New: r.EntityID.String()}}, row.Technical...)
	if r.IPAddress != nil {
		row.Technical = append(row.Technical, views.AuditChange{Field: "ip_address", New: *r.IPAddress})
	}
	if r.UserAgent != nil {
		row.Technical = append(row.Technical, views.AuditChange{Field: "user_agent", New: *r.UserAgent})
	}
	return row
}

// auditTechnical are fields only a technician reads: how a file is stored
// and checked. They, ids (*_id, *_ids) and fields with no label on the
// pages show only under the row's technical details, as stored.
var auditTechnical = map[string]bool{"hash_sha256": true, "storage_disk": true, "storage_path": true, "filename": true,
	"mime": true, "mime_type": true, "metadata": true, "meta": true, "flags": true}

// auditMoney are the fields that hold an amount of money.
var auditMoney = map[string]bool{"amount": true, "new_amount": true}

// auditChanges lists the changed fields in words (labelled, values
// formatted, sorted by label) and, apart, the technical ones as stored.
func auditChanges(ctx context.Context, loc *time.Location, r audit.Log) (people, technical []views.AuditChange) {
	lang := i18n.From(ctx)
	oldV, newV := auditValues(r.OldValues), auditValues(r.NewValues)
	var names []string
	for k := range newV {
		names = append(names, k)
	}
	for k := range oldV {
		if _, ok := newV[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	f := auditFormat{ctx: ctx, lang: lang, loc: loc, entityType: r.EntityType, currency: auditCurrency(oldV, newV, r.Subject.Currency)}
	for _, name := range names {
		ov, hadOld := oldV[name]
		nv, hadNew := newV[name]
		if (!hadOld && isNull(nv)) || (!hadNew && isNull(ov)) {
			continue // an empty field of a created or deleted record says nothing
		}
		label, labelled := f.label(name)
		ch := views.AuditChange{Field: name, Label: label}
		var oldOK, newOK = true, true
		if hadOld {
			ch.Old, oldOK = f.value(name, ov)
		}
		if hadNew {
			ch.New, newOK = f.value(name, nv)
		}
		if !labelled || !oldOK || !newOK || auditTechnical[name] || strings.HasSuffix(name, "_id") || strings.HasSuffix(name, "_ids") {
			tech := views.AuditChange{Field: name}
			if hadOld {
				tech.Old = string(ov)
			}
			if hadNew {
				tech.New = string(nv)
			}
			technical = append(technical, tech)
			continue
		}
		people = append(people, ch)
	}
	col := collate.New(collationTags[lang])
	sort.SliceStable(people, func(i, j int) bool { return col.CompareString(people[i].Label, people[j].Label) < 0 })
	return people, technical
}

// auditCurrency is the currency of a row's amounts: the one the row
// records, else its record's.
func auditCurrency(oldV, newV map[string]json.RawMessage, record string) string {
	for _, m := range []map[string]json.RawMessage{newV, oldV} {
		var c string
		if raw, ok := m["currency"]; ok && json.Unmarshal(raw, &c) == nil && c != "" {
			return c
		}
	}
	return record
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func auditValues(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m) // stored by the service as an object; anything else shows nothing
	}
	return m
}

// auditFormat writes the fields of one audit row for people.
type auditFormat struct {
	ctx        context.Context
	lang       i18n.Lang
	loc        *time.Location
	entityType string
	currency   string
}

// label is the field's label on the record's own page when there is one,
// else a label of the audit log; false when the pages have none (a field
// only a technician reads).
func (f auditFormat) label(field string) (string, bool) {
	label := f.lang.Or("", byEntity(f.entityType, "driver.field.", "doc.", "audit.field.", field)...)
	return label, label != ""
}

// byEntity are the keys of a text for a record kind, most specific first:
// the driver pages' (driverPrefix), the document pages' (docPrefix), then
// the audit log's own (auditPrefix).
func byEntity(entityType, driverPrefix, docPrefix, auditPrefix, name string) []string {
	switch entityType {
	case "driver":
		return []string{driverPrefix + name, auditPrefix + name}
	case "document", "document_file":
		return []string{docPrefix + name, auditPrefix + name}
	}
	return []string{auditPrefix + name}
}

// value shows a stored value for people: null as a dash, yes/no, days and
// instants in the language's form, money with its currency, sizes in
// KiB/MiB, codes (statuses, types, categories, countries, languages) in
// words, lists joined; false for what has no words (an object).
func (f auditFormat) value(field string, raw json.RawMessage) (string, bool) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", false
	}
	return f.scalar(field, v)
}

func (f auditFormat) scalar(field string, v any) (string, bool) {
	lang := f.lang
	switch x := v.(type) {
	case nil:
		return "—", true
	case bool:
		if x {
			return lang.T("driver.yes"), true
		}
		return lang.T("driver.no"), true
	case json.Number:
		d, err := decimal.NewFromString(x.String())
		switch {
		case err != nil:
			return x.String(), true
		case auditMoney[field] && f.currency != "":
			return lang.Money(d, f.currency), true
		case field == "size_bytes" || field == "size":
			return formatSize(lang, d.IntPart()), true
		}
		return x.String(), true
	case string:
		return f.word(field, x), true
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := f.scalar(field, e)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		if len(parts) == 0 {
			return "—", true
		}
		return strings.Join(parts, ", "), true
	}
	return "", false
}

// word is a stored text for people: a day, an instant, or a code of the
// field in words; other text as stored.
func (f auditFormat) word(field, x string) string {
	lang := f.lang
	if d, err := civil.Parse(x); err == nil {
		return lang.Date(d)
	}
	if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
		return lang.DateTime(t, f.loc)
	}
	switch field {
	case "status", "review_status":
		return lang.Or(x, byEntity(f.entityType, "driver.status.", "doc.status.", "audit.status.", x)...)
	case "transaction_type":
		return lang.Or(x, "finance.type."+x)
	case "category":
		return lang.Or(x, "finance.category."+x)
	case "penalty_type":
		return lang.Or(x, "penalty.type."+x)
	case "severity":
		return lang.Or(x, "penalty.severity."+x)
	case "period_type":
		return lang.Or(x, "finance.period.type."+x)
	case "citizenship", "country", "bank_country":
		return countryName(lang, x)
	case "language":
		if l, ok := i18n.Parse(x); ok {
			return l.Name()
		}
	case "document_type":
		return views.DocType(f.ctx, x)
	}
	return x
}

func hasEmptyValue(q url.Values) bool {
	for _, vs := range q {
		if slices.Contains(vs, "") {
			return true
		}
	}
	return false
}
