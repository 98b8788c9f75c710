package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web/webtest"
)

// data is the webhook body's data of a message.
func data(t *testing.T, m webtest.Message) map[string]any {
	t.Helper()
	var b struct {
		Type string         `json:"type"`
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal([]byte(m.Data), &b); err != nil {
		t.Fatalf("message data %q: %v", m.Data, err)
	}
	if b.Type != m.Event {
		t.Fatalf("body type %q, event %q", b.Type, m.Event)
	}
	return b.Data
}

// expectEvent waits up to a second for the next message and checks its name.
func expectEvent(t *testing.T, s *webtest.Stream, event string) webtest.Message {
	t.Helper()
	m, ok := s.Next(time.Second)
	if !ok {
		t.Fatalf("no %s within a second", event)
	}
	if m.Event != event {
		t.Fatalf("got %s %s, want %s", m.Event, m.Data, event)
	}
	return m
}

func expectQuiet(t *testing.T, s *webtest.Stream, wait time.Duration) {
	t.Helper()
	if m, ok := s.Next(wait); ok {
		t.Fatalf("unexpected message %s %s", m.Event, m.Data)
	}
}

// TestLiveEventsReachTheirReaders: a change reaches a stream of its company
// within a second of its commit, as each role may read it: a driver only
// its own records, a dispatcher no personal fields, another company
// nothing.
func TestLiveEventsReachTheirReaders(t *testing.T) {
	env := webtest.New(t)
	co, other := env.Company("Live", "enterprise"), env.Company("Other", "enterprise")
	admin, otherAdmin := env.As(co, auth.RoleAdmin), env.As(other, auth.RoleAdmin)
	mine := fixtures.Driver(t, env.DB, co, fixtures.Email("mine@example.test"))
	theirs := fixtures.Driver(t, env.DB, co, fixtures.Email("theirs@example.test"))
	foreign := fixtures.Driver(t, env.DB, other)
	driver := env.As(co, auth.RoleDriver, "mine@example.test")
	dispatcher := env.As(co, auth.RoleDispatcher)

	sAdmin, sDriver, sDispatcher := admin.Stream(""), driver.Stream(""), dispatcher.Stream("")
	for _, s := range []*webtest.Stream{sAdmin, sDriver, sDispatcher} {
		if s.Status != http.StatusOK || s.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("stream: %d %v %s", s.Status, s.Header, s.Body)
		}
	}
	today := time.Now().UTC().Format("2006-01-02")
	change := func(driverID uuid.UUID, by *webtest.Caller) {
		t.Helper()
		id := driverID.String()
		by.Put("/api/v0/drivers/"+id, map[string]any{"phone": "+420 601 000 001", "iban": "CZ6508000000192000145399"}).Expect(http.StatusOK)
		by.Post("/api/v0/drivers/"+id+"/finance", map[string]any{"transaction_type": "bonus", "amount": "100.00",
			"transaction_date": today}).Expect(http.StatusCreated)
		by.Post("/api/v0/drivers/"+id+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "50.00",
			"incident_date": today, "description": "fast"}).Expect(http.StatusCreated)
	}
	// Another company's changes, and another driver's: never on the
	// driver's stream, nor the other company's on any.
	change(foreign, otherAdmin)
	change(theirs, admin)
	start := time.Now()
	change(mine, admin)
	if m := expectEvent(t, sAdmin, webhooks.DriverUpdated); data(t, m)["id"] != theirs.String() {
		t.Fatalf("admin's first event: %s", m.Data)
	}
	if m := expectEvent(t, sDriver, webhooks.DriverUpdated); data(t, m)["id"] != mine.String() {
		t.Fatalf("driver's first event: %s", m.Data)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("events took %v", time.Since(start))
	}
	drain := func(s *webtest.Stream) []webtest.Message {
		var out []webtest.Message
		for {
			m, ok := s.Next(500 * time.Millisecond)
			if !ok {
				return out
			}
			out = append(out, m)
		}
	}
	kinds := func(ms []webtest.Message) map[string]int {
		n := map[string]int{}
		for _, m := range ms {
			n[m.Event]++
		}
		return n
	}
	// The driver: its own finance and penalty events, nothing of the other driver.
	rest := drain(sDriver)
	for _, m := range rest {
		if d := data(t, m); d["driver_id"] != mine.String() {
			t.Fatalf("driver got another driver's record: %s", m.Data)
		}
	}
	if n := kinds(rest); n[webhooks.TransactionCreated] != 2 || n[webhooks.PenaltyCreated] != 1 || len(rest) != 3 {
		t.Fatalf("driver's events: %v", n)
	}
	// The dispatcher: drivers without personal fields, no finance, no penalties.
	disp := drain(sDispatcher)
	if len(disp) != 2 {
		t.Fatalf("dispatcher's events: %v", kinds(disp))
	}
	for i, who := range []uuid.UUID{theirs, mine} {
		m := disp[i]
		d := data(t, m)
		if m.Event != webhooks.DriverUpdated || d["id"] != who.String() {
			t.Fatalf("dispatcher: %s %s", m.Event, m.Data)
		}
		for _, k := range auth.PersonalFields {
			if _, ok := d[k]; ok {
				t.Fatalf("dispatcher got personal field %s: %s", k, m.Data)
			}
		}
		if d["phone"] == nil {
			t.Fatalf("dispatcher lost a plain field: %s", m.Data)
		}
	}
	// The admin: both drivers' events of its company, the personal fields
	// included, none of the other company's.
	all := drain(sAdmin)
	if n := kinds(all); n[webhooks.DriverUpdated] != 1 || n[webhooks.TransactionCreated] != 4 || n[webhooks.PenaltyCreated] != 2 {
		t.Fatalf("admin's events: %v", n)
	}
	for _, m := range all {
		d := data(t, m)
		if d["id"] == foreign.String() || d["driver_id"] == foreign.String() {
			t.Fatalf("another company's event: %s", m.Data)
		}
		if m.Event == webhooks.DriverUpdated && d["iban"] == nil {
			t.Fatalf("admin without personal fields: %s", m.Data)
		}
	}

	// A document event: the dispatcher reads documents without their files
	// and gets the document without them; the admin with them. The
	// driver gets its own document's events, not the other driver's.
	theirDoc := uuid.MustParse(documentOf(t, admin, theirs, "passport")["id"].(string))
	mustUpload(t, admin, theirDoc, filePart("passport.pdf", samplePDF(t, 300)))
	docID := uuid.MustParse(documentOf(t, admin, mine, "passport")["id"].(string))
	mustUpload(t, admin, docID, filePart("passport.pdf", samplePDF(t, 300)))
	own := drain(sDriver)
	for _, m := range own {
		if d := data(t, m); d["driver_id"] != mine.String() || d["id"] != docID.String() {
			t.Fatalf("driver got another driver's document: %s %s", m.Event, m.Data)
		}
	}
	if n := kinds(own); n[webhooks.DocumentFileUploaded] != 1 {
		t.Fatalf("driver's document events: %v", n)
	}
	// The dispatcher and the admin got the other driver's upload first.
	for _, s := range []*webtest.Stream{sDispatcher, sAdmin} {
		if m := expectEvent(t, s, webhooks.DocumentFileUploaded); data(t, m)["id"] != theirDoc.String() {
			t.Fatalf("first document event: %s", m.Data)
		}
	}
	uploaded := func(ms []webtest.Message) map[string]any {
		t.Helper()
		for _, m := range ms {
			if m.Event == webhooks.DocumentFileUploaded {
				return data(t, m)
			}
		}
		t.Fatalf("no %s among %v", webhooks.DocumentFileUploaded, kinds(ms))
		return nil
	}
	d := uploaded(drain(sDispatcher))
	if _, ok := d["files"]; ok || d["id"] != docID.String() || d["driver_id"] != mine.String() || d["status"] == nil {
		t.Fatalf("dispatcher's document event: %v", d)
	}
	if files, _ := uploaded(drain(sAdmin))["files"].([]any); len(files) != 1 {
		t.Fatalf("admin's document event without its file: %v", files)
	}
}

// TestLiveEventsResume: Last-Event-ID (or last_event_id) replays exactly
// what was missed, in order, none twice; past the window, event: reset.
func TestLiveEventsResume(t *testing.T) {
	env := webtest.New(t)
	co := env.Company("Resume", "enterprise")
	admin := env.As(co, auth.RoleAdmin)
	d := fixtures.Driver(t, env.DB, co)
	phone := 100
	bump := func(n int) {
		for range n {
			phone++
			admin.Put("/api/v0/drivers/"+d.String(), map[string]any{"phone": "+420 601 000 " + strconv.Itoa(phone)}).Expect(http.StatusOK)
		}
	}
	s := admin.Stream("")
	bump(2)
	first := expectEvent(t, s, webhooks.DriverUpdated)
	second := expectEvent(t, s, webhooks.DriverUpdated)
	s.Close()
	<-s.Ended
	bump(3) // missed

	ids := func(s *webtest.Stream, n int) []int64 {
		var out []int64
		for range n {
			m := expectEvent(t, s, webhooks.DriverUpdated)
			id, _ := strconv.ParseInt(m.ID, 10, 64)
			out = append(out, id)
		}
		expectQuiet(t, s, 300*time.Millisecond)
		return out
	}
	r := admin.Stream(second.ID)
	got := ids(r, 3)
	last, _ := strconv.ParseInt(second.ID, 10, 64)
	for _, id := range got {
		if id <= last {
			t.Fatalf("replayed %v after %d: out of order or twice", got, last)
		}
		last = id
	}
	// A live event after the replay follows it once.
	bump(1)
	m := expectEvent(t, r, webhooks.DriverUpdated)
	if id, _ := strconv.ParseInt(m.ID, 10, 64); id <= last {
		t.Fatalf("live %d after replay up to %d", id, last)
	}
	expectQuiet(t, r, 300*time.Millisecond)

	// The query parameter works like the header: from the first event,
	// five follow (the second, the three missed, the live one).
	h := http.Header{"Authorization": {"Bearer " + admin.Token}}
	q := webtest.OpenStream(t, env.Server.URL+"/api/v0/events?last_event_id="+first.ID, h)
	if got := ids(q, 5); len(got) != 5 {
		t.Fatal(got)
	}
	if bad := webtest.OpenStream(t, env.Server.URL+"/api/v0/events?last_event_id=x", h); bad.Status != http.StatusBadRequest {
		t.Fatalf("last_event_id=x: %d", bad.Status)
	}

	// Beyond the window: the missed events are older than 24 h.
	if _, err := env.DB.Exec(context.Background(), `UPDATE live_events SET created_at = now() - interval '25 hours' WHERE company_id = $1`, co); err != nil {
		t.Fatal(err)
	}
	old := admin.Stream(first.ID)
	reset := expectEvent(t, old, "reset")
	// Pruned: the same from the horizon.
	if _, err := live.Prune(context.Background(), env.DB, time.Now()); err != nil {
		t.Fatal(err)
	}
	pruned := admin.Stream(first.ID)
	expectEvent(t, pruned, "reset")
	// After a reset the stream goes on live, from the id the reset carried.
	bump(1)
	next := expectEvent(t, old, webhooks.DriverUpdated)
	if a, _ := strconv.ParseInt(reset.ID, 10, 64); mustInt(next.ID) <= a {
		t.Fatalf("after reset %s came %s", reset.ID, next.ID)
	}
}

func mustInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// TestLiveEventsRollback: an event of a transaction that rolls back is never
// sent, nor numbered; the next committed one is.
func TestLiveEventsRollback(t *testing.T) {
	env := webtest.New(t)
	co := env.Company("Rollback", "enterprise")
	admin := env.As(co, auth.RoleAdmin)
	s := admin.Stream("")
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		tx, err := env.DB.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := webhooks.Emit(ctx, tx, co, webhooks.ImportCompleted, map[string]any{"committed": commit}); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = tx.Commit(ctx)
		} else {
			err = tx.Rollback(ctx)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	m := expectEvent(t, s, webhooks.ImportCompleted)
	if data(t, m)["committed"] != true {
		t.Fatalf("rolled back event sent: %s", m.Data)
	}
	expectQuiet(t, s, 2500*time.Millisecond) // past a fallback poll too
}

// TestLiveEventsCommitOrder: ids follow the order of commits, not of the
// writes: a transaction that wrote first and commits last gets the higher
// id, so a reader resuming from "after id" never skips it.
func TestLiveEventsCommitOrder(t *testing.T) {
	env := webtest.New(t)
	co := env.Company("Order", "enterprise")
	ctx := context.Background()
	early, err := env.DB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback(ctx)
	if err := webhooks.Emit(ctx, early, co, webhooks.ImportCompleted, map[string]any{"n": "early"}); err != nil {
		t.Fatal(err)
	}
	late, err := env.DB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := webhooks.Emit(ctx, late, co, webhooks.ImportCompleted, map[string]any{"n": "late"}); err != nil {
		t.Fatal(err)
	}
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	seen, err := live.Replay(ctx, env.DB, co, 0, true, time.Now())
	if err != nil || len(seen) != 1 {
		t.Fatalf("after the late commit: %v %v", seen, err)
	}
	if err := early.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := live.Replay(ctx, env.DB, co, seen[0].ID, true, time.Now())
	if err != nil || len(after) != 1 || !strings.Contains(string(after[0].Body), "early") {
		t.Fatalf("the early writer's event after %d: %v %v", seen[0].ID, after, err)
	}
}

// TestLiveStreamCeilings: a user's sixth stream is refused with 429 and
// retry_after, the limits kept in Redis (shared by instances).
func TestLiveStreamCeilings(t *testing.T) {
	env := webtest.New(t, webtest.WithLimiter(webtest.RedisLimiter(t)))
	co := env.Company("Ceilings", "enterprise")
	admin := env.As(co, auth.RoleAdmin)
	var open []*webtest.Stream
	for range 5 {
		s := admin.Stream("")
		if s.Status != http.StatusOK {
			t.Fatalf("stream %d: %d %s", len(open)+1, s.Status, s.Body)
		}
		open = append(open, s)
	}
	sixth := admin.Stream("")
	if sixth.Status != http.StatusTooManyRequests {
		t.Fatalf("sixth stream: %d", sixth.Status)
	}
	var body map[string]any
	_ = json.Unmarshal(sixth.Body, &body)
	if body["error"] != "RateLimitExceeded" || body["retry_after"] == nil {
		t.Fatalf("sixth stream body: %s", sixth.Body)
	}
	// Another user of the company still gets one; a closed stream frees
	// its place.
	if s := env.As(co, auth.RoleHRManager).Stream(""); s.Status != http.StatusOK {
		t.Fatalf("another user's stream: %d", s.Status)
	}
	open[0].Close()
	<-open[0].Ended
	deadline := time.Now().Add(2 * time.Second)
	for {
		s := admin.Stream("")
		if s.Status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream's place was not freed: %d", s.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
