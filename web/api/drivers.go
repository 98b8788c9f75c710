package api

import (
	"encoding/json"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/web"
)

func (h *Handlers) mountDrivers(g *web.Routes) {
	g.GET("/drivers", h.listDrivers)
	g.POST("/drivers", h.createDriver)
	g.GET("/drivers/:id", h.getDriver)
	g.PUT("/drivers/:id", h.updateDriver)
	g.DELETE("/drivers/:id", h.deleteDriver)
}

// CursorPage is the cursor pagination envelope (docs/lists.md).
type CursorPage[T any] struct {
	Data []T        `json:"data"`
	Meta CursorMeta `json:"meta"`
}

// CursorMeta says where the next page starts.
type CursorMeta struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

func (h *Handlers) listDrivers(c echo.Context) error {
	q := query{c: c}
	lp := drivers.ListParams{
		Status:            q.list("status"),
		OfficeIDs:         q.uuids("office_id"),
		Citizenship:       q.list("citizenship"),
		DocumentStatus:    q.list("document_status"),
		DocumentDueWithin: q.optInt("document_due_within"),
		Search:            q.str("search"),
		SortBy:            q.str("sort_by"),
		SortOrder:         q.str("sort_order"),
	}
	_, hasCursor := c.QueryParams()["cursor"]
	_, hasLimit := c.QueryParams()["limit"]
	if hasCursor || hasLimit {
		lp.CursorMode = true
		lp.Cursor = q.str("cursor")
		lp.Limit = q.limit(20, 100)
	} else {
		lp.Page, lp.PerPage = q.page(100)
	}
	include := q.list("include")
	if err := q.err(); err != nil {
		return err
	}
	// include shapes the response only; every role may list drivers, so
	// checking it before the service keeps the error order.
	for _, name := range include {
		if name != "next_expiry" {
			return apperr.Invalid("include", "msg.api.include", "allowed", "next_expiry")
		}
	}
	res, err := h.Drivers.List(c.Request().Context(), web.Principal(c), lp)
	if err != nil {
		return err
	}
	if len(include) > 0 {
		return listDriversJSON(c, lp, res, func(it drivers.ListItem) driverWithExpiry { return driverWithExpiry{it, it.NextExpiry} })
	}
	return listDriversJSON(c, lp, res, func(it drivers.ListItem) drivers.ListItem { return it })
}

// driverWithExpiry is a list item with the next_expiry the client asked
// for (null when the driver has none).
type driverWithExpiry struct {
	drivers.ListItem
	NextExpiry *drivers.NextExpiry `json:"next_expiry"`
}

// listDriversJSON writes the page of drivers in the envelope of its
// pagination mode, each item shaped by item.
func listDriversJSON[T any](c echo.Context, lp drivers.ListParams, res drivers.ListResult, item func(drivers.ListItem) T) error {
	data := make([]T, len(res.Items))
	for i, it := range res.Items {
		data[i] = item(it)
	}
	if lp.CursorMode {
		return c.JSON(http.StatusOK, CursorPage[T]{Data: data, Meta: CursorMeta{NextCursor: res.NextCursor, HasMore: res.HasMore}})
	}
	return c.JSON(http.StatusOK, NewPage(c, data, res.Total, lp.Page, lp.PerPage))
}

func (h *Handlers) getDriver(c echo.Context) error {
	id := driverID(c)
	d, err := h.Drivers.Get(c.Request().Context(), web.Principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *Handlers) createDriver(c echo.Context) error {
	d, err := h.Drivers.Create(c.Request().Context(), web.Principal(c), driverInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, d)
}

func (h *Handlers) updateDriver(c echo.Context) error {
	id := driverID(c)
	d, err := h.Drivers.Update(c.Request().Context(), web.Principal(c), id, driverInput(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, d)
}

func (h *Handlers) deleteDriver(c echo.Context) error {
	id := driverID(c)
	if err := h.Drivers.Delete(c.Request().Context(), web.Principal(c), id); err != nil {
		return err
	}
	return noContent(c)
}

// driverID reads the path id. An id that is not a UUID becomes uuid.Nil,
// which names no driver: the service then answers 404 NotFound, but only
// after the role check, keeping the error order of docs/errors.md (an
// accountant deleting /drivers/xyz is 403 Forbidden, not 404).
func driverID(c echo.Context) uuid.UUID {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		return uuid.Nil
	}
	return id
}

// driverInput keeps the body as field → raw JSON, so the service can tell a
// missing field from a null one; a decoding problem travels with it and is
// reported after the permission checks.
func driverInput(c echo.Context) drivers.Input {
	var fields map[string]json.RawMessage
	err := bindJSON(c, &fields)
	return drivers.Input{Fields: fields, DecodeErr: err}
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

// limit reads the cursor page size: default def, clamped to max, below 1
// or not a number is 400.
func (q *query) limit(def, max int) int {
	n := q.intParam("limit", def)
	if n < 1 {
		q.fail("msg.api.param_min_one", "name", "limit")
		return def
	}
	return min(n, max)
}
