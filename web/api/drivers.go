package api

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/export"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountDrivers(g *web.Routes) {
	g.GET("/drivers", h.listDrivers)
	g.GET("/drivers/export", h.exportDrivers)
	g.GET("/reports/compliance", h.complianceReport)
	g.POST("/drivers", h.createDriver)
	g.GET("/drivers/:id", h.getDriver)
	g.PUT("/drivers/:id", h.updateDriver)
	g.DELETE("/drivers/:id", h.deleteDriver)
}

func (h *Handlers) listDrivers(c echo.Context) error {
	var include []string
	res, err := h.Drivers.List(c.Request().Context(), web.Principal(c), func(in *drivers.ListParams) error {
		q := query{c: c}
		*in = driverFilter(&q)
		in.Feed = feedParams(&q)
		if !in.Feed.On() {
			in.Page = q.pageRequest(pageSize{def: 20, max: 100, cursor: true})
		}
		include = q.list("include")
		if err := q.err(); err != nil {
			return err
		}
		// include shapes the response only, so it is checked here, after
		// the service's role check, keeping the error order.
		for _, name := range include {
			if !slices.Contains(driverIncludes, name) {
				return apperr.Invalid("include", "msg.api.include", "allowed", driverIncludes)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if len(include) > 0 {
		return writeList(c, paging.Map(res.Page, func(it drivers.ListItem) driverWithDates { return withDates(it, include) }))
	}
	return writeList(c, res.Page)
}

// driverIncludes are the drivers list's include values, each a field of
// its items (docs/lists.md, "Next expiry, next due, expired").
var driverIncludes = []string{"next_expiry", "next_due", "expired_documents"}

// driverFilter reads the drivers list's filters and sort (docs/lists.md);
// the exports take the same.
func driverFilter(q *query) drivers.ListParams {
	return drivers.ListParams{
		Status:            q.list("status"),
		OfficeIDs:         q.uuids("office_id"),
		Citizenship:       q.list("citizenship"),
		Tags:              q.list("tag"),
		DocumentStatus:    q.list("document_status"),
		DocumentType:      q.list("document_type"),
		DocumentDueWithin: q.optInt("document_due_within"),
		IsReady:           q.str("is_ready"),
		Search:            q.str("search"),
		SortBy:            q.str("sort_by"),
		SortOrder:         q.str("sort_order"),
	}
}

// exportDrivers streams the filtered drivers list as CSV or XLSX
// (docs/import-export.md): the list's filters, sort and permission.
func (h *Handlers) exportDrivers(c echo.Context) error {
	p := web.Principal(c)
	read, format := exportQuery(c)
	lang := callerLang(c, p)
	return web.Export(c, format, "drivers-"+p.Today().String(), lang.T("drivers.export.sheet"), func(start func() (export.Writer, error)) error {
		return h.Drivers.Export(c.Request().Context(), p, read, lang, start)
	})
}

// exportQuery is the drivers exports' query: read gives the service the
// list's filters and sort, or the 400 of a malformed parameter or format,
// after its checks; format is the file's (CSV when refused: no file is
// started then).
func exportQuery(c echo.Context) (read func(*drivers.ListParams) error, format export.Format) {
	q := query{c: c}
	lp := driverFilter(&q)
	format, ferr := export.FormatParam(q.str("format"))
	return func(in *drivers.ListParams) error {
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

// complianceReport streams the compliance report (driver × required
// document type) as CSV or XLSX, for the drivers the list's filters keep
// (docs/import-export.md); the documents list's permission.
func (h *Handlers) complianceReport(c echo.Context) error {
	p := web.Principal(c)
	read, format := exportQuery(c)
	lang := callerLang(c, p)
	return web.Export(c, format, "compliance-"+p.Today().String(), lang.T("compliance.sheet"), func(start func() (export.Writer, error)) error {
		return h.Drivers.Compliance(c.Request().Context(), p, read, lang, start)
	})
}

// driverWithDates is a list item with the document dates the client asked
// for (include): next_expiry and next_due (null when the driver has none)
// and expired_documents (empty when none; null for a caller who may not
// see documents, as the other two). A field not asked for is left out.
type driverWithDates struct {
	drivers.ListItem
	NextExpiry       asked[*drivers.NextExpiry]  `json:"next_expiry,omitzero"`
	NextDue          asked[*drivers.NextExpiry]  `json:"next_due,omitzero"`
	ExpiredDocuments asked[[]drivers.NextExpiry] `json:"expired_documents,omitzero"`
}

func withDates(it drivers.ListItem, include []string) driverWithDates {
	return driverWithDates{ListItem: it,
		NextExpiry:       asked[*drivers.NextExpiry]{slices.Contains(include, "next_expiry"), it.NextExpiry},
		NextDue:          asked[*drivers.NextExpiry]{slices.Contains(include, "next_due"), it.NextDue},
		ExpiredDocuments: asked[[]drivers.NextExpiry]{slices.Contains(include, "expired_documents"), it.Expired},
	}
}

// asked is an answer field the client may ask for: left out (omitzero)
// unless asked, then written as its value, null included.
type asked[T any] struct {
	on    bool
	value T
}

func (a asked[T]) IsZero() bool { return !a.on }

func (a asked[T]) MarshalJSON() ([]byte, error) { return json.Marshal(a.value) }

func (h *Handlers) getDriver(c echo.Context) error {
	d, err := h.Drivers.Read(c.Request().Context(), web.Principal(c), web.PathID(c, "id"))
	if err != nil {
		return err
	}
	body, err := d.Encoded()
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

func (h *Handlers) createDriver(c echo.Context) error {
	d, err := h.Drivers.Create(c.Request().Context(), web.Principal(c), driverInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, d)
}

func (h *Handlers) updateDriver(c echo.Context) error {
	d, err := h.Drivers.Update(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), driverInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *Handlers) deleteDriver(c echo.Context) error {
	if _, err := h.Drivers.Delete(c.Request().Context(), web.Principal(c), web.PathID(c, "id")); err != nil {
		return err
	}
	return noContent(c)
}

// driverInput reads the body, when the service asks, as field → raw JSON,
// so the service can tell a missing field from a null one.
func driverInput(c echo.Context) func(*drivers.Input) error {
	return func(in *drivers.Input) error {
		var fields map[string]json.RawMessage
		if err := web.Bind(c, &fields); err != nil {
			return err
		}
		in.Fields = fields
		return nil
	}
}

// uuids parses a comma-separated list of UUIDs; a malformed one is 400.
func (q *query) uuids(name string) []uuid.UUID {
	var out []uuid.UUID
	for _, raw := range q.list(name) {
		id, err := uuid.Parse(raw)
		if err != nil {
			q.fail("msg.api.param_uuids", "name", name)
			return nil
		}
		out = append(out, id)
	}
	return out
}

// feedParams reads the change feed's parameters (docs/change-feed.md):
// updated_since, include_deleted and, in feed mode, cursor and limit. The
// service checks them.
func feedParams(q *query) feed.Params {
	p := feed.Params{UpdatedSince: q.str("updated_since"), IncludeDeleted: q.str("include_deleted"), Cursor: q.str("cursor")}
	if !p.On() {
		return feed.Params{}
	}
	if _, ok := q.c.QueryParams()["limit"]; ok {
		p.Limit = q.limit(feed.DefaultLimit, feed.MaxLimit)
	}
	return p
}
