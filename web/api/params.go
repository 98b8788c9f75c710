package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/textin"
	"github.com/konvoj/konvoj/web"
)

// maxJSONBody caps JSON request bodies (the server's cap of every body
// that is not an upload); uploads have their own limit.
const maxJSONBody = web.MaxBodyBytes

// bindJSON decodes a JSON object body into v. Malformed JSON, a wrong
// content type or a body that is not an object is 400 BadRequest.
func bindJSON(c echo.Context, v any) error {
	req := c.Request()
	if ct := req.Header.Get(echo.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return apperr.BadRequest("msg.api.json_content_type")
		}
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxJSONBody+1))
	if err != nil {
		if apperr.KindOf(err) != apperr.KindInternal {
			return err // too large, or cut off by the body deadline
		}
		return apperr.BadRequest("msg.api.body_unreadable")
	}
	if len(body) > maxJSONBody {
		return apperr.PayloadTooLarge("msg.common.body_too_large", "max", maxJSONBody)
	}
	if !utf8.Valid(body) {
		// Invalid UTF-8 inside a string becomes a NUL escape, which the text
		// check below reports for its field; outside a string the body is
		// not JSON (400).
		body = bytes.ToValidUTF8(body, []byte(`\u0000`))
	}
	trimmed := strings.TrimSpace(string(body))
	if trimmed == "" {
		trimmed = "{}"
	}
	if !strings.HasPrefix(trimmed, "{") {
		return apperr.BadRequest("msg.api.json_object")
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return apperr.Invalid(ute.Field, "msg.api.wrong_type", "field", ute.Field)
		}
		return apperr.BadRequest("msg.api.json_invalid")
	}
	if dec.More() {
		return apperr.BadRequest("msg.api.json_one_object")
	}
	return checkJSONText(trimmed)
}

// checkJSONText refuses a body with a NUL character or invalid UTF-8 in
// any key or string (docs/errors.md): 422 for the first such field, as a
// dotted path (metrics.0.name), before a service or PostgreSQL sees it.
func checkJSONText(body string) error {
	if !strings.Contains(body, `\u0000`) {
		return nil // a raw NUL byte is not valid JSON, so only the escape carries one
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return apperr.BadRequest("msg.api.json_invalid")
	}
	if field, bad := badJSONText(doc, ""); bad {
		return apperr.Invalid(field, "msg.common.text_invalid", "field", field)
	}
	return nil
}

// badJSONText walks a decoded JSON value for the first refused text.
func badJSONText(v any, path string) (string, bool) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := v.(type) {
	case string:
		return path, textin.Bad(v)
	case []any:
		for i, e := range v {
			if f, bad := badJSONText(e, join(strconv.Itoa(i))); bad {
				return f, true
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if textin.Bad(k) {
				return join(strings.ToValidUTF8(strings.ReplaceAll(k, "\x00", ""), "")), true
			}
			if f, bad := badJSONText(v[k], join(k)); bad {
				return f, true
			}
		}
	}
	return "", false
}

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
