package fleet

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/feed"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/patch"
	"github.com/konvoj/konvoj/internal/postgres"
)

// ListParams are a vehicles or trailers list's query parameters. Several
// values of one filter mean OR, different filters AND (docs/lists.md).
type ListParams struct {
	Status         []string
	Type           []string
	OfficeIDs      []uuid.UUID
	Tags           []string // records with any of these tags
	DocumentStatus []string // records with at least one document in one of these statuses
	// IsReady keeps the ready records ("true") or the others ("false");
	// "" does not filter.
	IsReady   string
	Search    string // every word must occur in plate, VIN, internal number, make or model
	SortBy    string // internal_number (default), plate_number, created_at
	SortOrder string // asc (default), desc

	// Page is the page asked for: numbered (the default) or, keyset, the
	// Size rows after Cursor (empty: from the start).
	Page paging.Request

	// Feed asks for the change feed (docs/change-feed.md): the records
	// changed since, oldest first, paged by a feed cursor. It keeps the
	// filters and refuses sort_by and sort_order.
	Feed feed.Params
}

// MaxSearchLength bounds the search text.
const MaxSearchLength = 100

// sortColumn is a column the list may be sorted by.
type sortColumn struct {
	expr     string
	cast     string
	nullable bool
}

// sortColumns are the allowed sort_by values; internal_number sorts by its
// numeric part so VEH-10000 follows VEH-9999.
var sortColumns = map[string]sortColumn{
	"internal_number": {expr: "r.internal_seq", cast: "bigint"},
	"plate_number":    {expr: "r.plate_number", cast: "text", nullable: true},
	"created_at":      {expr: "r.created_at", cast: "timestamptz"},
}

// feedColumn is the feed's order (updated_at, then id).
var feedColumn = sortColumn{expr: "r.updated_at", cast: "timestamptz"}

// ListVehicles returns a page of the caller's company's vehicles; a driver
// sees only the vehicle of its active unit. read fills the parameters once
// the caller may list vehicles (a query's 400 and 422 come after the
// role's 403).
func (s *Service) ListVehicles(ctx context.Context, p auth.Principal, read func(*ListParams) error) (VehicleList, error) {
	page, err := s.list(ctx, p, vehicles, read)
	return VehicleList{Page: paging.Map(page, func(r record) VehicleItem {
		return VehicleItem{Vehicle: r.vehicle(), DocumentsSummary: r.Summary, DeletedAt: r.DeletedAt}
	})}, err
}

// ListTrailers is ListVehicles for trailers.
func (s *Service) ListTrailers(ctx context.Context, p auth.Principal, read func(*ListParams) error) (TrailerList, error) {
	page, err := s.list(ctx, p, trailers, read)
	return TrailerList{Page: paging.Map(page, func(r record) TrailerItem {
		return TrailerItem{Trailer: r.trailer(), DocumentsSummary: r.Summary, DeletedAt: r.DeletedAt}
	})}, err
}

func (s *Service) list(ctx context.Context, p auth.Principal, k kindSpec, read func(*ListParams) error) (paging.Page[record], error) {
	only, err := collection(p, auth.FleetRead)
	if err != nil {
		return paging.Page[record]{}, err
	}
	var lp ListParams
	if err := read(&lp); err != nil {
		return paging.Page[record]{}, err
	}
	if err := lp.normalize(k); err != nil {
		return paging.Page[record]{}, err
	}
	q := listQuery{kind: k, params: lp, companyID: p.CompanyID, only: only}
	if lp.Feed.On() {
		if lp.SortBy != "" || lp.SortOrder != "" {
			return paging.Page[record]{}, apperr.Invalid("sort_by", "msg.list.feed_sort")
		}
		codec := feed.NewCodec(s.cursorKey)
		fq, err := feed.Prepare(ctx, s.db, codec, k.table, lp.Feed)
		if err != nil {
			return paging.Page[record]{}, err
		}
		q.feed = &fq
		items, _, _, err := q.run(ctx, s.db)
		if err != nil {
			return paging.Page[record]{}, err
		}
		return feed.Finish(codec, fq, items, func(r record) feed.Position {
			return feed.Position{UpdatedAt: r.UpdatedAt, ID: r.ID}
		}), nil
	}
	if lp.Page.Keyset && lp.Page.Cursor != "" {
		c, err := s.decodeCursor(k, lp.Page.Cursor)
		if err != nil {
			return paging.Page[record]{}, err
		}
		if (lp.SortBy != "" && lp.SortBy != c.SortBy) || (lp.SortOrder != "" && lp.SortOrder != c.SortOrder) {
			return paging.Page[record]{}, apperr.BadRequest("msg.list.cursor_sort")
		}
		q.params.SortBy, q.params.SortOrder = c.SortBy, c.SortOrder
		q.after = &c
	}
	if q.params.SortBy == "" {
		q.params.SortBy = defaultSortField
	}
	if q.params.SortOrder == "" {
		q.params.SortOrder = "asc"
	}
	items, keys, total, err := q.run(ctx, s.db)
	if err != nil {
		return paging.Page[record]{}, err
	}
	if lp.Page.Keyset {
		page := paging.Keyset(items, "", false, lp.Page)
		if size := lp.Page.Size; len(items) > size {
			page.Items, page.HasMore = items[:size], true
			page.NextCursor = s.encodeCursor(k, cursor{SortBy: q.params.SortBy, SortOrder: q.params.SortOrder, Key: keys[size-1], ID: items[size-1].ID})
		}
		return page, nil
	}
	if len(items) == 0 && lp.Page.Number > 1 {
		// The page is past the end, so no row carried the total.
		if total, err = q.count(ctx, s.db); err != nil {
			return paging.Page[record]{}, err
		}
	}
	return paging.New(items, total, lp.Page), nil
}

// normalize validates filter and sort values (422) and tidies them.
func (lp *ListParams) normalize(k kindSpec) error {
	var v apperr.Validation
	for _, st := range lp.Status {
		if !slices.Contains(k.statuses, st) {
			v.Add("status", "msg.fleet.status", "allowed", strings.Join(k.statuses, ", "))
			break
		}
	}
	for _, t := range lp.Type {
		if !slices.Contains(k.types, t) {
			v.Add("type", "msg.fleet.type", "allowed", strings.Join(k.types, ", "))
			break
		}
	}
	for i, t := range lp.Tags {
		lp.Tags[i] = strings.ToLower(strings.TrimSpace(t))
		if !patch.TagPattern.MatchString(lp.Tags[i]) {
			v.Add("tag", "msg.list.tag", "max", 40)
			break
		}
	}
	for _, st := range lp.DocumentStatus {
		if !slices.Contains(documents.Statuses, st) {
			v.Add("document_status", "msg.list.document_status")
			break
		}
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

// statusRanges are the document statuses (konvoj_document_status, docs/
// drivers-and-documents.md) of a document dd as conditions on its file and
// its valid_until, so that the filter reads a range of the fleet documents'
// index on valid_until instead of working out the status of every document
// of the company. TestStatusRangesMatchTheStatusRule keeps them in step.
var statusRanges = map[string]string{
	"no_data":       `dd.current_file_id IS NULL`,
	"valid":         `dd.current_file_id IS NOT NULL AND (dd.valid_until IS NULL OR dd.valid_until > (SELECT today FROM co) + 30)`,
	"warning":       `dd.current_file_id IS NOT NULL AND dd.valid_until BETWEEN (SELECT today FROM co) + 15 AND (SELECT today FROM co) + 30`,
	"expiring_soon": `dd.current_file_id IS NOT NULL AND dd.valid_until BETWEEN (SELECT today FROM co) AND (SELECT today FROM co) + 14`,
	"expired":       `dd.current_file_id IS NOT NULL AND dd.valid_until < (SELECT today FROM co)`,
}

// listQuery builds the list statement from fixed SQL fragments; every value
// travels as an argument.
type listQuery struct {
	kind      kindSpec
	params    ListParams
	companyID uuid.UUID
	only      *uuid.UUID // a driver caller: the records of its active unit
	after     *cursor
	feed      *feed.Query
	args      postgres.Args
	// storedTotal, set by where when the filters allow it: an offset
	// page's total read from what triggers keep (fleet_counts,
	// fleet_expiry) instead of counted. Empty: counted.
	storedTotal string
}

// likeEscaper escapes LIKE wildcards so a search for "50%" means the text.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// where returns the filter conditions on records r; $1 is the company.
// The conditions that need today or the rules read them from co and ru.
func (q *listQuery) where() string {
	k := q.kind
	q.args = postgres.Args{Values: []any{q.companyID}}
	conds := []string{"r.company_id = $1"}
	if q.feed != nil {
		conds = append(conds, q.feed.Where("r", true, q.args.Add))
	} else {
		conds = append(conds, "r.deleted_at IS NULL")
	}
	lp := q.params
	if q.only != nil {
		conds = append(conds, `r.id IN (SELECT u.`+k.holderColumn()+` FROM transport_units u WHERE u.company_id = $1
					AND u.driver_id = `+q.args.Add(*q.only)+` AND u.unassigned_at IS NULL AND u.deleted_at IS NULL)`)
	}
	if len(lp.OfficeIDs) > 0 {
		conds = append(conds, "r.office_id = ANY ("+q.args.Add(lp.OfficeIDs)+"::uuid[])")
	}
	if len(lp.Tags) > 0 {
		conds = append(conds, "r.tags && "+q.args.Add(lp.Tags)+"::text[]")
	}
	// Each word is looked up by konvoj_fleet_search, where the trigram
	// index serves LIKE '%word%' past the row-level security policies.
	words := strings.Fields(strings.ToLower(lp.Search))
	if len(words) > 5 {
		words = words[:5]
	}
	for _, w := range words {
		conds = append(conds, "r.id IN (SELECT s.id FROM konvoj_fleet_search($1, '"+string(k.kind)+"', "+q.args.Add(likeEscaper.Replace(w))+"::text) AS s(id))")
	}
	switch lp.IsReady {
	case "true":
		conds = append(conds, readyCond(k))
	case "false":
		conds = append(conds, "NOT "+readyCond(k))
	}
	// Every condition but the company's live records, the status, the
	// type and the document status is above this line, so any filter
	// added there turns counting back on.
	filtered := q.feed != nil || len(conds) > 2
	expired := len(lp.DocumentStatus) == 1 && lp.DocumentStatus[0] == "expired"
	switch {
	case expired:
		// The records with an expired document from a day up to today,
		// which fleet_expiry keeps (migrations/00058_fleet_expiry_counts.sql);
		// the OR keeps it a subplan hashed once, as below.
		conds = append(conds, `(r.id IN (SELECT e.holder_id FROM fleet_expiry e
					WHERE e.company_id = $1 AND e.holder_type = '`+string(k.kind)+`'
						AND e.expired_from <= (SELECT today FROM co)) OR false)`)
	case len(lp.DocumentStatus) > 0:
		var statuses []string
		for _, st := range lp.DocumentStatus {
			statuses = append(statuses, "("+statusRanges[st]+")")
		}
		// The OR keeps it a subplan, hashed once from the index range and
		// probed by each record the page's scan reads, as the drivers'
		// expiredCondition does: as a semi-join the planner counts on the
		// LIMIT and probes each record's documents once per record, for
		// the total too (docs/performance.md, "The vehicles list").
		conds = append(conds, `(r.id IN (SELECT dd.`+k.holderColumn()+` FROM driver_documents dd
					WHERE dd.company_id = $1 AND dd.holder_type = '`+string(k.kind)+`'
						AND (`+strings.Join(statuses, " OR ")+`)) OR false)`)
	}
	statuses, types := "", ""
	if len(lp.Status) > 0 {
		statuses = q.args.Add(lp.Status)
		conds = append(conds, "r.status = ANY ("+statuses+"::text[])")
	}
	if len(lp.Type) > 0 {
		types = q.args.Add(lp.Type)
		conds = append(conds, "r.type = ANY ("+types+"::text[])")
	}
	q.storedTotal = ""
	switch {
	case filtered:
	case len(lp.DocumentStatus) == 0:
		q.storedTotal = k.countedTotal(statuses, types)
	case expired && statuses == "" && types == "":
		q.storedTotal = `(SELECT count(*) FILTER (WHERE e.live) FROM fleet_expiry e
				WHERE e.company_id = $1 AND e.holder_type = '` + string(k.kind) + `'
					AND e.expired_from <= (SELECT today FROM co))`
	}
	return strings.Join(conds, "\n\t\t\t\tAND ")
}

// readyCond is is_ready=true over records r: active, and no required type
// without a usable document (one with a file that has not expired), each
// probed in the record's leaf of its documents' index.
func readyCond(k kindSpec) string {
	return `(r.status = 'active' AND NOT EXISTS (
					SELECT 1 FROM unnest(` + k.required() + `) AS t(type)
					WHERE NOT EXISTS (SELECT 1 FROM driver_documents dd WHERE dd.` + k.holderColumn() + ` = r.id AND dd.type = t.type
						AND dd.current_file_id IS NOT NULL AND (dd.valid_until IS NULL OR dd.valid_until >= (SELECT today FROM co)))))`
}

// countedTotal is the total of a list of the company's live records of the
// kind of the statuses and types asked (each the filter's argument, empty:
// all): the sum of fleet_counts, which triggers keep
// (migrations/00058_fleet_expiry_counts.sql).
func (k kindSpec) countedTotal(statuses, types string) string {
	cond := ""
	if statuses != "" {
		cond += " AND n.status = ANY (" + statuses + "::text[])"
	}
	if types != "" {
		cond += " AND n.type = ANY (" + types + "::text[])"
	}
	return "(SELECT coalesce(sum(n.live), 0) FROM fleet_counts n WHERE n.company_id = $1 AND n.holder_type = '" + string(k.kind) + "'" + cond + ")"
}

// keyset is the condition "after the cursor row" in the sort order, with
// nulls last in both directions.
func (q *listQuery) keyset(col sortColumn, op string) string {
	c := q.after
	id := q.args.Add(c.ID)
	if c.Key == nil {
		return fmt.Sprintf("(%s IS NULL AND r.id %s %s)", col.expr, op, id)
	}
	cond := fmt.Sprintf("(%s, r.id) %s (%s::text::%s, %s)", col.expr, op, q.args.Add(*c.Key), col.cast, id)
	if col.nullable {
		cond = fmt.Sprintf("(%s OR %s IS NULL)", cond, col.expr)
	}
	return cond
}

// run returns the page's records, each one's sort key (for the next
// cursor) and, in offset mode, the total of the filtered set. In cursor
// and feed mode it reads one row more than the limit.
func (q *listQuery) run(ctx context.Context, db postgres.DBTX) ([]record, []*string, int, error) {
	k := q.kind
	lp := q.params
	col := sortColumns[lp.SortBy]
	if q.feed != nil {
		col = feedColumn
	}
	dir, op := "ASC", ">"
	if lp.SortOrder == "desc" {
		dir, op = "DESC", "<"
	}
	where := q.where()
	if q.after != nil {
		where += "\n\t\t\t\tAND " + q.keyset(col, op)
	}
	order := fmt.Sprintf("%s %s NULLS LAST, r.id %s", col.expr, dir, dir)
	total, limit, offset := "count(*) OVER ()", "", ""
	switch {
	case q.feed != nil:
		total, limit, offset = "0", q.args.Add(q.feed.Limit+1), "0"
	case lp.Page.Keyset:
		total, limit, offset = "0", q.args.Add(lp.Page.Size+1), "0"
	default:
		// The total is counted by a statement of its own (run once, from
		// the narrowest index), so that the page's scan stops at its last
		// row: counted with the page (count(*) OVER ()), every matching
		// record was read in order and ranked, 20,000 on a 20,000-vehicle
		// company for a page of 20 (docs/performance.md, "The vehicles list").
		// Without other filters it is read from what triggers keep.
		total = q.storedTotal
		if total == "" {
			total = fmt.Sprintf("(SELECT count(*) FROM %s r WHERE %s)", k.table, where)
		}
		limit, offset = q.args.Add(lp.Page.Size), q.args.Add(lp.Page.Offset())
	}
	outerOrder := fmt.Sprintf("p.sort_key::%s %s NULLS LAST, r.id %s", col.cast, dir, dir)
	sql := fmt.Sprintf(`
		WITH %s
		SELECT %s, p.sort_key, p.total_rows
		FROM (
			SELECT r.id, (%s)::text AS sort_key, %s AS total_rows
			FROM %s r
			WHERE %s
			ORDER BY %s
			LIMIT %s OFFSET %s
		) p
		JOIN %s r ON r.id = p.id AND r.company_id = $1
		CROSS JOIN co
		%s
		%s
		ORDER BY %s`,
		k.facts("$1"), k.selectColumns(), col.expr, total, k.table, where, order, limit, offset, k.table, k.summary(), k.unit(), outerOrder)
	rows, err := db.Query(ctx, sql, q.args.Values...)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list %s: %w", k.table, err)
	}
	var keys []*string
	n := 0
	items, err := postgres.AppendRows([]record{}, rows, func(row pgx.Row, r *record) error {
		var u unitRow
		var key *string
		if err := row.Scan(append(k.scanTargets(r, &u), &key, &n)...); err != nil {
			return err
		}
		r.CurrentUnit = u.value(k)
		r.Tags = tagsValue(r.Tags)
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return nil, nil, 0, fmt.Errorf("list %s: %w", k.table, err)
	}
	return items, keys, n, nil
}

// count counts the filtered set (for a page past the end).
func (q *listQuery) count(ctx context.Context, db postgres.DBTX) (int, error) {
	sql := `WITH ` + q.kind.facts("$1") + ` SELECT count(*) FROM ` + q.kind.table + ` r WHERE ` + q.where()
	var n int
	if err := db.QueryRow(ctx, sql, q.args.Values...).Scan(&n); err != nil {
		return 0, fmt.Errorf("count %s: %w", q.kind.table, err)
	}
	return n, nil
}

// cursor is the position after the last row of a page: the sort it belongs
// to, that row's sort key (PostgreSQL's text form, nil for a null plate)
// and its id, the final tie-break.
type cursor struct {
	SortBy    string    `json:"s"`
	SortOrder string    `json:"o"`
	Key       *string   `json:"k"`
	ID        uuid.UUID `json:"i"`
}

// encodeCursor signs the cursor: base64url(JSON) "." base64url(HMAC-SHA256).
func (s *Service) encodeCursor(k kindSpec, c cursor) string {
	payload, _ := json.Marshal(c) // a struct of strings and a UUID always encodes
	body := base64.RawURLEncoding.EncodeToString(payload)
	return body + "." + base64.RawURLEncoding.EncodeToString(s.sign(k, body))
}

// decodeCursor checks the signature and the contents; anything wrong is 400.
func (s *Service) decodeCursor(k kindSpec, raw string) (cursor, error) {
	invalid := apperr.BadRequest("msg.list.cursor")
	body, sig, ok := strings.Cut(raw, ".")
	if !ok {
		return cursor{}, invalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.sign(k, body)) {
		return cursor{}, invalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return cursor{}, invalid
	}
	var c cursor
	if err := json.Unmarshal(payload, &c); err != nil {
		return cursor{}, invalid
	}
	col, ok := sortColumns[c.SortBy]
	if !ok || (c.SortOrder != "asc" && c.SortOrder != "desc") || (c.Key == nil && !col.nullable) {
		return cursor{}, invalid
	}
	return c, nil
}

func (s *Service) sign(k kindSpec, body string) []byte {
	m := hmac.New(sha256.New, s.cursorKey)
	m.Write([]byte(k.table + ".cursor.v1\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}
