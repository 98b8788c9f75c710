// Package paging is the one shape of a list's page, for every list of both
// fronts (docs/lists.md): what was asked (Request: a page number and size,
// or a cursor and a limit) and what was found (Page: the items and where
// they stand in the whole list). The API writes a Page in its two
// envelopes, the pages show it as a pager; neither computes a last page or
// a next cursor itself.
package paging

// Request is the page a caller asks for: by number (Number, Size) or, when
// Keyset is set, after a cursor (Cursor, Size as the limit).
type Request struct {
	// Number is the page number, from 1 (offset paging).
	Number int
	// Size is the page size: per_page, or the cursor page's limit.
	Size int
	// Keyset: the page follows Cursor ("" for the first page) instead of
	// being numbered.
	Keyset bool
	// Cursor is the opaque position the previous page ended at.
	Cursor string
}

// Offset is the number of rows before a numbered page.
func (r Request) Offset() int { return (max(r.Number, 1) - 1) * r.Size }

// Or is r numbered from page 1 at least, with size as its size when it
// has none: what a service reads when its caller (a page, a job) left the
// request out.
func (r Request) Or(size int) Request {
	r.Number = max(r.Number, 1)
	if r.Size < 1 {
		r.Size = size
	}
	return r
}

// Page is one page of a list. A numbered page fills Total (every row that
// matches); a keyset page fills NextCursor and HasMore.
type Page[T any] struct {
	Items []T
	// Request is the page that was asked for.
	Request Request
	// Total is how many rows match, on every page (numbered pages).
	Total int
	// NextCursor is where the next keyset page starts; "" when there is
	// none.
	NextCursor string
	// HasMore: another keyset page holds rows.
	HasMore bool
}

// New is a numbered page of items out of total.
func New[T any](items []T, total int, r Request) Page[T] {
	if items == nil {
		items = []T{}
	}
	return Page[T]{Items: items, Request: r, Total: total}
}

// Keyset is a keyset page: items after r.Cursor, next where the next page
// starts ("" on the last one).
func Keyset[T any](items []T, next string, hasMore bool, r Request) Page[T] {
	if items == nil {
		items = []T{}
	}
	r.Keyset = true
	return Page[T]{Items: items, Request: r, NextCursor: next, HasMore: hasMore}
}

// Map is the page with each item turned by f (what a front writes of
// it), at the same place in the list.
func Map[T, U any](p Page[T], f func(T) U) Page[U] {
	items := make([]U, len(p.Items))
	for i, it := range p.Items {
		items[i] = f(it)
	}
	return Page[U]{Items: items, Request: p.Request, Total: p.Total, NextCursor: p.NextCursor, HasMore: p.HasMore}
}

// LastPage is the number of the last page (1 for an empty list).
func (p Page[T]) LastPage() int {
	size := max(p.Request.Size, 1)
	return max(1, (p.Total+size-1)/size)
}

// First is the position in the whole list of the page's first item (from
// 1), 0 for an empty page.
func (p Page[T]) First() int {
	if len(p.Items) == 0 {
		return 0
	}
	return p.Request.Offset() + 1
}

// Prev and Next are the numbers of the neighbouring pages, 0 when there is
// none. A page past the end has the last page before it.
func (p Page[T]) Prev() int {
	if p.Request.Number <= 1 {
		return 0
	}
	return min(p.Request.Number-1, p.LastPage())
}

// Next is the number of the following page, 0 on the last one.
func (p Page[T]) Next() int {
	if p.Request.Number >= p.LastPage() {
		return 0
	}
	return p.Request.Number + 1
}

// Last is the position in the whole list of the page's last item, 0 for
// an empty page.
func (p Page[T]) Last() int {
	if len(p.Items) == 0 {
		return 0
	}
	return p.First() + len(p.Items) - 1
}
