package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// receiver is a webhook receiver on 127.0.0.1 that verifies each request
// with the Standard Webhooks reference library and the secret the test
// read off the page.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	got    []received
	calls  int
	// hold, when set, leaves the first request unanswered until the
	// sender's connection is gone; held is closed when it arrives, heldID
	// is its webhook-id.
	hold   bool
	held   chan struct{}
	heldID string
}

type received struct{ ID, Type string }

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, held: make(chan struct{})}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.calls++
		if r.hold && r.calls == 1 {
			r.heldID = req.Header.Get("webhook-id")
			r.mu.Unlock()
			close(r.held)
			<-req.Context().Done()
			return
		}
		defer r.mu.Unlock()
		wh, err := standardwebhooks.NewWebhook(r.secret)
		if err == nil {
			err = wh.Verify(body, req.Header)
		}
		if err != nil {
			r.t.Errorf("receiver: the request does not verify with the secret shown: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var msg struct{ Type string }
		_ = json.Unmarshal(body, &msg)
		r.got = append(r.got, received{ID: req.Header.Get("webhook-id"), Type: msg.Type})
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) setSecret(s string) {
	r.mu.Lock()
	r.secret = s
	r.mu.Unlock()
}

// wait returns the verified requests once there are n of them.
func (r *receiver) wait(n int) []received {
	r.t.Helper()
	return r.waitFor(n, 30*time.Second)
}

func (r *receiver) waitFor(n int, limit time.Duration) []received {
	r.t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		r.mu.Lock()
		got := append([]received(nil), r.got...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
	}
	r.t.Fatalf("receiver: fewer than %d verified requests", n)
	return nil
}

// waitDelivered reloads the endpoint's page until its delivery log shows n
// deliveries, all delivered (the worker sends them in the background).
func waitDelivered(t *testing.T, page playwright.Page, n int) {
	t.Helper()
	rows := page.GetByTestId("delivery")
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		total, err := rows.Count()
		must(t, err)
		done, err := page.Locator(`[data-testid=delivery][data-status=delivered]`).Count()
		must(t, err)
		if total == n && done == n {
			return
		}
		_, err = page.Reload()
		must(t, err)
	}
	t.Fatalf("the delivery log does not show %d delivered rows", n)
}

var secretFormat = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{32}$`)

// An admin uses every button of the webhooks page: adds an endpoint that
// points at the test's receiver and reads its secret (shown once), sends a
// test event and sees it in the delivery log while the receiver verifies
// its signature, rotates the secret, sends the event again with
// redeliver (same webhook-id, new signature), edits the endpoint,
// disables and enables it, and deletes it.
func TestWebhooksSettingsPage(t *testing.T) {
	app := newWebhookApp(t)
	company := app.Company(t, "Acme Transport", "en")
	rcv := newReceiver(t)
	page := app.SignIn(t, company, auth.RoleAdmin)

	must(t, navLink(t, page, "Webhooks").Click())
	must(t, waitURL(page, app.URL+"/settings/webhooks"))
	must(t, expect.Locator(page.GetByTestId("no-webhooks")).ToBeVisible())
	app.Screenshots(t, page, "webhooks-empty")
	app.CheckA11y(t, page)

	// Add: the secret is shown on the answer.
	must(t, page.Locator("#webhook-url").Fill(rcv.srv.URL+"/hooks"))
	must(t, page.Locator("#webhook-description").Fill("Payroll"))
	must(t, page.Locator(`input[name=events][value="driver.created"]`).Check())
	must(t, page.GetByTestId("create-webhook").Click())
	// The answer to the POST is the endpoint's page, its edit form posting
	// to the endpoint's address.
	must(t, expect.Locator(page.GetByTestId("secret-panel")).ToBeVisible())
	action, err := page.GetByTestId("webhook-form").GetAttribute("action")
	must(t, err)
	if !regexp.MustCompile(`^/settings/webhooks/[0-9a-f-]{36}$`).MatchString(action) {
		t.Fatalf("the edit form posts to %q", action)
	}
	endpointURL := app.URL + action
	secret := text(t, page, `[data-testid=secret]`)
	if !secretFormat.MatchString(secret) {
		t.Fatalf("secret shown: %q", secret)
	}
	rcv.setSecret(secret)
	must(t, expect.Locator(page.GetByTestId("webhook-state")).ToHaveText("Enabled"))
	app.Screenshots(t, page, "webhook-created")
	app.CheckA11y(t, page)
	// Once: the page opened again has no secret.
	_, err = page.Goto(endpointURL)
	must(t, err)
	must(t, expect.Locator(page.GetByTestId("secret")).ToHaveCount(0))
	if html, _ := page.Content(); strings.Contains(html, secret) {
		t.Fatal("the secret is shown again")
	}

	// A test event: the receiver verifies it, the log shows it delivered.
	must(t, page.GetByTestId("send-test").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("A test event is on its way."))
	first := rcv.wait(1)[0]
	if first.Type != "webhook.test" {
		t.Errorf("the receiver got %+v", first)
	}
	waitDelivered(t, page, 1)
	row := page.GetByTestId("delivery").First()
	must(t, expect.Locator(row.GetByTestId("delivery-event")).ToHaveText("webhook.test"))
	must(t, expect.Locator(row.GetByTestId("delivery-status")).ToContainText("Delivered"))
	must(t, expect.Locator(row.GetByTestId("delivery-code")).ToHaveText("204"))
	must(t, expect.Locator(row.GetByTestId("delivery-duration")).ToHaveText(regexp.MustCompile(`^\d+ ms$`)))
	must(t, expect.Locator(row.GetByTestId("delivery-time")).Not().ToBeEmpty())
	must(t, expect.Locator(row.GetByTestId("delivery-error")).ToBeEmpty())
	app.Screenshots(t, page, "webhook-log")
	app.CheckA11y(t, page)

	// Rotate: a new secret, shown once; later requests are signed with it.
	must(t, page.GetByTestId("rotate-secret").Click())
	rotated := text(t, page, `[data-testid=secret]`)
	if !secretFormat.MatchString(rotated) || rotated == secret {
		t.Fatalf("rotated secret: %q (was %q)", rotated, secret)
	}
	rcv.setSecret(rotated)

	// Redeliver: the same event (same webhook-id) again, as a new row.
	must(t, page.GetByTestId("redeliver").First().Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("The event is sent again"))
	again := rcv.wait(2)[1]
	if again.ID != first.ID || again.Type != "webhook.test" {
		t.Errorf("redelivered %+v, first %+v", again, first)
	}
	waitDelivered(t, page, 2)

	// Edit: every event, a new description.
	must(t, page.Locator("#webhook-description").Fill("Payroll and TMS"))
	must(t, page.Locator("#webhook-event-all").Check())
	must(t, page.GetByTestId("save-webhook").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToHaveText("Endpoint saved."))
	must(t, expect.Locator(page.Locator("#webhook-description")).ToHaveValue("Payroll and TMS"))
	must(t, expect.Locator(page.Locator("#webhook-event-all")).ToBeChecked())

	// Disable, then enable.
	must(t, page.GetByTestId("disable-webhook").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("Endpoint disabled."))
	must(t, expect.Locator(page.GetByTestId("webhook-state")).ToHaveText("Disabled"))
	must(t, expect.Locator(page.GetByTestId("send-test")).ToHaveCount(0))
	must(t, page.GetByTestId("enable-webhook").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("Endpoint enabled."))
	must(t, expect.Locator(page.GetByTestId("webhook-state")).ToHaveText("Enabled"))

	// The list shows it.
	must(t, page.GetByRole(*playwright.AriaRoleLink, playwright.PageGetByRoleOptions{Name: "Webhooks", Exact: playwright.Bool(true)}).First().Click())
	must(t, waitURL(page, app.URL+"/settings/webhooks"))
	must(t, expect.Locator(page.GetByTestId("webhook")).ToHaveCount(1))
	must(t, expect.Locator(page.GetByTestId("webhook")).ToContainText("Payroll and TMS"))
	app.Screenshots(t, page, "webhooks-list")
	app.CheckA11y(t, page)

	// Delete, after a confirmation: the list is empty again and the
	// endpoint's page is gone.
	must(t, page.GetByTestId("webhook-link").Click())
	must(t, waitURL(page, endpointURL))
	must(t, page.GetByTestId("delete-webhook").Click())
	must(t, expect.Locator(page.GetByTestId("confirm-delete")).ToBeVisible())
	must(t, expect.Locator(page.GetByTestId("delete-webhook-url")).ToHaveText(rcv.srv.URL+"/hooks"))
	app.Screenshots(t, page, "webhook-delete")
	app.CheckA11y(t, page)
	must(t, page.GetByTestId("confirm-delete-button").Click())
	must(t, waitURL(page, app.URL+"/settings/webhooks"))
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToContainText("was deleted."))
	must(t, expect.Locator(page.GetByTestId("webhook")).ToHaveCount(0))
	must(t, expect.Locator(page.GetByTestId("no-webhooks")).ToBeVisible())
	res, err := page.Goto(endpointURL)
	must(t, err)
	if res.Status() != http.StatusNotFound {
		t.Errorf("the deleted endpoint's page: %d", res.Status())
	}
}

// A server killed (SIGKILL) while it sends a committed event, before it
// could record the attempt, delivers the event after it is started again:
// the receiver gets it, signed, with the same webhook-id, and the log
// shows it delivered.
func TestWebhookDeliveredAfterTheServerIsKilled(t *testing.T) {
	app := newWebhookApp(t)
	company := app.Company(t, "Acme Transport", "en")
	rcv := newReceiver(t)
	rcv.hold = true
	secret := webhooks.NewSecret()
	rcv.setSecret(secret)
	ctx := context.Background()
	var hook string
	if err := app.DB.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, $2, '{*}', $3) RETURNING id`, company, rcv.srv.URL+"/hooks", secret).Scan(&hook); err != nil {
		t.Fatal(err)
	}
	page := app.SignIn(t, company, auth.RoleAdmin)
	_, err := page.Goto(app.URL + "/settings/webhooks/" + hook)
	must(t, err)
	// The change commits (the event and its delivery in one transaction)
	// and the server starts sending it; it dies with the request open.
	must(t, page.GetByTestId("send-test").Click())
	must(t, expect.Locator(page.GetByTestId("flash-success")).ToBeVisible())
	select {
	case <-rcv.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the event was not sent")
	}
	app.Kill(t)
	var status string
	var attempts int
	if err := app.DB.QueryRow(ctx, `SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1`, hook).Scan(&status, &attempts); err != nil {
		t.Fatal(err)
	}
	if status != "pending" || attempts != 0 {
		t.Fatalf("after the kill the delivery is %s after %d attempts, want pending, none recorded", status, attempts)
	}

	app.Restart(t)
	got := rcv.waitFor(1, 90*time.Second)
	if got[0].Type != "webhook.test" || got[0].ID != rcv.heldID {
		t.Errorf("after the restart the receiver got %+v; the event sent before the kill was %s", got[0], rcv.heldID)
	}
	_, err = page.Goto(app.URL + "/settings/webhooks/" + hook)
	must(t, err)
	waitDelivered(t, page, 1)
}
