package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// feedItem is a row of a change feed as the tests read it.
type feedItem struct {
	ID        uuid.UUID  `json:"id"`
	LastName  string     `json:"last_name"`
	Status    string     `json:"status"`
	UpdatedAt time.Time  `json:"updated_at"`
	DeletedAt *time.Time `json:"deleted_at"`
}

type feedPage struct {
	Data []feedItem `json:"data"`
	Meta struct {
		NextCursor *string `json:"next_cursor"`
		HasMore    bool    `json:"has_more"`
	} `json:"meta"`
}

// feedGet reads one feed page; the path carries the list's other query.
func feedGet(t *testing.T, c *webtest.Caller, path string) feedPage {
	t.Helper()
	var p feedPage
	c.Get(path).Expect(http.StatusOK).Decode(&p)
	if p.Meta.NextCursor == nil || *p.Meta.NextCursor == "" {
		t.Fatalf("%s: feed page without next_cursor", path)
	}
	return p
}

// syncer is an API client that mirrors the company's live drivers from the
// feed, following the rule of docs/change-feed.md: keep meta.next_cursor,
// continue while has_more.
type syncer struct {
	c      *webtest.Caller
	cursor string
	since  time.Time
	seen   map[uuid.UUID]feedItem
	pages  int
}

// sync reads the feed until has_more is false.
func (s *syncer) sync(t *testing.T) {
	t.Helper()
	for {
		q := url.Values{"include_deleted": {"true"}, "limit": {"37"}}
		if s.cursor == "" {
			q.Set("updated_since", s.since.Format(time.RFC3339Nano))
		} else {
			q.Set("cursor", s.cursor)
		}
		p := feedGet(t, s.c, "/api/v0/drivers?"+q.Encode())
		s.pages++
		var last time.Time
		for _, it := range p.Data {
			if it.UpdatedAt.Before(last) {
				t.Fatalf("feed out of order: %s after %s", it.UpdatedAt, last)
			}
			last = it.UpdatedAt
			if it.DeletedAt != nil {
				delete(s.seen, it.ID)
			} else {
				s.seen[it.ID] = it
			}
		}
		s.cursor = *p.Meta.NextCursor
		if !p.Meta.HasMore {
			return
		}
	}
}

// TestDriverFeedSyncUnderConcurrentWrites: a client syncing the drivers with
// updated_since in a loop, while API clients create, update and delete
// drivers and other sessions hold transactions of varying length open
// (stamped at their start, committed later: the classic way a feed loses a
// change), ends with exactly the server's set.
func TestDriverFeedSyncUnderConcurrentWrites(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	ctx := context.Background()

	start := time.Now().Add(-time.Minute)
	var mu sync.Mutex
	var live []uuid.UUID
	pick := func() (uuid.UUID, bool) {
		mu.Lock()
		defer mu.Unlock()
		if len(live) == 0 {
			return uuid.Nil, false
		}
		return live[rand.IntN(len(live))], true
	}
	for i := range 20 {
		live = append(live, drvCreate(t, hr, map[string]any{"first_name": "Seed", "last_name": fmt.Sprintf("S%d", i),
			"email": fmt.Sprintf("seed%d@example.test", i)}).ID)
	}

	stop := make(chan struct{})
	var writers sync.WaitGroup
	var created, updated, deleted, slow atomic.Int64
	writer := func(f func(n int)) {
		writers.Add(1)
		go func() {
			defer writers.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				f(n)
			}
		}()
	}
	// Creates through the API.
	for w := range 2 {
		writer(func(n int) {
			r := hr.Post("/api/v0/drivers", map[string]any{"first_name": "New", "last_name": fmt.Sprintf("N%d-%d", w, n),
				"email": fmt.Sprintf("new-%d-%d@example.test", w, n)})
			if r.Status != http.StatusCreated {
				t.Errorf("create: %d %s", r.Status, r.Body)
				return
			}
			var d drvItem
			r.Decode(&d)
			mu.Lock()
			live = append(live, d.ID)
			mu.Unlock()
			created.Add(1)
		})
	}
	// Updates through the API.
	writer(func(n int) {
		id, ok := pick()
		if !ok {
			return
		}
		r := hr.Put("/api/v0/drivers/"+id.String(), map[string]any{"last_name": fmt.Sprintf("U%d", n)})
		if r.Status == http.StatusOK {
			updated.Add(1)
		} else if r.Status != http.StatusNotFound { // deleted meanwhile
			t.Errorf("update: %d %s", r.Status, r.Body)
		}
	})
	// Deletes through the API.
	writer(func(int) {
		time.Sleep(15 * time.Millisecond)
		id, ok := pick()
		if !ok {
			return
		}
		r := hr.Delete("/api/v0/drivers/" + id.String())
		if r.Status == http.StatusNoContent {
			deleted.Add(1)
		} else if r.Status != http.StatusNotFound {
			t.Errorf("delete: %d %s", r.Status, r.Body)
		}
	})
	// Long transactions: stamped when they start, committed 50–400 ms later,
	// after many quicker changes with later stamps were already synced.
	for w := range 2 {
		writer(func(n int) {
			id, ok := pick()
			if !ok {
				return
			}
			tx, err := env.DB.Begin(ctx)
			if err != nil {
				t.Errorf("begin: %v", err)
				return
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, `UPDATE drivers SET last_name = $2 WHERE id = $1`, id, fmt.Sprintf("L%d-%d", w, n)); err != nil {
				t.Errorf("slow update: %v", err)
				return
			}
			time.Sleep(time.Duration(50+rand.IntN(350)) * time.Millisecond)
			if err := tx.Commit(ctx); err != nil {
				t.Errorf("slow commit: %v", err)
				return
			}
			slow.Add(1)
		})
	}

	s := &syncer{c: env.As(company, auth.RoleAdmin), since: start, seen: map[uuid.UUID]feedItem{}}
	deadline := time.Now().Add(4 * time.Second)
	for time.Now().Before(deadline) {
		s.sync(t)
		time.Sleep(20 * time.Millisecond)
	}
	close(stop)
	writers.Wait()
	if t.Failed() {
		return
	}
	// The horizon holds back the last second; then one final sync.
	time.Sleep(1200 * time.Millisecond)
	s.sync(t)

	server := map[uuid.UUID]feedItem{}
	rows, err := env.DB.Query(ctx, `SELECT id, last_name, updated_at FROM drivers WHERE company_id = $1 AND deleted_at IS NULL`, company)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var it feedItem
		if err := rows.Scan(&it.ID, &it.LastName, &it.UpdatedAt); err != nil {
			t.Fatal(err)
		}
		server[it.ID] = it
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d creates, %d updates, %d deletes, %d slow updates; %d feed pages; %d live drivers",
		created.Load(), updated.Load(), deleted.Load(), slow.Load(), s.pages, len(server))
	if created.Load() < 5 || updated.Load() < 5 || deleted.Load() < 5 || slow.Load() < 5 {
		t.Fatalf("the writers did too little to test anything")
	}
	for id, want := range server {
		got, ok := s.seen[id]
		switch {
		case !ok:
			t.Errorf("driver %s (%s) is on the server but not in the client's copy", id, want.LastName)
		case got.LastName != want.LastName || !got.UpdatedAt.Equal(want.UpdatedAt):
			t.Errorf("driver %s: client has %q at %s, server %q at %s", id, got.LastName, got.UpdatedAt, want.LastName, want.UpdatedAt)
		}
	}
	for id, got := range s.seen {
		if _, ok := server[id]; !ok {
			t.Errorf("driver %s (%s) is in the client's copy but deleted on the server", id, got.LastName)
		}
	}
}

// TestFeedParameters: the feed's parameters on the four lists, their
// errors, deleted rows, and that a document's file change moves the
// document.
func TestFeedParameters(t *testing.T) {
	f := newFinanceFixture(t)
	env, hr := f.env, f.hr
	since := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	drivers := "/api/v0/drivers?updated_since=" + url.QueryEscape(since)

	// Bad values: 422 in the documented format; an altered cursor 400.
	for _, q := range []string{"updated_since=yesterday", "updated_since=2026-01-31", "updated_since=" + url.QueryEscape(since) + "&include_deleted=yes",
		"include_deleted=true", "updated_since=" + url.QueryEscape(since) + "&sort_by=last_name"} {
		for _, path := range []string{"/api/v0/drivers", f.path(f.driver, ""), "/api/v0/drivers/" + f.driver.String() + "/penalties",
			"/api/v0/drivers/" + f.driver.String() + "/documents"} {
			if path != "/api/v0/drivers" && q == "updated_since="+url.QueryEscape(since)+"&sort_by=last_name" {
				continue // only the drivers list sorts
			}
			m := hr.Get(path+"?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if _, ok := m["errors"].(map[string]any); !ok {
				t.Errorf("%s?%s: 422 without errors: %v", path, q, m)
			}
		}
	}
	first := feedGet(t, hr, drivers)
	cur := *first.Meta.NextCursor
	hr.Get("/api/v0/drivers?cursor="+url.QueryEscape(cur[:len(cur)-2]+"xx")).ExpectError(http.StatusBadRequest, "BadRequest")
	// A cursor of one list is no cursor of another.
	hr.Get(f.path(f.driver, "?cursor="+url.QueryEscape(cur))).ExpectError(http.StatusBadRequest, "BadRequest")

	// Drivers: a deleted driver appears only with include_deleted.
	gone := drvCreate(t, hr, map[string]any{"first_name": "Gone", "last_name": "Soon", "email": "gone@example.test"})
	hr.Delete("/api/v0/drivers/" + gone.ID.String()).Expect(http.StatusNoContent)
	time.Sleep(1100 * time.Millisecond) // past the horizon's second
	find := func(p feedPage, id uuid.UUID) *feedItem {
		for i := range p.Data {
			if p.Data[i].ID == id {
				return &p.Data[i]
			}
		}
		return nil
	}
	if it := find(feedGet(t, hr, drivers+"&limit=100"), gone.ID); it != nil {
		t.Errorf("a deleted driver is in the feed without include_deleted")
	}
	if it := find(feedGet(t, hr, drivers+"&limit=100&include_deleted=true"), gone.ID); it == nil || it.DeletedAt == nil {
		t.Errorf("the deleted driver is not in the feed with include_deleted=true and deleted_at: %+v", it)
	}

	// Transactions: created, then deleted; the feed shows the deletion.
	tx := f.create(t, "bonus", "100", pragueDay(0))
	hr.Delete(f.path(f.driver, "/"+tx["id"].(string))).Expect(http.StatusNoContent)
	time.Sleep(1100 * time.Millisecond)
	p := feedGet(t, hr, f.path(f.driver, "?include_deleted=true&updated_since="+url.QueryEscape(since)))
	if it := find(p, uuid.MustParse(tx["id"].(string))); it == nil || it.DeletedAt == nil {
		t.Errorf("the deleted transaction is not in its feed with deleted_at: %+v", p.Data)
	}
	// The cursor of the last page, used again, answers nothing new.
	again := feedGet(t, hr, f.path(f.driver, "?cursor="+url.QueryEscape(*p.Meta.NextCursor)))
	if len(again.Data) != 0 || again.Meta.HasMore {
		t.Errorf("the feed repeated rows after its own cursor: %+v", again.Data)
	}

	// Penalties: a new one is in the feed.
	pen := f.createPenalty(t, nil)
	time.Sleep(1100 * time.Millisecond)
	pp := feedGet(t, hr, "/api/v0/drivers/"+f.driver.String()+"/penalties?updated_since="+url.QueryEscape(since))
	if find(pp, uuid.MustParse(pen["id"].(string))) == nil {
		t.Errorf("the new penalty is not in the penalties feed: %+v", pp.Data)
	}

	// Documents: an upload moves the document in the feed, and only it.
	docs := "/api/v0/drivers/" + f.driver.String() + "/documents"
	before := feedGet(t, hr, docs+"?updated_since="+url.QueryEscape(since)+"&limit=100")
	if len(before.Data) != 14 {
		t.Fatalf("documents feed: %d documents, want 14", len(before.Data))
	}
	mark := feedGet(t, hr, docs+"?cursor="+url.QueryEscape(*before.Meta.NextCursor))
	if len(mark.Data) != 0 {
		t.Fatalf("documents feed repeats: %+v", mark.Data)
	}
	doc := before.Data[3].ID
	body, h := webtest.PDFUpload("passport.pdf")
	hr.Send(http.MethodPost, "/api/v0/documents/"+doc.String()+"/files", body, h).Expect(http.StatusCreated)
	time.Sleep(1100 * time.Millisecond)
	after := feedGet(t, hr, docs+"?cursor="+url.QueryEscape(*mark.Meta.NextCursor))
	if len(after.Data) != 1 || after.Data[0].ID != doc {
		t.Errorf("after an upload the documents feed answers %+v, want only document %s", after.Data, doc)
	}
	_ = env
}
