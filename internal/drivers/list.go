package drivers

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/countries"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/patch"
)

// ListParams are the list's query parameters. Several values of one filter
// mean OR, different filters AND (docs/lists.md).
type ListParams struct {
	Status         []string
	OfficeIDs      []uuid.UUID
	Citizenship    []string
	Tags           []string // drivers with any of these tags (the tag filter)
	DocumentStatus []string // drivers with at least one document in one of these statuses
	// DocumentType narrows document_status and document_due_within to
	// documents of these types (built-in or custom codes); alone it keeps
	// every driver (each has a document of every type).
	DocumentType []string
	// DocumentDueWithin keeps drivers with a document (with a current file)
	// whose valid_until is between today and today+N days in the company's
	// time zone, both ends included; already expired documents do not count
	// (document_status=expired finds those). nil: no filter.
	DocumentDueWithin *int
	// IsReady keeps the ready drivers ("true") or the others ("false");
	// "" does not filter.
	IsReady   string
	Search    string // every word must occur in name, e-mail or internal number
	SortBy    string // internal_number (default), last_name, hire_date, created_at, next_expiry, next_due
	SortOrder string // asc (default), desc

	// Page is the page asked for: numbered (the default) or, keyset, the
	// Size rows after Cursor (empty: from the start).
	Page paging.Request

	// Feed asks for the change feed (docs/change-feed.md): the drivers
	// changed since, oldest first, paged by a feed cursor. It keeps the
	// filters and refuses sort_by and sort_order.
	Feed feed.Params
}

// ListResult is one page of drivers.
type ListResult struct {
	paging.Page[ListItem]
	// NextExpiryShown: the caller may see which document expires when;
	// otherwise the items' NextExpiry is left out (a page leaves its
	// column out).
	NextExpiryShown bool
}

// feedList names the drivers feed in its cursors.
const feedList = "drivers"

// MaxSearchLength bounds the search text.
const MaxSearchLength = 100

// MaxDueWithin is the largest document_due_within, in days.
const MaxDueWithin = 366

// sortColumn is a column the list may be sorted by.
type sortColumn struct {
	expr     string // SQL expression on drivers d (and join, when set)
	join     string // a join the expression needs, added to the paging query
	cast     string // type the cursor key is cast back to
	nullable bool   // nulls sort last in both directions
}

// sortColumns are the allowed sort_by values; internal_number sorts by its
// numeric part so DRV-10000 follows DRV-9999. next_expiry is the
// valid_until of the driver's most urgent document (NextExpiry), null for
// drivers without a dated document with a file; next_due that of its next
// document coming due (NextDue), null for drivers without one.
var sortColumns = map[string]sortColumn{
	"internal_number": {expr: "d.internal_seq", cast: "bigint"},
	"last_name":       {expr: "d.last_name", cast: "text"},
	"hire_date":       {expr: "d.hire_date", cast: "date", nullable: true},
	"created_at":      {expr: "d.created_at", cast: "timestamptz"},
	"next_expiry":     {expr: "nx.valid_until", join: nextExpiryJoin, cast: "date", nullable: true},
	"next_due":        {expr: "nxd.valid_until", join: nextDueJoin, cast: "date", nullable: true},
}

// SortFields lists the allowed sort_by values (for documentation and forms).
var SortFields = []string{"internal_number", "last_name", "hire_date", "created_at", "next_expiry", "next_due"}

// List returns a page of the caller's company's drivers. A driver caller
// sees only its own record (none when no record is linked to it). read
// fills the parameters once the caller may list drivers (a query's 400 and
// 422 come after the role's 403).
func (s *Service) List(ctx context.Context, p auth.Principal, read func(*ListParams) error) (ListResult, error) {
	only, err := collection(p, auth.DriversRead)
	if err != nil {
		return ListResult{}, err
	}
	var lp ListParams
	if err := read(&lp); err != nil {
		return ListResult{}, err
	}
	if err := lp.normalize(); err != nil {
		return ListResult{}, err
	}
	if lp.Feed.On() {
		return s.listFeed(ctx, p, only, lp)
	}
	var after *cursor
	if lp.Page.Keyset && lp.Page.Cursor != "" {
		c, err := s.decodeCursor(lp.Page.Cursor)
		if err != nil {
			return ListResult{}, err
		}
		if (lp.SortBy != "" && lp.SortBy != c.SortBy) || (lp.SortOrder != "" && lp.SortOrder != c.SortOrder) {
			return ListResult{}, apperr.BadRequest("msg.list.cursor_sort")
		}
		lp.SortBy, lp.SortOrder = c.SortBy, c.SortOrder
		after = &c
	}
	if lp.SortBy == "" {
		lp.SortBy = "internal_number"
	}
	if lp.SortOrder == "" {
		lp.SortOrder = "asc"
	}

	q := listQuery{params: lp, companyID: p.CompanyID, only: only, after: after}
	items, keys, total, err := q.run(ctx, s.db)
	if err != nil {
		return ListResult{}, err
	}
	res := ListResult{Page: paging.New(items, total, lp.Page), NextExpiryShown: expiryShown(p)}
	res.hideExpiry()
	if lp.Page.Keyset {
		res.Page = paging.Keyset(items, "", false, lp.Page)
		if size := lp.Page.Size; len(items) > size {
			res.Items, res.HasMore = items[:size], true
			res.NextCursor = s.encodeCursor(cursor{SortBy: lp.SortBy, SortOrder: lp.SortOrder, Key: keys[size-1], ID: items[size-1].ID})
		}
		return res, nil
	}
	if len(items) == 0 && lp.Page.Number > 1 {
		// The page is past the end, so no row carried the total.
		if res.Total, err = q.count(ctx, s.db); err != nil {
			return ListResult{}, err
		}
	}
	return res, nil
}

// hideExpiry leaves the items' document dates out when the caller may not
// see them (expiryShown).
func (r *ListResult) hideExpiry() {
	if r.NextExpiryShown {
		return
	}
	for i := range r.Items {
		r.Items[i].hideExpiry()
	}
}

// hideExpiry clears the item's document dates: its next expiry, next due
// and expired documents.
func (it *ListItem) hideExpiry() {
	it.NextExpiry, it.NextDue, it.Expired = nil, nil, nil
}

// listFeed answers the drivers list in feed mode; only is the collection's
// narrowing (collection).
func (s *Service) listFeed(ctx context.Context, p auth.Principal, only *uuid.UUID, lp ListParams) (ListResult, error) {
	if lp.SortBy != "" || lp.SortOrder != "" {
		return ListResult{}, apperr.Invalid("sort_by", "msg.list.feed_sort")
	}
	fq, err := feed.Prepare(ctx, s.db, feed.NewCodec(s.cursorKey), feedList, lp.Feed)
	if err != nil {
		return ListResult{}, err
	}
	q := listQuery{params: lp, companyID: p.CompanyID, only: only, feed: &fq}
	items, _, _, err := q.run(ctx, s.db)
	if err != nil {
		return ListResult{}, err
	}
	page := feed.Finish(feed.NewCodec(s.cursorKey), fq, items, func(it ListItem) feed.Position {
		return feed.Position{UpdatedAt: it.UpdatedAt, ID: it.ID}
	})
	res := ListResult{Page: page, NextExpiryShown: expiryShown(p)}
	res.hideExpiry()
	return res, nil
}

// normalize validates filter and sort values (422) and tidies them.
func (lp *ListParams) normalize() error {
	var v apperr.Validation
	for _, st := range lp.Status {
		if !slices.Contains(Statuses, st) {
			v.Add("status", "msg.drivers.status")
			break
		}
	}
	for i, c := range lp.Citizenship {
		lp.Citizenship[i] = countries.Normalize(c)
		if !countries.Valid(lp.Citizenship[i]) {
			v.Add("citizenship", "msg.list.citizenship")
			break
		}
	}
	for i, t := range lp.Tags {
		lp.Tags[i] = strings.ToLower(strings.TrimSpace(t))
		if !patch.TagPattern.MatchString(lp.Tags[i]) {
			v.Add("tag", "msg.list.tag", "max", MaxTagLength)
			break
		}
	}
	for _, t := range lp.DocumentType {
		if !documents.ValidTypeCode(t) {
			v.Add("document_type", "msg.list.document_type")
			break
		}
	}
	for _, st := range lp.DocumentStatus {
		if !slices.Contains(documents.Statuses, st) {
			v.Add("document_status", "msg.list.document_status")
			break
		}
	}
	if n := lp.DocumentDueWithin; n != nil && (*n < 1 || *n > MaxDueWithin) {
		v.Add("document_due_within", "msg.list.document_due_within", "max", MaxDueWithin)
	}
	if lp.IsReady != "" && lp.IsReady != "true" && lp.IsReady != "false" {
		v.Add("is_ready", "msg.list.is_ready")
	}
	lp.Search = strings.TrimSpace(lp.Search)
	if utf8.RuneCountInString(lp.Search) > MaxSearchLength {
		v.Add("search", "msg.list.search_too_long", "max", MaxSearchLength)
	}
	if _, ok := sortColumns[lp.SortBy]; lp.SortBy != "" && !ok {
		v.Add("sort_by", "msg.list.sort_by", "allowed", SortFields)
	}
	if lp.SortOrder != "" && lp.SortOrder != "asc" && lp.SortOrder != "desc" {
		v.Add("sort_order", "msg.list.sort_order")
	}
	return v.Err()
}

// likeEscaper escapes LIKE wildcards so a search for "50%" means the text.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// searchWords splits the search into at most 5 lower-case words.
func searchWords(search string) []string {
	words := strings.Fields(strings.ToLower(search))
	if len(words) > 5 {
		words = words[:5]
	}
	for i, w := range words {
		words[i] = likeEscaper.Replace(w)
	}
	return words
}
