package api

import (
	"math"
	"net/http"
	"strconv"

	gojson "github.com/goccy/go-json"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/paging"
)

// pageSize is what a list accepts as its page size: the size when none is
// given, the largest (a larger one is clamped), and whether limit or
// cursor switch it to keyset paging (docs/lists.md).
type pageSize struct {
	def, max int
	cursor   bool
}

// offsetSize is the usual numbered list: 20 rows by default, at most 100.
var offsetSize = pageSize{def: 20, max: 100}

// pageRequest reads the page a list is asked for (docs/lists.md): page and
// per_page, or, for a list with cursor paging and a limit or cursor given,
// cursor and limit. Below 1 or not a number is 400; a size above the
// maximum is clamped.
func (q *query) pageRequest(s pageSize) paging.Request {
	if s.cursor {
		_, hasCursor := q.c.QueryParams()["cursor"]
		_, hasLimit := q.c.QueryParams()["limit"]
		if hasCursor || hasLimit {
			return paging.Request{Keyset: true, Cursor: q.str("cursor"), Size: q.limit(s.def, s.max)}
		}
	}
	page := q.intParam("page", 1)
	if page < 1 {
		q.fail("msg.api.param_min_one", "name", "page")
		page = 1
	}
	perPage := q.intParam("per_page", s.def)
	if perPage < 1 {
		q.fail("msg.api.param_min_one", "name", "per_page")
		perPage = s.def
	}
	perPage = min(perPage, s.max)
	if page > math.MaxInt32/perPage {
		q.fail("msg.api.page_too_large")
		page = 1
	}
	return paging.Request{Number: page, Size: perPage}
}

// limit reads the limit of a cursor page: 400 below 1, clamped to max.
func (q *query) limit(def, max int) int {
	n := q.intParam("limit", def)
	if n < 1 {
		q.fail("msg.api.param_min_one", "name", "limit")
		return def
	}
	return min(n, max)
}

// listField is a top-level field a list writes after its envelope's (its
// summaries), in the order given.
type listField struct {
	name  string
	value any
}

// with is the list's own field name with its value.
func with(name string, value any) listField { return listField{name, value} }

// writeList writes a page of a list (docs/lists.md): a numbered page in
// the offset envelope, a keyset page in the cursor envelope, each followed
// by the list's own fields.
func writeList[T any](c echo.Context, p paging.Page[T], fields ...listField) error {
	if p.Items == nil {
		p.Items = []T{}
	}
	var env any
	if p.Request.Keyset {
		env = cursorEnvelope[T]{Data: p.Items, Meta: cursorMeta{NextCursor: optString(p.NextCursor), HasMore: p.HasMore}}
	} else {
		env = newOffsetEnvelope(c, p)
	}
	if len(fields) > 0 {
		env = withFields{env, fields}
	}
	return c.JSON(http.StatusOK, env)
}

// offsetEnvelope is the Laravel-style offset envelope (docs/lists.md).
type offsetEnvelope[T any] struct {
	CurrentPage  int     `json:"current_page"`
	Data         []T     `json:"data"`
	FirstPageURL string  `json:"first_page_url"`
	From         *int    `json:"from"`
	LastPage     int     `json:"last_page"`
	LastPageURL  string  `json:"last_page_url"`
	NextPageURL  *string `json:"next_page_url"`
	Path         string  `json:"path"`
	PerPage      int     `json:"per_page"`
	PrevPageURL  *string `json:"prev_page_url"`
	To           *int    `json:"to"`
	Total        int     `json:"total"`
}

// newOffsetEnvelope builds the envelope of a numbered page; its links keep
// the request's other query parameters.
func newOffsetEnvelope[T any](c echo.Context, p paging.Page[T]) offsetEnvelope[T] {
	base := requestURL(c)
	link := func(n int) string {
		u := *base
		v := u.Query()
		v.Set("page", strconv.Itoa(n))
		u.RawQuery = v.Encode()
		return u.String()
	}
	e := offsetEnvelope[T]{
		CurrentPage:  p.Request.Number,
		Data:         p.Items,
		FirstPageURL: link(1),
		LastPage:     p.LastPage(),
		LastPageURL:  link(p.LastPage()),
		Path:         base.Scheme + "://" + base.Host + base.Path,
		PerPage:      p.Request.Size,
		Total:        p.Total,
	}
	if len(p.Items) > 0 {
		from, to := p.First(), p.Last()
		e.From, e.To = &from, &to
	}
	if n := p.Next(); n != 0 {
		e.NextPageURL = optString(link(n))
	}
	if n := p.Prev(); n != 0 {
		e.PrevPageURL = optString(link(n))
	}
	return e
}

// cursorEnvelope is the cursor envelope (docs/lists.md).
type cursorEnvelope[T any] struct {
	Data []T        `json:"data"`
	Meta cursorMeta `json:"meta"`
}

// cursorMeta says where the next page starts (null on the last one).
type cursorMeta struct {
	NextCursor *string `json:"next_cursor"`
	HasMore    bool    `json:"has_more"`
}

// optString is s, or nil (null) when it is empty.
func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// withFields is an envelope followed by a list's own fields: the
// envelope's object with the fields appended before its closing brace,
// so they come after the envelope's in the answer.
type withFields struct {
	env    any
	fields []listField
}

// MarshalJSON writes the envelope, then each field.
func (w withFields) MarshalJSON() ([]byte, error) {
	out, err := gojson.Marshal(w.env)
	if err != nil {
		return nil, err
	}
	out = out[:len(out)-1] // the envelope's closing brace
	for _, f := range w.fields {
		v, err := gojson.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		out = append(out, ',')
		out = strconv.AppendQuote(out, f.name)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}'), nil
}
