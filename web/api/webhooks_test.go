package api_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web/webtest"
)

// hookReceiver is a webhook receiver over TLS on 127.0.0.1 that checks
// every delivery's signature with the Standard Webhooks reference library,
// not Konvoj's own code.
type hookReceiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	got    []hookDelivery
	// answer gives the status of the n-th request (0-based); nil is 204.
	answer func(n int) int
	// strictTime checks webhook-timestamp against the real clock (off when
	// the test moves the sender's clock).
	strictTime bool
	calls      atomic.Int32
}

type hookDelivery struct {
	ID, Type  string
	Data      map[string]any
	Timestamp time.Time
	Status    int
	Body      []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{t: t, strictTime: true}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	n := int(r.calls.Add(1)) - 1
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	secret := r.secret
	r.mu.Unlock()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		r.t.Errorf("receiver: secret %q: %v", secret, err)
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if r.strictTime {
		err = wh.Verify(body, req.Header)
	} else {
		err = wh.VerifyIgnoringTimestamp(body, req.Header)
	}
	if err != nil {
		r.t.Errorf("receiver: the signature does not verify: %v (headers %v)", err, req.Header)
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var msg struct {
		Type      string         `json:"type"`
		Timestamp time.Time      `json:"timestamp"`
		Data      map[string]any `json:"data"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.Type == "" || msg.Data == nil || msg.Timestamp.IsZero() {
		r.t.Errorf("receiver: body %s: %v", body, err)
	}
	status := http.StatusNoContent
	if r.answer != nil {
		status = r.answer(n)
	}
	r.mu.Lock()
	r.got = append(r.got, hookDelivery{ID: req.Header.Get("webhook-id"), Type: msg.Type, Data: msg.Data, Timestamp: msg.Timestamp, Status: status, Body: body})
	r.mu.Unlock()
	w.WriteHeader(status)
}

func (r *hookReceiver) setSecret(s string) {
	r.mu.Lock()
	r.secret = s
	r.mu.Unlock()
}

// received are the deliveries answered with a 2xx.
func (r *hookReceiver) received() []hookDelivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []hookDelivery
	for _, d := range r.got {
		if d.Status < 300 {
			out = append(out, d)
		}
	}
	return out
}

// waitFor waits until cond holds for the received deliveries.
func (r *hookReceiver) waitFor(what string, cond func([]hookDelivery) bool) []hookDelivery {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if got := r.received(); cond(got) {
			return got
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.t.Fatalf("receiver: %s did not happen; got %+v", what, r.received())
	return nil
}

func (r *hookReceiver) tlsConfig() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(r.srv.Certificate())
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// fakeClock is the sender's clock: the real one moved forward by the test.
type fakeClock struct{ offset atomic.Int64 }

func (c *fakeClock) now() time.Time            { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *fakeClock) advance(d time.Duration)   { c.offset.Add(int64(d)) }
func (c *fakeClock) since(t time.Time) float64 { return c.now().Sub(t).Hours() }

// webhookEnv is a server that lets webhooks reach 127.0.0.1 (the test's
// receiver), without its own job queue: the test starts deliveries itself.
func webhookEnv(t *testing.T) *webtest.Env {
	return webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.WebhookAllowPrivate = true }))
}

// startDeliveries starts a River client with the webhook workers on the
// server's database, its sender on the given clock, trusting the receiver.
func startDeliveries(t *testing.T, env *webtest.Env, r *hookReceiver, clock *fakeClock, guard webhooks.Guard) *river.Client[pgx.Tx] {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sender := webhooks.NewSender(env.DB, guard, r.tlsConfig(), log)
	sender.MaxSnooze = 20 * time.Millisecond
	if clock != nil {
		sender.Now = clock.now
	}
	client, err := jobs.NewClient(env.DB, rating.NewService(env.DB), log, jobs.Options{PollInterval: 20 * time.Millisecond, Webhooks: sender})
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = client.Stop(ctx)
	})
	return client
}

// createHook registers the receiver as an endpoint and gives it the secret.
func createHook(t *testing.T, admin *webtest.Caller, r *hookReceiver, events ...string) string {
	t.Helper()
	var e struct {
		ID     string `json:"id"`
		Secret string `json:"secret"`
	}
	admin.Post("/api/v0/webhooks", map[string]any{"url": r.srv.URL + "/hooks", "events": events, "description": "ERP"}).
		Expect(http.StatusCreated).Decode(&e)
	r.setSecret(e.Secret)
	return e.ID
}

type deliveryRow struct {
	ID            string     `json:"id"`
	Event         string     `json:"event"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	StatusCode    *int       `json:"status_code"`
	Error         *string    `json:"error"`
	NextAttemptAt *time.Time `json:"next_attempt_at"`
}

func deliveries(t *testing.T, admin *webtest.Caller, hook string) []deliveryRow {
	t.Helper()
	var page struct{ Data []deliveryRow }
	admin.Get("/api/v0/webhooks/" + hook + "/deliveries").Expect(http.StatusOK).Decode(&page)
	return page.Data
}

func TestWebhookEndpointsAPI(t *testing.T) {
	env := webhookEnv(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)

	created := admin.Post("/api/v0/webhooks", map[string]any{"url": "https://127.0.0.1:9/hooks",
		"events": []string{"driver.updated", "driver.created", "driver.created"}, "description": "Payroll"}).Expect(http.StatusCreated).JSON()
	id, secret := created["id"].(string), created["secret"].(string)
	if len(secret) != len("whsec_")+32 || secret[:6] != "whsec_" {
		t.Errorf("secret %q is not whsec_ + base64 of 24 bytes", secret)
	}
	if got := created["events"].([]any); len(got) != 2 || got[0] != "driver.created" || created["enabled"] != true {
		t.Errorf("created: %v", created)
	}
	// The secret is shown once.
	got := admin.Get("/api/v0/webhooks/" + id).Expect(http.StatusOK).JSON()
	if _, ok := got["secret"]; ok {
		t.Error("GET shows the secret")
	}
	list := admin.Get("/api/v0/webhooks").Expect(http.StatusOK).JSON()["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["secret"] != nil {
		t.Errorf("list: %v", list)
	}
	// PUT changes only what it sends.
	upd := admin.Put("/api/v0/webhooks/"+id, map[string]any{"events": []string{"*"}, "enabled": false}).Expect(http.StatusOK).JSON()
	if upd["description"] != "Payroll" || upd["enabled"] != false || upd["events"].([]any)[0] != "*" {
		t.Errorf("updated: %v", upd)
	}
	// A test event needs an enabled endpoint.
	admin.Post("/api/v0/webhooks/"+id+"/test", nil).ExpectError(http.StatusConflict, "Conflict")
	// Rotate: a new secret, shown once.
	rot := admin.Post("/api/v0/webhooks/"+id+"/rotate-secret", nil).Expect(http.StatusOK).JSON()
	if s, _ := rot["secret"].(string); s == "" || s == secret {
		t.Errorf("rotated secret %q", s)
	}
	// Bad input.
	errs := admin.Post("/api/v0/webhooks", map[string]any{"url": "ftp://x", "events": []string{"driver.exploded"}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")["errors"].(map[string]any)
	if errs["url"] == nil || errs["events"] == nil {
		t.Errorf("errors: %v", errs)
	}
	admin.Post("/api/v0/webhooks", map[string]any{"events": []string{"*"}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Post("/api/v0/webhooks", map[string]any{"url": "https://127.0.0.1/x", "events": []string{}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Post("/api/v0/webhooks", map[string]any{"url": "https://user:pw@127.0.0.1/x", "events": []string{"*"}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// Other roles: refused; another company's endpoint: AccessDenied.
	env.As(company, auth.RoleHRManager).Get("/api/v0/webhooks").ExpectError(http.StatusForbidden, "Forbidden")
	other := env.As(env.Company("Other", "free"), auth.RoleAdmin)
	other.Get("/api/v0/webhooks/"+id).ExpectError(http.StatusForbidden, "AccessDenied")
	admin.Get("/api/v0/webhooks/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")
	admin.Get("/api/v0/webhooks/" + id + "/deliveries/" + uuid.NewString() + "/redeliver").Expect(http.StatusMethodNotAllowed)
	admin.Post("/api/v0/webhooks/"+id+"/deliveries/"+uuid.NewString()+"/redeliver", nil).ExpectError(http.StatusNotFound, "NotFound")
	// Audit.
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM audit_logs WHERE entity_type = 'webhook_endpoint' AND entity_id = $1`, id).Scan(&n); err != nil || n != 3 {
		t.Errorf("audit rows: %d, %v", n, err)
	}
	admin.Delete("/api/v0/webhooks/" + id).Expect(http.StatusNoContent)
	admin.Get("/api/v0/webhooks/"+id).ExpectError(http.StatusNotFound, "NotFound")
}

// A test event reaches the receiver signed, and the log shows it; a
// redelivery sends the same event (same webhook-id) again.
func TestWebhookTestEventAndRedeliver(t *testing.T) {
	env := webhookEnv(t)
	admin := env.As(env.Company("Hooks", "enterprise"), auth.RoleAdmin)
	r := newHookReceiver(t)
	hook := createHook(t, admin, r, "driver.created")
	startDeliveries(t, env, r, nil, webhooks.Guard{AllowPrivate: true})

	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).Expect(http.StatusAccepted)
	got := r.waitFor("the test event", func(d []hookDelivery) bool { return len(d) == 1 })
	if got[0].Type != "webhook.test" || got[0].Data["webhook_id"] != hook {
		t.Errorf("test event: %+v", got[0])
	}
	checkWebhookBody(t, got[0].Type, got[0].Body)
	var log []deliveryRow
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if log = deliveries(t, admin, hook); len(log) == 1 && log[0].Status == "delivered" {
			break
		}
	}
	if len(log) != 1 || log[0].Status != "delivered" || log[0].StatusCode == nil || *log[0].StatusCode != 204 || log[0].Attempts != 1 {
		t.Fatalf("delivery log: %+v", log)
	}
	admin.Post("/api/v0/webhooks/"+hook+"/deliveries/"+log[0].ID+"/redeliver", nil).Expect(http.StatusAccepted)
	got = r.waitFor("the redelivery", func(d []hookDelivery) bool { return len(d) == 2 })
	if got[1].ID != got[0].ID || got[1].Type != "webhook.test" {
		t.Errorf("redelivery: %+v", got)
	}
}

// A receiver that answers 500 three times gets the event exactly once
// more after it recovers; the retries follow the backoff on the sender's
// clock, which the test moves.
func TestWebhookRetriesUntilTheReceiverRecovers(t *testing.T) {
	env := webhookEnv(t)
	admin := env.As(env.Company("Hooks", "enterprise"), auth.RoleAdmin)
	r := newHookReceiver(t)
	r.strictTime = false
	r.answer = func(n int) int {
		if n < 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	}
	hook := createHook(t, admin, r, "*")
	clock := &fakeClock{}
	startDeliveries(t, env, r, clock, webhooks.Guard{AllowPrivate: true})
	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).Expect(http.StatusAccepted)

	for attempt := 1; attempt <= 3; attempt++ {
		waitCalls(t, r, attempt)
		var log []deliveryRow
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if log = deliveries(t, admin, hook); len(log) == 1 && log[0].Attempts == attempt {
				break
			}
		}
		if log[0].Status != "pending" || log[0].NextAttemptAt == nil || *log[0].StatusCode != 500 || log[0].Error == nil {
			t.Fatalf("after attempt %d: %+v", attempt, log[0])
		}
		wait := log[0].NextAttemptAt.Sub(clock.now())
		if want := webhooks.Backoff(attempt); wait > want || wait < want-5*time.Second {
			t.Errorf("after attempt %d the next is in %v, want %v", attempt, wait, want)
		}
		// Nothing is sent before the retry is due.
		time.Sleep(100 * time.Millisecond)
		if c := int(r.calls.Load()); c != attempt {
			t.Fatalf("attempt %d: %d calls before the retry was due", attempt, c)
		}
		clock.advance(webhooks.Backoff(attempt))
	}
	got := r.waitFor("the delivery after recovery", func(d []hookDelivery) bool { return len(d) == 1 })
	time.Sleep(200 * time.Millisecond)
	if c := r.calls.Load(); c != 4 || len(r.received()) != 1 || got[0].Type != "webhook.test" {
		t.Errorf("calls %d, received %+v", c, r.received())
	}
	log := deliveries(t, admin, hook)
	if log[0].Status != "delivered" || log[0].Attempts != 4 || log[0].NextAttemptAt != nil {
		t.Errorf("log after recovery: %+v", log[0])
	}
}

func waitCalls(t *testing.T, r *hookReceiver, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if int(r.calls.Load()) >= n {
			return
		}
	}
	t.Fatalf("receiver: %d calls, want %d", r.calls.Load(), n)
}

// An event committed while no worker runs (the server died after the
// commit) is delivered when a job client starts; a rolled-back change
// emits nothing.
func TestWebhookOutboxSurvivesRestartAndRollback(t *testing.T) {
	env := webhookEnv(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	r := newHookReceiver(t)
	createHook(t, admin, r, "driver.created", "driver.deleted")
	ctx := context.Background()

	// Rolled back: nothing written, nothing sent.
	tx, err := env.DB.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := webhooks.Emit(ctx, tx, company, webhooks.DriverDeleted, map[string]any{"id": "rolled-back"}); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)
	// Committed, with no worker running.
	if err := pgxTx(ctx, env, func(tx pgx.Tx) error {
		return webhooks.Emit(ctx, tx, company, webhooks.DriverCreated, map[string]any{"id": "committed"})
	}); err != nil {
		t.Fatal(err)
	}
	var events int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE company_id = $1`, company).Scan(&events); err != nil || events != 1 {
		t.Fatalf("events written: %d, %v", events, err)
	}
	time.Sleep(100 * time.Millisecond)
	if r.calls.Load() != 0 {
		t.Fatal("delivered without a worker")
	}
	// The "restarted" server's job client delivers it.
	startDeliveries(t, env, r, nil, webhooks.Guard{AllowPrivate: true})
	got := r.waitFor("the committed event", func(d []hookDelivery) bool { return len(d) == 1 })
	time.Sleep(200 * time.Millisecond)
	if got[0].Type != "driver.created" || got[0].Data["id"] != "committed" || len(r.received()) != 1 {
		t.Errorf("received %+v", r.received())
	}
}

// A worker killed while it sent a delivery leaves its job "running" in
// the queue until River rescues it, an hour later; when that was the
// endpoint's wake-up job it holds the wake-up's unique slot meanwhile. The
// sweep (every minute, and at start) still has the waiting delivery sent
// at once.
func TestWebhookSweepSendsPastAStuckJob(t *testing.T) {
	env := webhookEnv(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	r := newHookReceiver(t)
	hook := uuid.MustParse(createHook(t, admin, r, "*"))
	ctx := context.Background()
	if err := pgxTx(ctx, env, func(tx pgx.Tx) error {
		return webhooks.Emit(ctx, tx, company, webhooks.DriverCreated, map[string]any{"id": "after-the-crash"})
	}); err != nil {
		t.Fatal(err)
	}
	// The killed worker's wake-up job, still "running"; the job Emit queued
	// was the one it had finished before.
	inserter, err := river.NewClient(riverpgxv5.New(env.DB), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `DELETE FROM river_job WHERE kind = 'deliver_webhooks'`); err != nil {
		t.Fatal(err)
	}
	if _, err := inserter.Insert(ctx, webhooks.DeliverArgs{EndpointID: hook, Wake: true}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `UPDATE river_job SET state = 'running', attempt = 1, attempted_at = now()
		WHERE kind = 'deliver_webhooks'`); err != nil {
		t.Fatal(err)
	}
	client := startDeliveries(t, env, r, nil, webhooks.Guard{AllowPrivate: true})
	if _, err := client.Insert(ctx, jobs.SweepWebhooksArgs{}, nil); err != nil {
		t.Fatal(err)
	}
	got := r.waitFor("the waiting delivery", func(d []hookDelivery) bool { return len(d) == 1 })
	if got[0].Type != webhooks.DriverCreated || got[0].Data["id"] != "after-the-crash" {
		t.Errorf("received %+v", got[0])
	}
}

func pgxTx(ctx context.Context, env *webtest.Env, fn func(pgx.Tx) error) error {
	tx, err := env.DB.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit a no-op
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Five days of failures disable the endpoint and tell its admins in-app.
func TestWebhookDisabledAfterFiveDaysOfFailures(t *testing.T) {
	env := webhookEnv(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	admin.Get("/api/v0/notifications").Expect(http.StatusOK) // the admin's user row
	hr := env.As(company, auth.RoleHRManager)
	hr.Get("/api/v0/notifications").Expect(http.StatusOK)
	r := newHookReceiver(t)
	r.strictTime = false
	r.answer = func(int) int { return http.StatusServiceUnavailable }
	hook := createHook(t, admin, r, "*")
	clock := &fakeClock{}
	startDeliveries(t, env, r, clock, webhooks.Guard{AllowPrivate: true})

	// Day 0: the first event fails all 8 attempts over about a day.
	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).Expect(http.StatusAccepted)
	start := clock.now()
	for attempt := 1; attempt <= webhooks.MaxAttempts; attempt++ {
		waitCalls(t, r, attempt)
		clock.advance(webhooks.Backoff(attempt))
	}
	waitFailed(t, admin, hook, 1)
	if e := admin.Get("/api/v0/webhooks/" + hook).Expect(http.StatusOK).JSON(); e["enabled"] != true {
		t.Fatalf("disabled after %.0f h: %v", clock.since(start), e)
	}
	// Day 5 and a bit: the next event's first failure disables it.
	clock.advance(4*24*time.Hour + time.Hour)
	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).Expect(http.StatusAccepted)
	waitCalls(t, r, webhooks.MaxAttempts+1)
	var e map[string]any
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if e = admin.Get("/api/v0/webhooks/" + hook).Expect(http.StatusOK).JSON(); e["enabled"] == false {
			break
		}
	}
	if e["enabled"] != false || e["disabled_reason"] != "failing" {
		t.Fatalf("after %.0f h of failures: %v", clock.since(start), e)
	}
	n := admin.Get("/api/v0/notifications").Expect(http.StatusOK).JSON()["data"].([]any)
	if len(n) != 1 || n[0].(map[string]any)["kind"] != "webhook_disabled" || n[0].(map[string]any)["driver_id"] != nil {
		t.Errorf("admin notifications: %v", n)
	}
	if n := hr.Get("/api/v0/notifications").Expect(http.StatusOK).JSON()["data"].([]any); len(n) != 0 {
		t.Errorf("HR was told: %v", n)
	}
	// Disabled: nothing more is sent; enabling again clears the record.
	calls := r.calls.Load()
	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).ExpectError(http.StatusConflict, "Conflict")
	r.answer = nil
	admin.Put("/api/v0/webhooks/"+hook, map[string]any{"enabled": true}).Expect(http.StatusOK)
	clock.advance(webhooks.Backoff(1))
	r.waitFor("the waiting event after enabling", func(d []hookDelivery) bool { return len(d) == 1 })
	if r.calls.Load() != calls+1 {
		t.Errorf("calls %d, want %d", r.calls.Load(), calls+1)
	}
}

func waitFailed(t *testing.T, admin *webtest.Caller, hook string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		failed := 0
		for _, d := range deliveries(t, admin, hook) {
			if d.Status == "failed" {
				failed++
			}
		}
		if failed >= n {
			return
		}
	}
	t.Fatalf("no %d failed deliveries: %+v", n, deliveries(t, admin, hook))
}

// With WEBHOOK_ALLOW_PRIVATE off, the API refuses inner addresses, and a
// delivery to an endpoint that points at one anyway (its name resolved
// elsewhere when it was saved: DNS rebinding) is refused at connect time.
func TestWebhookGuardWithoutPrivateAddresses(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	for _, u := range []string{"https://127.0.0.1/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest/meta-data",
		"https://[::1]/hook", "https://localhost/hook", "http://hooks.example.com/hook"} {
		res := admin.Post("/api/v0/webhooks", map[string]any{"url": u, "events": []string{"*"}})
		if errs := res.ExpectError(http.StatusUnprocessableEntity, "ValidationError")["errors"].(map[string]any); errs["url"] == nil {
			t.Errorf("%s: %v", u, errs)
		}
	}
	r := newHookReceiver(t)
	var hook string
	if err := env.DB.QueryRow(context.Background(), `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, $2, '{*}', $3) RETURNING id`, company, r.srv.URL+"/hooks", webhooks.NewSecret()).Scan(&hook); err != nil {
		t.Fatal(err)
	}
	startDeliveries(t, env, r, nil, webhooks.Guard{})
	admin.Post("/api/v0/webhooks/"+hook+"/test", nil).Expect(http.StatusAccepted)
	var log []deliveryRow
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if log = deliveries(t, admin, hook); len(log) == 1 && log[0].Attempts == 1 {
			break
		}
	}
	if len(log) != 1 || log[0].Attempts != 1 || log[0].Status != "pending" || log[0].StatusCode != nil || log[0].Error == nil ||
		!strings.Contains(*log[0].Error, "loopback") {
		t.Fatalf("delivery log: %+v", log)
	}
	if r.calls.Load() != 0 {
		t.Error("the receiver on 127.0.0.1 was reached")
	}
}

// The IPv6 forms of inner and special-purpose addresses and ports outside
// 1-65535 are refused at create (422 on the url, with the reason), and
// nothing is stored.
func TestWebhookCreateRefusesSpecialAddressesAndBadPorts(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	for u, want := range map[string]string{
		"https://[::127.0.0.1]/":           "The URL points to a local, private or reserved network address, which webhooks may not reach.",
		"https://[2002:7f00:1::]/":         "The URL points to a local, private or reserved network address, which webhooks may not reach.",
		"https://[2001:db8::1]/":           "The URL points to a local, private or reserved network address, which webhooks may not reach.",
		"https://93.184.215.14:0/hook":     "The URL's port must be a number from 1 to 65535.",
		"https://93.184.215.14:99999/hook": "The URL's port must be a number from 1 to 65535.",
	} {
		res := admin.Post("/api/v0/webhooks", map[string]any{"url": u, "events": []string{"*"}})
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: %d %s", u, res.Status, res.Body)
			continue
		}
		errs, _ := res.ExpectError(http.StatusUnprocessableEntity, "ValidationError")["errors"].(map[string]any)
		if got, _ := errs["url"].([]any); len(got) != 1 || got[0] != want {
			t.Errorf("%s: errors %v, want url %q", u, errs, want)
		}
	}
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoints WHERE company_id = $1`, company).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d endpoints stored (%v)", n, err)
	}
}

// A company has at most 20 endpoints: the 21st create is 409 Conflict, also
// when the creates race each other; deleting one makes room again.
func TestWebhookEndpointsCapped(t *testing.T) {
	t.Parallel()
	env := webhookEnv(t)
	count := func(company uuid.UUID) int {
		var n int
		if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM webhook_endpoints WHERE company_id = $1`, company).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	body := func(i int) map[string]any {
		return map[string]any{"url": fmt.Sprintf("https://127.0.0.1:8443/hook-%d", i), "events": []string{"*"}}
	}

	company := env.Company("Hooks", "enterprise")
	admin := env.As(company, auth.RoleAdmin)
	var first string
	for i := range 20 {
		var e struct{ ID string }
		admin.Post("/api/v0/webhooks", body(i)).Expect(http.StatusCreated).Decode(&e)
		if i == 0 {
			first = e.ID
		}
	}
	if res := admin.Post("/api/v0/webhooks", body(20)); res.Status != http.StatusConflict {
		t.Errorf("the 21st endpoint: %d %s", res.Status, res.Body)
	} else if msg := res.ExpectError(http.StatusConflict, "Conflict")["message"]; msg != "A company can have at most 20 webhook endpoints. Delete one it no longer needs first." {
		t.Errorf("message %q", msg)
	} else {
		if n := count(company); n != 20 {
			t.Errorf("%d endpoints, want 20", n)
		}
		admin.Delete("/api/v0/webhooks/" + first).Expect(http.StatusNoContent)
		admin.Post("/api/v0/webhooks", body(21)).Expect(http.StatusCreated)
	}

	// Racing creates of another company: never more than 20.
	racer := env.Company("Racer", "enterprise")
	other := env.As(racer, auth.RoleAdmin)
	const n = 30
	statuses := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = other.Post("/api/v0/webhooks", body(i)).Status
		}()
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Fatalf("status %d in %v", s, statuses)
		}
	}
	if got := count(racer); created != 20 || got != 20 {
		t.Errorf("%d concurrent creates succeeded, %d endpoints stored, want 20: %v", created, got, statuses)
	}
}
