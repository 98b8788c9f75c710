package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
)

// Delivery rules (docs/webhooks.md, "Delivery").
const (
	// AttemptTimeout: a delivery must be answered with a 2xx within it.
	AttemptTimeout = 10 * time.Second
	connectTimeout = 5 * time.Second
	// MaxAttempts per delivery; after the last failure it is failed.
	MaxAttempts = 8
	// FirstRetry is the wait after the first failure; each next wait is
	// three times the last: 80 s, 4 min, 12 min, 36 min, 1.8 h, 5.4 h,
	// 16.2 h, about 24 h from the first attempt to the eighth.
	FirstRetry = 80 * time.Second
	// DisableAfter: an endpoint whose deliveries failed, with no success in
	// between, for this long is disabled and its company's admins told.
	DisableAfter = 5 * 24 * time.Hour
	// MaxResponse is how much of a response body is read.
	MaxResponse = 64 << 10
	// maxErrorText is how much of a refusal's body the delivery log keeps.
	maxErrorText = 300
	// workBudget bounds one job's run; it goes on in a new run after it.
	workBudget = 40 * time.Second
)

// Backoff is the wait after the attempt-th failed attempt (1-based).
func Backoff(attempt int) time.Duration {
	d := FirstRetry
	for i := 1; i < attempt; i++ {
		d *= 3
	}
	return d
}

// Sender delivers events. It works on the system pool (every company's
// endpoints), from the River worker of internal/jobs.
type Sender struct {
	db     *pgxpool.Pool
	client *http.Client
	// Now is the clock of the retry schedule and of the signatures (tests
	// drive it); nil is time.Now.
	Now func() time.Time
	// MaxSnooze caps how long a job waits for an endpoint's next retry
	// before looking again (tests: a few milliseconds, so a moved clock is
	// seen at once); 0 is no cap.
	MaxSnooze time.Duration
	Log       *slog.Logger
}

// NewSender returns a sender on the system pool. tlsConfig is nil in
// production (the system's roots); tests pass their own certificate
// authority.
func NewSender(db *pgxpool.Pool, guard Guard, tlsConfig *tls.Config, log *slog.Logger) *Sender {
	if log == nil {
		log = slog.Default()
	}
	transport := &http.Transport{
		Proxy:                 nil, // a proxy would connect past the guard
		DialContext:           guard.Dialer().DialContext,
		TLSClientConfig:       tlsConfig,
		TLSHandshakeTimeout:   connectTimeout,
		ResponseHeaderTimeout: AttemptTimeout,
		MaxIdleConnsPerHost:   2,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &Sender{db: db, Log: log, client: &http.Client{
		Transport: transport,
		Timeout:   AttemptTimeout,
		// Redirects are not followed: a 3xx is a failed delivery.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// Sign is the webhook-signature header value of a message: "v1," and the
// base64 HMAC-SHA256 of "id.timestamp.body" keyed with the secret's bytes
// (the base64 after "whsec_").
func Sign(secret, id string, ts int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, secretPrefix))
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, ts)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

type endpointState struct {
	company      uuid.UUID
	url, secret  string
	enabled      bool
	failingSince *time.Time
}

type head struct {
	id       uuid.UUID
	attempts int
	next     *time.Time
	eventID  uuid.UUID
	body     string
}

// DeliverEndpoint works an endpoint's queue, holding its advisory lock: its
// pending deliveries, oldest event first, each until it succeeds or fails
// for good, so the receiver gets them in order. more says work is left:
// after wait, when the next delivery waits for its retry, or at once (wait
// 0) when the run used its time budget. Nothing is left when the queue is
// empty, the endpoint is disabled or gone, or another worker holds the
// lock: that worker looks again after letting go of it, so a delivery
// committed while it worked is not left behind.
func (s *Sender) DeliverEndpoint(ctx context.Context, endpointID uuid.UUID) (wait time.Duration, more bool, err error) {
	conn, err := s.db.Acquire(ctx)
	if err != nil {
		return 0, false, fmt.Errorf("webhook lock: %w", err)
	}
	defer conn.Release()
	for {
		var locked bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock(hashtextextended('webhook_endpoint:' || $1::text, 0))`,
			endpointID).Scan(&locked); err != nil {
			return 0, false, fmt.Errorf("webhook lock: %w", err)
		}
		if !locked {
			return 0, false, nil
		}
		wait, more, err = s.work(ctx, endpointID)
		if _, uerr := conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended('webhook_endpoint:' || $1::text, 0))`,
			endpointID); uerr != nil {
			conn.Conn().Close(context.Background()) //nolint:errcheck // a closed session drops its locks
			if err == nil {
				err = fmt.Errorf("webhook unlock: %w", uerr)
			}
		}
		if err != nil || more {
			return wait, more, err
		}
		// A job that found the lock taken meanwhile left its delivery to us.
		var due bool
		if err := s.db.QueryRow(ctx, `SELECT EXISTS (SELECT FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
			WHERE d.endpoint_id = $1 AND d.status = 'pending' AND w.enabled)`, endpointID).Scan(&due); err != nil {
			return 0, false, fmt.Errorf("webhook deliveries of %s: %w", endpointID, err)
		}
		if !due {
			return 0, false, nil
		}
	}
}

// work delivers the endpoint's due deliveries in order (DeliverEndpoint).
func (s *Sender) work(ctx context.Context, endpointID uuid.UUID) (wait time.Duration, more bool, err error) {
	start := time.Now()
	for time.Since(start) < workBudget {
		var ep endpointState
		err := s.db.QueryRow(ctx, `SELECT company_id, url, secret, enabled, failing_since FROM webhook_endpoints WHERE id = $1`,
			endpointID).Scan(&ep.company, &ep.url, &ep.secret, &ep.enabled, &ep.failingSince)
		if postgres.IsNotFound(err) {
			return 0, false, nil // deleted
		}
		if err != nil {
			return 0, false, fmt.Errorf("load webhook endpoint %s: %w", endpointID, err)
		}
		if !ep.enabled {
			return 0, false, nil // what waits is sent once it is enabled again
		}
		var h head
		err = s.db.QueryRow(ctx, `
			SELECT d.id, d.attempts, d.next_attempt_at, e.id, e.body
			FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
			WHERE d.endpoint_id = $1 AND d.status = 'pending'
			ORDER BY e.occurred_at, d.created_at, d.id LIMIT 1`, endpointID).Scan(&h.id, &h.attempts, &h.next, &h.eventID, &h.body)
		if postgres.IsNotFound(err) {
			return 0, false, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("next webhook delivery of %s: %w", endpointID, err)
		}
		now := s.now()
		if h.next != nil && h.next.After(now) {
			wait := h.next.Sub(now)
			if s.MaxSnooze > 0 && wait > s.MaxSnooze {
				wait = s.MaxSnooze
			}
			return wait, true, nil
		}
		res := s.attempt(ctx, ep, h, now)
		if err := s.record(ctx, endpointID, ep, h, res, now); err != nil {
			return 0, false, err
		}
	}
	return 0, true, nil
}

type result struct {
	code     *int
	duration time.Duration
	err      string
}

func (r result) ok() bool { return r.err == "" }

// attempt sends one delivery.
func (s *Sender) attempt(ctx context.Context, ep endpointState, h head, now time.Time) result {
	ts := now.Unix()
	id := h.eventID.String()
	sig, err := Sign(ep.secret, id, ts, []byte(h.body))
	if err != nil {
		return result{err: err.Error()}
	}
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.url, bytes.NewReader([]byte(h.body)))
	if err != nil {
		return result{err: err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Konvoj-Webhooks/1")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	began := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		r := result{duration: time.Since(began), err: err.Error()}
		if errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "Client.Timeout") {
			r.err = "no answer within 10 s"
		}
		return r
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, MaxResponse))
	r := result{duration: time.Since(began), code: &resp.StatusCode}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		r.err = "HTTP " + strconv.Itoa(resp.StatusCode)
		if text := strings.TrimSpace(strings.ToValidUTF8(string(body), "")); text != "" {
			if len(text) > maxErrorText {
				text = text[:maxErrorText]
				for !utf8.ValidString(text) {
					text = text[:len(text)-1]
				}
			}
			r.err += ": " + text
		}
	}
	return r
}

// record writes an attempt's outcome: the delivery, the endpoint's failure
// record and, after five days of failures, the endpoint disabled and the
// admins told, in one transaction.
func (s *Sender) record(ctx context.Context, endpointID uuid.UUID, ep endpointState, h head, r result, now time.Time) error {
	ms := int(r.duration.Milliseconds())
	return postgres.InTx(ctx, s.db, func(tx pgx.Tx) error {
		attempts := h.attempts + 1
		if r.ok() {
			if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = 'delivered', attempts = $2, last_attempt_at = $3,
				last_status_code = $4, last_duration_ms = $5, last_error = NULL, next_attempt_at = NULL, delivered_at = $3
				WHERE id = $1`, h.id, attempts, now, r.code, ms); err != nil {
				return fmt.Errorf("record webhook delivery %s: %w", h.id, err)
			}
			_, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1 AND failing_since IS NOT NULL`, endpointID)
			return err
		}
		status, next := "pending", any(now.Add(Backoff(attempts)))
		if attempts >= MaxAttempts {
			status, next = "failed", nil
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET status = $2, attempts = $3, last_attempt_at = $4,
			last_status_code = $5, last_duration_ms = $6, last_error = $7, next_attempt_at = $8
			WHERE id = $1`, h.id, status, attempts, now, r.code, ms, r.err, next); err != nil {
			return fmt.Errorf("record webhook delivery %s: %w", h.id, err)
		}
		since := now
		if ep.failingSince != nil {
			since = *ep.failingSince
		}
		if now.Sub(since) < DisableAfter {
			_, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1`, endpointID, since)
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing', failing_since = $2,
			updated_at = now() WHERE id = $1`, endpointID, since); err != nil {
			return fmt.Errorf("disable webhook endpoint %s: %w", endpointID, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO notifications (company_id, user_id, kind, webhook_id)
			SELECT company_id, id, 'webhook_disabled', $2 FROM users
			WHERE company_id = $1 AND role = 'admin' AND is_active`, ep.company, endpointID); err != nil {
			return fmt.Errorf("tell the admins about webhook endpoint %s: %w", endpointID, err)
		}
		s.Log.WarnContext(ctx, "webhook endpoint disabled after five days of failed deliveries",
			slog.String("company_id", ep.company.String()), slog.String("webhook_id", endpointID.String()))
		return nil
	})
}

// DueEndpoints are the enabled endpoints with pending deliveries, for the
// scheduler's sweep (after a restart, or a wake-up lost to a job that was
// finishing): due are those whose next delivery may be sent now, waiting
// those whose next delivery waits for its retry.
func (s *Sender) DueEndpoints(ctx context.Context) (due, waiting []uuid.UUID, err error) {
	rows, err := s.db.Query(ctx, `SELECT DISTINCT ON (d.endpoint_id) d.endpoint_id, coalesce(d.next_attempt_at <= $1, true)
		FROM webhook_deliveries d
		JOIN webhook_endpoints w ON w.id = d.endpoint_id AND w.enabled
		JOIN webhook_events e ON e.id = d.event_id
		WHERE d.status = 'pending'
		ORDER BY d.endpoint_id, e.occurred_at, d.created_at, d.id`, s.now())
	if err != nil {
		return nil, nil, fmt.Errorf("due webhook endpoints: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var now bool
		if err := rows.Scan(&id, &now); err != nil {
			return nil, nil, fmt.Errorf("due webhook endpoints: %w", err)
		}
		if now {
			due = append(due, id)
		} else {
			waiting = append(waiting, id)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("due webhook endpoints: %w", err)
	}
	return due, waiting, nil
}
