package web

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/ratelimit"
)

// The addresses of the live-update stream (docs/live-updates.md): the API's,
// with a token, and the pages', with the session cookie. Both serve the
// same stream; the compressor leaves them alone (an event must leave at
// once, not wait to fill a compressed block).
const (
	APIEventsPath  = "/api/v0/events"
	PageEventsPath = "/events"
)

// streamPaths are the stream's addresses.
var streamPaths = map[string]bool{APIEventsPath: true, PageEventsPath: true}

// LiveOptions shape the live-update streams; zero values take the
// defaults of docs/live-updates.md.
type LiveOptions struct {
	// Heartbeat is how often a comment line keeps an idle stream open
	// through proxies. Default 25 s.
	Heartbeat time.Duration
	// Recheck is how often a stream checks its caller again (the session
	// or the token still valid, the user still active, the same role).
	// Default 15 s.
	Recheck time.Duration
	// PerUser and PerCompany are the most streams open at once, across
	// instances when the limiter is shared (Redis). Defaults 5 and 200.
	PerUser, PerCompany int
	// WriteTimeout is how long one write to a client may block before the
	// stream is dropped. Default 10 s.
	WriteTimeout time.Duration
}

// DefaultLiveOptions are the production values.
var DefaultLiveOptions = LiveOptions{Heartbeat: 25 * time.Second, Recheck: 15 * time.Second,
	PerUser: 5, PerCompany: 200, WriteTimeout: 10 * time.Second}

func (o LiveOptions) withDefaults() LiveOptions {
	d := DefaultLiveOptions
	if o.Heartbeat > 0 {
		d.Heartbeat = o.Heartbeat
	}
	if o.Recheck > 0 {
		d.Recheck = o.Recheck
	}
	if o.PerUser > 0 {
		d.PerUser = o.PerUser
	}
	if o.PerCompany > 0 {
		d.PerCompany = o.PerCompany
	}
	if o.WriteTimeout > 0 {
		d.WriteTimeout = o.WriteTimeout
	}
	return d
}

// streamLease is how long a stream's place counts without renewal: an
// instance that died frees its streams' places within it.
const streamLease = 60 * time.Second

// streamRetryAfter is the retry_after of a refused stream: a place frees
// when another stream of the user or company ends, which no one can
// foretell.
const streamRetryAfter = 10

// Recheck checks a stream's caller again: the current principal, or an
// error when the stream must end (signed out, session expired, token
// expired, user deactivated).
type Recheck func(ctx context.Context) (auth.Principal, error)

// Stream serves the caller's live-update stream (docs/live-updates.md) to
// the end: until the client goes, the caller's recheck fails or changes
// the caller's role or driver, until (the token's expiry; zero: none), the
// client falls behind, or the server shuts down. Both fronts call it with
// their caller already set (SetPrincipal).
func (s *Server) Stream(c echo.Context, recheck Recheck, until time.Time) error {
	if s.hub == nil {
		return apperr.New(apperr.KindInternal, "msg.common.server_error")
	}
	p := Principal(c)
	req := c.Request()
	ctx := req.Context()
	after, resume, err := lastEventID(req)
	if err != nil {
		return err
	}
	o := s.live
	holder := uuid.NewString()
	userKey, companyKey := "streams:user:"+p.UserID.String(), "streams:company:"+p.CompanyID.String()
	ok, err := s.leases.Acquire(ctx, userKey, holder, o.PerUser, streamLease)
	if err == nil && ok {
		if ok, err = s.leases.Acquire(ctx, companyKey, holder, o.PerCompany, streamLease); err != nil || !ok {
			_ = s.leases.Release(context.WithoutCancel(ctx), userKey, holder)
		}
	}
	if err != nil {
		return err
	}
	if !ok {
		return &RateLimitedError{RetryAfter: streamRetryAfter}
	}
	defer func() {
		bg := context.WithoutCancel(ctx)
		_ = s.leases.Release(bg, userKey, holder)
		_ = s.leases.Release(bg, companyKey, holder)
	}()

	sub, err := s.hub.Subscribe(ctx, p.CompanyID)
	if errors.Is(err, live.ErrClosed) {
		return echo.NewHTTPError(http.StatusServiceUnavailable) // shutting down: the client tries another instance
	}
	if err != nil {
		return err
	}
	defer s.hub.Unsubscribe(sub)

	w := c.Response()
	rc := http.NewResponseController(w.Writer)
	// The request deadlines (deadlines.go) bound answers, not a stream:
	// lifted here, and a write deadline per message instead.
	_ = rc.SetReadDeadline(time.Time{})
	h := w.Header()
	h.Set(echo.HeaderContentType, "text/event-stream")
	h.Set(echo.HeaderCacheControl, "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
	w.WriteHeader(http.StatusOK)
	s.metrics.streams.Inc()
	defer s.metrics.streams.Dec()

	write := func(b []byte) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(o.WriteTimeout))
		if _, err := w.Write(b); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	// How soon a client reconnects after the stream ends.
	if !write([]byte("retry: 2000\n\n")) {
		return nil
	}

	// Resume: what the client missed, then the hub's events after it. A
	// new stream starts at the company's head.
	last := after
	if resume {
		s.metrics.replays.Inc()
		check := true
		for {
			evs, err := live.Replay(ctx, s.opts.DB, p.CompanyID, last, check, time.Now())
			check = false
			if errors.Is(err, live.ErrReset) {
				s.metrics.resets.Inc()
				head, herr := live.Head(ctx, s.opts.DB, p.CompanyID)
				if herr != nil {
					return nil
				}
				last = head
				if !write([]byte("id: " + strconv.FormatInt(head, 10) + "\nevent: reset\ndata: {}\n\n")) {
					return nil
				}
				break
			}
			if err != nil {
				s.log.WarnContext(ctx, "live updates: replay", slog.Any("error", err))
				return nil
			}
			for _, e := range evs {
				last = e.ID
				if f := e.Frame(p); f != nil {
					if !write(f) {
						return nil
					}
					s.metrics.sent.Inc()
				}
			}
			if len(evs) < live.ReplayPage {
				break
			}
		}
	} else {
		head, err := live.Head(ctx, s.opts.DB, p.CompanyID)
		if err != nil {
			s.log.WarnContext(ctx, "live updates: head", slog.Any("error", err))
			return nil
		}
		last = head
	}

	beat := time.NewTicker(o.Heartbeat)
	defer beat.Stop()
	check := time.NewTicker(o.Recheck)
	defer check.Stop()
	var expired <-chan time.Time
	if !until.IsZero() {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		expired = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-sub.Done:
			return nil // fell behind, or the server is shutting down
		case <-expired:
			return nil
		case e := <-sub.C:
			if e.ID <= last {
				continue // sent by the replay
			}
			last = e.ID
			if f := e.Frame(p); f != nil {
				if !write(f) {
					return nil
				}
				s.metrics.sent.Inc()
			}
		case <-beat.C:
			if !write([]byte(": keep-alive\n\n")) {
				return nil
			}
		case <-check.C:
			now, err := recheck(ctx)
			if err != nil || now.Role != p.Role || now.CompanyID != p.CompanyID || !sameDriver(now.DriverID, p.DriverID) {
				return nil
			}
			_ = s.leases.Renew(ctx, userKey, holder, streamLease)
			_ = s.leases.Renew(ctx, companyKey, holder, streamLease)
		}
	}
}

func sameDriver(a, b *uuid.UUID) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// lastEventID is where a stream resumes: the Last-Event-ID header (a
// browser's EventSource sends it on reconnecting), else the last_event_id
// query parameter (for clients that cannot set headers). Not a whole
// number: 400.
func lastEventID(r *http.Request) (int64, bool, error) {
	v := r.Header.Get("Last-Event-ID")
	if v == "" {
		v = r.URL.Query().Get("last_event_id")
	}
	if v == "" {
		return 0, false, nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 0 {
		return 0, false, apperr.BadRequest("msg.api.param_integer", "name", "last_event_id")
	}
	return id, true, nil
}

// CloseStreams ends every open stream of this instance (their clients
// reconnect, to another instance): the graceful shutdown calls it first,
// so that streams do not hold the shutdown up.
func (s *Server) CloseStreams() {
	if s.hub != nil {
		s.hub.Close()
	}
}

// leasesOf is the stream ceilings' store: the limiter's when it keeps
// leases (Redis, shared by the instances), else this instance's memory.
func leasesOf(l ratelimit.Store) ratelimit.Leases {
	if ls, ok := l.(ratelimit.Leases); ok {
		return ls
	}
	return ratelimit.NewMemoryLeases()
}

// APIStream serves GET /api/v0/events to the caller of a bearer token
// (authenticate has verified it): the stream ends when the token expires,
// and a recheck verifies the token and resolves its caller again.
func (s *Server) APIStream(c echo.Context) error {
	req := c.Request()
	var until time.Time
	if _, raw, ok := strings.Cut(req.Header.Get(echo.HeaderAuthorization), " "); ok {
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(strings.TrimSpace(raw), claims); err == nil {
			if exp, err := claims.GetExpirationTime(); err == nil && exp != nil {
				until = exp.Time
			}
		}
	}
	recheck := func(ctx context.Context) (auth.Principal, error) {
		return s.principalFromRequest(req.WithContext(ctx))
	}
	return s.Stream(c, recheck, until)
}

// Streams is how many live-update streams are open on this instance.
func (s *Server) Streams() int {
	if s.hub == nil {
		return 0
	}
	return s.hub.Streams()
}

// Dropped is how many streams this instance dropped for not reading.
func (s *Server) Dropped() int64 {
	if s.hub == nil {
		return 0
	}
	return s.hub.Dropped.Load()
}
