// Package feed is the change feed of the lists (docs/change-feed.md): the
// drivers, a driver's documents, finance transactions and penalties accept
// updated_since and include_deleted and then answer the rows changed since,
// oldest first, paged by a signed (updated_at, id) cursor.
//
// The rule that keeps a syncing client from missing a change: a row is
// stamped with the start of the transaction that wrote it (a trigger,
// migrations/00021_change_feed_idempotency.sql), and a transaction that
// started earlier may commit later. So a feed answers only rows stamped
// before the horizon, the start of the oldest transaction still running
// (less a second); every row committed afterwards is stamped at or after
// it, so it always comes after any position the feed has already handed
// out.
package feed

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
)

// DefaultLimit and MaxLimit bound a feed page (the limit parameter).
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// cursorPrefix marks a feed cursor, so a list that also has a sort cursor
// (the drivers list) tells the two apart.
const cursorPrefix = "f1."

// Params are a list's feed parameters as the request gave them; the list
// is in feed mode when On.
type Params struct {
	// UpdatedSince is the raw updated_since (RFC 3339), "" when absent.
	UpdatedSince string
	// IncludeDeleted is the raw include_deleted ("true", "false" or "").
	IncludeDeleted string
	// Cursor is a feed cursor (meta.next_cursor of a feed page).
	Cursor string
	// Limit is the page size (already clamped to MaxLimit by the reader).
	Limit int
}

// IsCursor reports whether a cursor is a feed cursor.
func IsCursor(raw string) bool { return strings.HasPrefix(raw, cursorPrefix) }

// On reports whether the list is asked for its feed: updated_since, a feed
// cursor or include_deleted is given.
func (p Params) On() bool {
	return p.UpdatedSince != "" || IsCursor(p.Cursor) || p.IncludeDeleted != ""
}

// Position is a place in a feed: after the row with this updated_at and id.
type Position struct {
	UpdatedAt time.Time
	ID        uuid.UUID
}

// Query is a checked feed request, ready to put into a list's SQL.
type Query struct {
	list           string
	since          *time.Time
	after          *Position
	horizon        time.Time
	IncludeDeleted bool
	Limit          int
}

// Codec signs feed cursors (HMAC-SHA256), so a client cannot forge one.
type Codec struct{ key []byte }

// NewCodec returns a codec with the list cursors' key.
func NewCodec(key []byte) Codec { return Codec{key: key} }

type cursorBody struct {
	List string    `json:"l"`
	T    time.Time `json:"t"`
	ID   uuid.UUID `json:"i"`
}

// encode writes the position of list as an opaque cursor.
func (c Codec) encode(list string, pos Position) string {
	payload, _ := json.Marshal(cursorBody{List: list, T: pos.UpdatedAt.UTC(), ID: pos.ID}) // always encodes
	body := base64.RawURLEncoding.EncodeToString(payload)
	return cursorPrefix + body + "." + base64.RawURLEncoding.EncodeToString(c.sign(body))
}

// decode reads a cursor of list; anything altered, or a cursor of another
// list, is 400.
func (c Codec) decode(list, raw string) (Position, error) {
	invalid := apperr.BadRequest("msg.list.cursor")
	body, sig, ok := strings.Cut(strings.TrimPrefix(raw, cursorPrefix), ".")
	if !ok || !IsCursor(raw) {
		return Position{}, invalid
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(got, c.sign(body)) {
		return Position{}, invalid
	}
	payload, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return Position{}, invalid
	}
	var cb cursorBody
	if err := json.Unmarshal(payload, &cb); err != nil || cb.List != list {
		return Position{}, invalid
	}
	return Position{UpdatedAt: cb.T, ID: cb.ID}, nil
}

func (c Codec) sign(body string) []byte {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte("feed.cursor.v1\x00"))
	m.Write([]byte(body))
	return m.Sum(nil)
}

// Prepare checks the parameters of list's feed (a bad updated_since or
// include_deleted is 422, an altered cursor 400) and reads the horizon.
// It reads the horizon in a statement of its own, before the list's query:
// the query's snapshot then holds every transaction that had ended when
// the horizon was read.
func Prepare(ctx context.Context, db postgres.DBTX, codec Codec, list string, p Params) (Query, error) {
	q := Query{list: list, Limit: p.Limit}
	if q.Limit < 1 {
		q.Limit = DefaultLimit
	}
	q.Limit = min(q.Limit, MaxLimit)
	var v apperr.Validation
	if p.UpdatedSince != "" {
		t, err := time.Parse(time.RFC3339Nano, p.UpdatedSince)
		if err != nil {
			v.Add("updated_since", "msg.list.updated_since")
		} else {
			t = t.UTC()
			q.since = &t
		}
	}
	switch p.IncludeDeleted {
	case "", "false":
	case "true":
		q.IncludeDeleted = true
	default:
		v.Add("include_deleted", "msg.list.include_deleted")
	}
	if p.UpdatedSince == "" && !IsCursor(p.Cursor) && !v.Has("include_deleted") {
		v.Add("include_deleted", "msg.list.include_deleted_alone")
	}
	if err := v.Err(); err != nil {
		return Query{}, err
	}
	if p.Cursor != "" {
		pos, err := codec.decode(list, p.Cursor)
		if err != nil {
			return Query{}, err
		}
		q.after = &pos
	}
	if err := db.QueryRow(ctx, `SELECT konvoj_feed_horizon()`).Scan(&q.horizon); err != nil {
		return Query{}, fmt.Errorf("read the change feed's horizon: %w", err)
	}
	return q, nil
}

// Where returns the feed's conditions on the table aliased alias (its
// updated_at, id and deleted_at; deleted is false for a table without soft
// delete); arg adds a query argument and returns its placeholder.
func (q Query) Where(alias string, deleted bool, arg func(any) string) string {
	conds := []string{alias + ".updated_at < " + arg(q.horizon) + "::timestamptz"}
	if q.since != nil {
		conds = append(conds, alias+".updated_at >= "+arg(*q.since)+"::timestamptz")
	}
	if q.after != nil {
		conds = append(conds, "("+alias+".updated_at, "+alias+".id) > ("+arg(q.after.UpdatedAt)+"::timestamptz, "+arg(q.after.ID)+"::uuid)")
	}
	if deleted && !q.IncludeDeleted {
		conds = append(conds, alias+".deleted_at IS NULL")
	}
	return strings.Join(conds, " AND ")
}

// OrderLimit is the feed's order on alias and its limit: one row more than
// the page, to tell whether more follow.
func (q Query) OrderLimit(alias string, arg func(any) string) string {
	return q.Order(alias) + " " + q.LimitSQL(arg)
}

// Order is OrderLimit's ORDER BY alone, for a query that orders its page
// again after joining it.
func (q Query) Order(alias string) string {
	return "ORDER BY " + alias + ".updated_at, " + alias + ".id"
}

// LimitSQL is OrderLimit's LIMIT alone.
func (q Query) LimitSQL(arg func(any) string) string {
	return "LIMIT " + arg(q.Limit+1)
}

// Page is one page of a feed: a keyset page (paging.Page) whose
// NextCursor is never empty, since the next request continues after the
// page's last row, or where this one started when it is empty; without
// HasMore the client polls later with it.
type Page[T any] = paging.Page[T]

// Finish cuts the rows read with OrderLimit to the page and sets the cursor.
func Finish[T any](codec Codec, q Query, rows []T, pos func(T) Position) Page[T] {
	if rows == nil {
		rows = []T{}
	}
	p := paging.Keyset(rows, "", false, paging.Request{Size: q.Limit})
	if len(rows) > q.Limit {
		p.Items, p.HasMore = rows[:q.Limit], true
	}
	var at Position
	switch {
	case len(p.Items) > 0:
		at = pos(p.Items[len(p.Items)-1])
	case q.after != nil:
		at = *q.after
	case q.since != nil:
		// Before every row stamped at or after since (the nil id is the
		// smallest).
		at = Position{UpdatedAt: *q.since}
	}
	p.NextCursor = codec.encode(q.list, at)
	return p
}
