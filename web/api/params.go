package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/web"
)

// query reads query parameters, collecting the first problem as a 400.
type query struct {
	c       echo.Context
	problem error
}

// fail records a problem: a message key with its arguments.
func (q *query) fail(key string, args ...any) {
	if q.problem == nil {
		q.problem = apperr.BadRequest(key, args...)
	}
}

// err is the first problem found, or a query string that does not parse at
// all (a bad %-escape, a ';' separator): Go would drop such a pair silently,
// and the caller would get an answer to a question it did not ask.
func (q *query) err() error {
	if q.problem != nil {
		return q.problem
	}
	if _, err := url.ParseQuery(q.c.Request().URL.RawQuery); err != nil {
		return apperr.BadRequest("msg.api.query_unparsable", "error", err)
	}
	return web.CheckText(q.c.QueryParams())
}

func (q *query) str(name string) string { return strings.TrimSpace(q.c.QueryParam(name)) }

// list splits a comma-separated filter ("active,on_leave").
func (q *query) list(name string) []string {
	var out []string
	for _, v := range strings.Split(q.c.QueryParam(name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (q *query) intParam(name string, def int) int {
	raw := q.str(name)
	if raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil {
		q.fail("msg.api.param_integer", "name", name)
		return def
	}
	return n
}

// optBool reads an optional boolean (true or false): nil when absent, 400
// otherwise.
func (q *query) optBool(name string) *bool {
	switch q.str(name) {
	case "":
		return nil
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	q.fail("msg.api.param_boolean", "name", name)
	return nil
}

// optInt reads an optional whole number: nil when absent, 400 when it is
// not a number (the service checks the range).
func (q *query) optInt(name string) *int {
	if q.str(name) == "" {
		return nil
	}
	n := q.intParam(name, 0)
	return &n
}

func (q *query) uuid(name string) *uuid.UUID {
	raw := q.str(name)
	if raw == "" {
		return nil
	}
	id, err := uuid.Parse(raw)
	if err != nil {
		q.fail("msg.api.param_uuid", "name", name)
		return nil
	}
	return &id
}

// date parses YYYY-MM-DD.
func (q *query) date(name string) *time.Time {
	raw := q.str(name)
	if raw == "" {
		return nil
	}
	d, err := time.Parse(time.DateOnly, raw)
	if err != nil {
		q.fail("msg.api.param_date", "name", name)
		return nil
	}
	return &d
}

// civilDate parses YYYY-MM-DD into a calendar date.
func (q *query) civilDate(name string) *civil.Date {
	t := q.date(name)
	if t == nil {
		return nil
	}
	d := civil.DateOf(*t)
	return &d
}

// month parses a month (YYYY-MM).
func (q *query) month(name string) *rating.Period {
	raw := q.str(name)
	if raw == "" {
		return nil
	}
	p, err := rating.ParsePeriod(raw)
	if err != nil {
		q.fail("msg.api.param_month", "name", name)
		return nil
	}
	return &p
}

// time parses an RFC 3339 timestamp or a date (start of that day, UTC).
func (q *query) time(name string) *time.Time {
	raw := q.str(name)
	if raw == "" {
		return nil
	}
	if t, err := time.Parse(time.RFC3339, raw); err == nil {
		return &t
	}
	return q.date(name)
}

// timeEnd is time, but a bare date means the end of that day.
func (q *query) timeEnd(name string) *time.Time {
	raw := q.str(name)
	t := q.time(name)
	if t != nil && len(raw) == len(time.DateOnly) {
		end := t.Add(24*time.Hour - time.Nanosecond)
		return &end
	}
	return t
}

// requestURL is the request's URL on PUBLIC_URL (docs/security.md): links
// never take the Host header, which the client chooses.
func requestURL(c echo.Context) *url.URL {
	u := web.PublicURL(c)
	u.Path = strings.TrimRight(u.Path, "/") + c.Request().URL.Path
	u.RawPath = ""
	u.RawQuery = c.Request().URL.RawQuery
	return &u
}

// noContent answers 204.
func noContent(c echo.Context) error { return c.NoContent(http.StatusNoContent) }
