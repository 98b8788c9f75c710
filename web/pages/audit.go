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

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/drivers"
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
}

// auditState is the log's filters and page as the URL holds them: who
// (user_id), what kind of record (entity_type), which record (driver_id,
// or a driver to find by name, or entity_id) and when (from, to: days in
// the company's time zone, both included).
type auditState struct {
	UserID, EntityType, DriverID, Driver, EntityID, From, To string
	Page                                                     int
}

func readAuditState(q url.Values) auditState {
	s := auditState{
		UserID: q.Get("user_id"), EntityType: q.Get("entity_type"), DriverID: q.Get("driver_id"),
		Driver: strings.TrimSpace(q.Get("driver")), EntityID: strings.TrimSpace(q.Get("entity_id")),
		From: q.Get("from"), To: q.Get("to"),
	}
	s.Page, _ = strconv.Atoi(q.Get("page"))
	s.Page = max(s.Page, 1)
	return s
}

// url is the state's address, empty values left out.
func (s auditState) url() string {
	q := url.Values{}
	for _, kv := range [][2]string{{"user_id", s.UserID}, {"entity_type", s.EntityType}, {"driver_id", s.DriverID},
		{"driver", s.Driver}, {"entity_id", s.EntityID}, {"from", s.From}, {"to", s.To}} {
		if kv[1] != "" {
			q.Set(kv[0], kv[1])
		}
	}
	if s.Page > 1 {
		q.Set("page", strconv.Itoa(s.Page))
	}
	if len(q) == 0 {
		return "/audit"
	}
	return "/audit?" + q.Encode()
}

func (s auditState) filtered() bool {
	return s.UserID != "" || s.EntityType != "" || s.DriverID != "" || s.Driver != "" || s.EntityID != "" || s.From != "" || s.To != ""
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
	var problems []string
	f := audit.Filter{Page: paging.Request{Number: st.Page, Size: auditPerPage}}

	// Who and what kind: choices of the selects; anything else is ignored.
	for _, pe := range people {
		d.People = append(d.People, views.Option{Value: pe.ID.String(), Label: pe.Name, Selected: pe.ID.String() == st.UserID})
		if pe.ID.String() == st.UserID {
			f.UserIDs = []uuid.UUID{pe.ID}
		}
	}
	for _, et := range audit.EntityTypes {
		d.EntityTypes = append(d.EntityTypes, views.Option{Value: et, Label: lang.T("audit.entity." + et), Selected: et == st.EntityType})
	}
	if slices.Contains(audit.EntityTypes, st.EntityType) {
		f.EntityTypes = []string{st.EntityType}
	}

	// Which record: a driver picked by id or found by name, or a record id.
	if st.DriverID != "" {
		id, err := uuid.Parse(st.DriverID)
		if err != nil {
			id = uuid.Nil // names nobody: the log is empty, as for a deleted id
		}
		f.DriverIDs = []uuid.UUID{id}
		d.PickedDriver = &views.DriverRef{Name: st.DriverID}
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
	if st.EntityID != "" {
		id, err := uuid.Parse(st.EntityID)
		if err != nil {
			problems = append(problems, lang.T("audit.bad_entity_id"))
		} else {
			f.EntityIDs = []uuid.UUID{id}
		}
	}

	// When: whole days in the company's time zone, both included.
	loc := pr.Location()
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

	d.Problem = strings.Join(problems, " ")
	// While a name search has found nobody or several, the log waits for
	// the person to pick a driver.
	if waiting := st.Driver != "" && st.DriverID == ""; !waiting {
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

// auditRow turns an audit row into words: the action and record kind
// translated, the record named and linked, the changes as old → new.
func auditRow(ctx context.Context, loc *time.Location, r audit.Log) views.AuditRow {
	lang := i18n.From(ctx)
	row := views.AuditRow{
		When: lang.DateTime(r.CreatedAt, loc), Action: r.Action, ActionLabel: firstText(lang, r.Action, "audit.action."+r.Action),
		EntityType: r.EntityType, Kind: firstText(lang, r.EntityType, "audit.entity."+r.EntityType),
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
	if sub.DriverID == nil && sub.DocumentID == nil {
		row.Record = r.EntityID.String()[:8]
	}
	row.Changes = auditChanges(lang, r)
	return row
}

// auditChanges lists the changed fields, labelled where the pages have a
// label for them, sorted by label.
func auditChanges(lang i18n.Lang, r audit.Log) []views.AuditChange {
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
	out := make([]views.AuditChange, 0, len(names))
	for _, name := range names {
		ov, hadOld := oldV[name]
		nv, hadNew := newV[name]
		if (!hadOld && isNull(nv)) || (!hadNew && isNull(ov)) {
			continue // an empty field of a created or deleted record says nothing
		}
		ch := views.AuditChange{Field: name, Label: auditFieldLabel(lang, r.EntityType, name)}
		if hadOld {
			ch.Old = auditValue(lang, r.EntityType, name, ov)
		}
		if hadNew {
			ch.New = auditValue(lang, r.EntityType, name, nv)
		}
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Label < out[j].Label })
	return out
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func auditValues(raw json.RawMessage) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &m) // stored by the service as an object; anything else shows nothing
	}
	return m
}

// auditFieldLabel is the field's label on the record's own page when there
// is one, else a label of the audit log, else the field name.
func auditFieldLabel(lang i18n.Lang, entityType, field string) string {
	return firstText(lang, field, byEntity(entityType, "driver.field.", "doc.", "audit.field.", field)...)
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

// auditValue shows a stored value: null as a dash, dates in the language's
// form, yes/no, statuses in words; anything else as it was stored.
func auditValue(lang i18n.Lang, entityType, field string, raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return string(raw)
	}
	switch x := v.(type) {
	case nil:
		return "—"
	case bool:
		if x {
			return lang.T("driver.yes")
		}
		return lang.T("driver.no")
	case json.Number:
		return x.String()
	case string:
		if d, err := civil.Parse(x); err == nil {
			return lang.Date(d)
		}
		if field == "status" {
			return firstText(lang, x, byEntity(entityType, "driver.status.", "doc.status.", "audit.status.", x)...)
		}
		return x
	}
	return string(raw)
}

func hasEmptyValue(q url.Values) bool {
	for _, vs := range q {
		if slices.Contains(vs, "") {
			return true
		}
	}
	return false
}

// firstText is the text of the first key the catalogues have (in the
// language, else in English, as T falls back), else fallback: a stored
// code with no text yet shows as it is.
func firstText(lang i18n.Lang, fallback string, keys ...string) string {
	for _, k := range keys {
		if i18n.EN.Has(k) {
			return lang.T(k)
		}
	}
	return fallback
}
