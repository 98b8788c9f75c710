package live

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// HubOptions shape a Hub; zero values take the defaults.
type HubOptions struct {
	// Poll is the fallback poll's interval: a notification lost (the
	// listening connection broke) is caught within it. Default 2 s.
	Poll time.Duration
	// Buffer is how many events a stream may have waiting; a stream whose
	// client does not read that many is dropped. Default 256.
	Buffer int
	Log    *slog.Logger
}

// ErrClosed: the hub is shutting down and takes no new stream.
var ErrClosed = errors.New("live: shutting down")

// Drop reasons, for the stream's end and the metrics.
const (
	DropSlow     = "slow"
	DropShutdown = "shutdown"
)

// Hub fans the committed events of this instance's streams' companies out
// to the streams: one connection LISTENs for the commits' notifications,
// one query per wake-up (or poll) reads the new events of every company
// that was told or has streams, and each stream gets them in its buffer.
type Hub struct {
	db   *pgxpool.Pool
	opts HubOptions

	mu        sync.Mutex
	companies map[uuid.UUID]*company
	dirty     map[uuid.UUID]bool
	closed    bool

	wake chan struct{}
	stop chan struct{}
	done sync.WaitGroup

	// Dropped counts streams dropped for not reading.
	Dropped atomic.Int64
}

type company struct {
	// cursor is the last event id handed out: ids of a company become
	// visible in order (the numbering at commit), so everything after it
	// is new.
	cursor int64
	subs   map[*Sub]struct{}
}

// Sub is one stream's subscription.
type Sub struct {
	// C carries the company's events in id order.
	C       chan *Event
	company uuid.UUID
	// Done is closed when the hub drops the stream; Reason says why.
	Done   chan struct{}
	reason atomic.Value
}

// Reason is why the hub dropped the stream (DropSlow, DropShutdown).
func (s *Sub) Reason() string {
	r, _ := s.reason.Load().(string)
	return r
}

// NewHub returns a hub reading events on db, the system pool (the events
// of every company with a stream here).
func NewHub(db *pgxpool.Pool, o HubOptions) *Hub {
	if o.Poll <= 0 {
		o.Poll = 2 * time.Second
	}
	if o.Buffer <= 0 {
		o.Buffer = 256
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	return &Hub{db: db, opts: o, companies: map[uuid.UUID]*company{}, dirty: map[uuid.UUID]bool{},
		wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// Start runs the listener and the reader until Close.
func (h *Hub) Start() {
	h.done.Add(2)
	go h.listen()
	go h.read()
}

// Close drops every stream (they end, and their clients reconnect to
// another instance) and stops the hub. It is called when the server
// begins its graceful shutdown, so that open streams do not hold it up.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for _, c := range h.companies {
		for s := range c.subs {
			h.dropLocked(c, s, DropShutdown)
		}
	}
	h.mu.Unlock()
	close(h.stop)
	h.done.Wait()
}

// Subscribe opens a subscription to the company's events committed from
// now on. A resuming stream replays what it missed afterwards (Replay) and
// skips what it already sent: an event may arrive both ways, never
// neither.
func (h *Hub) Subscribe(ctx context.Context, companyID uuid.UUID) (*Sub, error) {
	// The company's head, read before it is tracked: every later event is
	// handed out. Read outside the lock; a company already tracked keeps
	// its cursor.
	head, err := Head(ctx, h.db, companyID)
	if err != nil {
		return nil, err
	}
	s := &Sub{C: make(chan *Event, h.opts.Buffer), company: companyID, Done: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	c := h.companies[companyID]
	if c == nil {
		c = &company{cursor: head, subs: map[*Sub]struct{}{}}
		h.companies[companyID] = c
	}
	c.subs[s] = struct{}{}
	return s, nil
}

// Unsubscribe ends a subscription.
func (h *Hub) Unsubscribe(s *Sub) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.companies[s.company]; c != nil {
		delete(c.subs, s)
		if len(c.subs) == 0 {
			delete(h.companies, s.company)
		}
	}
}

// Streams is how many subscriptions are open.
func (h *Hub) Streams() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, c := range h.companies {
		n += len(c.subs)
	}
	return n
}

func (h *Hub) dropLocked(c *company, s *Sub, reason string) {
	delete(c.subs, s)
	s.reason.Store(reason)
	close(s.Done)
	if reason == DropSlow {
		h.Dropped.Add(1)
	}
}

// notify marks a company as having new events (nil: every company, after
// the listener reconnected and may have missed some).
func (h *Hub) notify(companyID *uuid.UUID) {
	h.mu.Lock()
	if companyID == nil {
		for id := range h.companies {
			h.dirty[id] = true
		}
	} else if _, ok := h.companies[*companyID]; ok {
		h.dirty[*companyID] = true
	}
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// listen holds one connection taken out of the pool, LISTENing, and
// reconnects after a failure.
func (h *Hub) listen() {
	defer h.done.Done()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { <-h.stop; cancel() }()
	for ctx.Err() == nil {
		err := h.listenOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		h.opts.Log.Warn("live updates: listener lost, reconnecting", slog.Any("error", err))
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (h *Hub) listenOnce(ctx context.Context) error {
	pc, err := h.db.Acquire(ctx)
	if err != nil {
		return err
	}
	conn := pc.Hijack() // its own connection from now on, closed here
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	h.notify(nil) // what was committed while nobody listened
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		if id, err := uuid.Parse(n.Payload); err == nil {
			h.notify(&id)
		}
	}
}

// read hands out new events when told, and polls every company with a
// stream as the fallback.
func (h *Hub) read() {
	defer h.done.Done()
	t := time.NewTicker(h.opts.Poll)
	defer t.Stop()
	for {
		all := false
		select {
		case <-h.stop:
			return
		case <-h.wake:
		case <-t.C:
			all = true
		}
		if err := h.fetch(all); err != nil {
			h.opts.Log.Warn("live updates: reading events", slog.Any("error", err))
		}
	}
}

// fetch reads the new events of the told companies (all: of every tracked
// company) and hands them out.
func (h *Hub) fetch(all bool) error {
	h.mu.Lock()
	var ids []uuid.UUID
	var after []int64
	for id, c := range h.companies {
		if all || h.dirty[id] {
			ids, after = append(ids, id), append(after, c.cursor)
		}
	}
	clear(h.dirty)
	h.mu.Unlock()
	if len(ids) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		rows, err := h.db.Query(ctx, `SELECT e.id, e.company_id, e.type, e.driver_id, e.user_id, e.body, e.created_at
			FROM unnest($1::uuid[], $2::bigint[]) AS c(company, after)
			JOIN LATERAL (SELECT * FROM live_events e WHERE e.company_id = c.company AND e.id > c.after ORDER BY e.id LIMIT 1000) e ON true
			ORDER BY e.id`, ids, after)
		if err != nil {
			return fmt.Errorf("new live events: %w", err)
		}
		evs, err := scanEvents(rows)
		if err != nil {
			return fmt.Errorf("new live events: %w", err)
		}
		if len(evs) == 0 {
			return nil
		}
		h.hand(evs)
		// A company with a full page has more: read on from where its
		// events stopped.
		more := map[uuid.UUID]int64{}
		count := map[uuid.UUID]int{}
		for _, e := range evs {
			more[e.CompanyID] = e.ID
			count[e.CompanyID]++
		}
		ids, after = ids[:0], after[:0]
		for id, n := range count {
			if n == 1000 {
				ids, after = append(ids, id), append(after, more[id])
			}
		}
		if len(ids) == 0 {
			return nil
		}
	}
}

// hand gives each event to its company's streams, once: a stream whose
// buffer is full is dropped rather than waited for.
func (h *Hub) hand(evs []*Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range evs {
		c := h.companies[e.CompanyID]
		if c == nil || e.ID <= c.cursor {
			continue
		}
		c.cursor = e.ID
		for s := range c.subs {
			select {
			case s.C <- e:
			default:
				h.dropLocked(c, s, DropSlow)
			}
		}
	}
}
