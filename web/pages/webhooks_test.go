package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/web/webtest"
)

var (
	secretShown = regexp.MustCompile(`data-testid="secret">(whsec_[A-Za-z0-9+/=]+)<`)
)

// TestWebhooksSettingsPage: an admin registers an endpoint (the secret is
// shown in that answer only; the same form sent again adds nothing),
// refused input comes back in the form with the service's messages in the
// reader's language, rotation shows a new secret once, and other roles get
// the refusal every admin page gives.
func TestWebhooksSettingsPage(t *testing.T) {
	env := devEnv(t, webtest.WithConfig(func(c *config.Config) { c.WebhookAllowPrivate = true }))
	company := env.Company("Acme", "enterprise")
	admin := signIn(t, env, company, auth.RoleAdmin, "ada@acme.test", "en")
	ctx := context.Background()
	count := func() int {
		var n int
		if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE company_id = $1`, company).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	list := admin.get("/settings/webhooks").expect(t, http.StatusOK).
		contains(t, "<title>Webhooks", `data-testid="no-webhooks"`, `href="/settings/webhooks"`, `value="driver.created"`, `value="import.completed"`)
	token := formToken.FindStringSubmatch(list.Body)
	if token == nil {
		t.Fatal("the create form has no one-time token")
	}

	// Refused: not https-or-allowed, no event. Nothing is stored and the
	// values come back.
	admin.post("/settings/webhooks", url.Values{"url": {"ftp://erp.example.test/x"}, "description": {"ERP"}, "form_token": {token[1]}}).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="form-errors"`, "The URL must be an absolute https:// address.", "Choose at least one event.",
			`value="ftp://erp.example.test/x"`, `value="ERP"`)
	if n := count(); n != 0 {
		t.Fatalf("%d endpoints after a refused form", n)
	}

	// Created: the answer shows the secret, once.
	created := admin.post("/settings/webhooks", url.Values{"url": {"http://127.0.0.1:9/hooks"}, "description": {"ERP"},
		"events": {"driver.created", "penalty.created"}, "form_token": {token[1]}}).expect(t, http.StatusCreated)
	secret := secretShown.FindStringSubmatch(created.Body)
	if secret == nil || len(secret[1]) != len("whsec_")+32 {
		t.Fatalf("no secret shown after create:\n%s", truncate(created.Body))
	}
	var id, stored string
	if err := env.DB.QueryRow(ctx, `SELECT id, secret FROM webhook_endpoints WHERE company_id = $1`, company).Scan(&id, &stored); err != nil {
		t.Fatal(err)
	}
	if stored != secret[1] {
		t.Error("the secret shown is not the endpoint's")
	}
	// The same form sent again adds nothing and opens the endpoint, without the secret.
	again := admin.post("/settings/webhooks", url.Values{"url": {"http://127.0.0.1:9/hooks"}, "events": {"*"}, "form_token": {token[1]}}).
		expect(t, http.StatusSeeOther)
	if loc := again.Header.Get("Location"); loc != "/settings/webhooks/"+id {
		t.Errorf("a resent form goes to %q", loc)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d endpoints after the form was sent twice", n)
	}
	page := admin.get("/settings/webhooks/"+id).expect(t, http.StatusOK).
		contains(t, "This form was already sent", `value="driver.created" checked`, `value="penalty.created" checked`, `data-testid="no-deliveries"`).
		lacks(t, secret[1], `data-testid="secret"`)
	if strings.Contains(page.Body, `value="driver.updated" checked`) {
		t.Error("an event not chosen is ticked")
	}
	admin.get("/settings/webhooks").expect(t, http.StatusOK).contains(t, `href="/settings/webhooks/`+id+`"`, "driver.created, penalty.created").
		lacks(t, secret[1])

	// Edit refused, in Czech: the service's message in the reader's language.
	cs := signIn(t, env, company, auth.RoleAdmin, "adam@acme.test", "cs")
	cs.post("/settings/webhooks/"+id, url.Values{"url": {"https://user:pw@127.0.0.1/x"}, "description": {"ERP"}}).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, "URL nesmí obsahovat uživatelské jméno ani heslo.", "Vyberte alespoň jednu událost.")
	// Edit saved.
	admin.post("/settings/webhooks/"+id, url.Values{"url": {"http://127.0.0.1:9/v2"}, "description": {"Payroll"}, "events": {"*"}}).
		expect(t, http.StatusSeeOther)
	admin.get("/settings/webhooks/"+id).expect(t, http.StatusOK).
		contains(t, "Endpoint saved.", `value="http://127.0.0.1:9/v2"`, `value="Payroll"`, `value="*" checked`)

	// Rotation shows a new secret, once.
	rotated := secretShown.FindStringSubmatch(admin.post("/settings/webhooks/"+id+"/rotate-secret", url.Values{}).expect(t, http.StatusOK).Body)
	if rotated == nil || rotated[1] == secret[1] {
		t.Fatalf("rotated secret %v", rotated)
	}
	admin.get("/settings/webhooks/"+id).expect(t, http.StatusOK).lacks(t, rotated[1])

	// Disabled: the test button goes, Enable comes.
	admin.post("/settings/webhooks/"+id+"/enabled", url.Values{"enabled": {"false"}}).expect(t, http.StatusSeeOther)
	admin.get("/settings/webhooks/"+id).expect(t, http.StatusOK).
		contains(t, "Endpoint disabled.", `data-testid="enable-webhook"`).lacks(t, `data-testid="send-test"`)

	// Other roles: the same refusal as another admin page's.
	dispatcher := signIn(t, env, company, auth.RoleDispatcher, "dita@acme.test", "en")
	want := dispatcher.get("/ratings/config").expect(t, http.StatusForbidden)
	for _, path := range []string{"/settings/webhooks", "/settings/webhooks/" + id} {
		got := dispatcher.get(path).expect(t, http.StatusForbidden)
		if mainOf(got.Body) != mainOf(want.Body) {
			t.Errorf("%s refuses a dispatcher with\n%s\nother admin pages with\n%s", path, mainOf(got.Body), mainOf(want.Body))
		}
	}
	signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en").get("/settings/webhooks").expect(t, http.StatusForbidden)
	if nav := admin.get("/").Body; !strings.Contains(nav, `href="/settings/webhooks"`) {
		t.Error("the admin's navigation has no Webhooks entry")
	}
	if nav := dispatcher.get("/").Body; strings.Contains(nav, `href="/settings/webhooks"`) {
		t.Error("the dispatcher's navigation shows Webhooks")
	}
}

// TestDeleteWebhookEndpoint: an endpoint's page offers Delete, which asks
// first; the confirmed POST deletes the endpoint through the service (its
// audit row written), returns to the list with a message, and the
// endpoint's page is gone. Without the form's CSRF token, or by another
// role, nothing is deleted.
func TestDeleteWebhookEndpoint(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "enterprise")
	ctx := context.Background()
	var id string
	if err := env.DB.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, 'https://erp.example.test/hooks', '{*}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`, company).Scan(&id); err != nil {
		t.Fatal(err)
	}
	path := "/settings/webhooks/" + id
	exists := func() bool {
		var n int
		if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM webhook_endpoints WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	admin := signIn(t, env, company, auth.RoleAdmin, "ada@acme.test", "en")
	admin.get(path).expect(t, http.StatusOK).contains(t, `href="`+path+`/delete"`, `data-testid="delete-webhook"`)
	admin.get(path+"/delete").expect(t, http.StatusOK).
		contains(t, "<title>Delete this endpoint?", "https://erp.example.test/hooks", `action="`+path+`/delete"`, `href="`+path+`"`, "its delivery log")
	admin.postRaw(path+"/delete", nil).expect(t, http.StatusForbidden)
	signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en").post(path+"/delete", nil).expect(t, http.StatusForbidden)
	if !exists() {
		t.Fatal("a refused delete deleted the endpoint")
	}

	res := admin.post(path+"/delete", nil).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/settings/webhooks" {
		t.Errorf("after delete: %q", loc)
	}
	if exists() {
		t.Fatal("the endpoint is still there")
	}
	var audited int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM audit_logs WHERE company_id = $1 AND entity_type = 'webhook_endpoint'
		AND entity_id = $2 AND action = 'deleted'`, company, id).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited != 1 {
		t.Errorf("%d audit rows for the delete", audited)
	}
	admin.get("/settings/webhooks").expect(t, http.StatusOK).
		contains(t, "Endpoint https://erp.example.test/hooks was deleted.", `data-testid="no-webhooks"`)
	admin.get(path).expect(t, http.StatusNotFound)
	admin.get(path+"/delete").expect(t, http.StatusNotFound)

	// In Czech, the confirmation in the reader's language.
	var other string
	if err := env.DB.QueryRow(ctx, `INSERT INTO webhook_endpoints (company_id, url, events, secret)
		VALUES ($1, 'https://tms.example.test/hooks', '{*}', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw') RETURNING id`, company).Scan(&other); err != nil {
		t.Fatal(err)
	}
	signIn(t, env, company, auth.RoleAdmin, "adam@acme.test", "cs").get("/settings/webhooks/"+other+"/delete").
		expect(t, http.StatusOK).contains(t, "Smazat tuto adresu?", "Smazat adresu")
}

// The in-app notification that Konvoj disabled a failing endpoint links
// to the webhooks page, which shows the endpoint as disabled after
// failures.
func TestWebhookDisabledNotificationLandsOnThePage(t *testing.T) {
	env := devEnv(t)
	w := env.World()
	admin := signIn(t, env, w.Home.Company, auth.RoleAdmin, "admin@home.test", "en")
	ctx := context.Background()
	if _, err := env.DB.Exec(ctx, `UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'failing' WHERE id = $1`, w.Home.Webhook); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `INSERT INTO notifications (company_id, user_id, kind, webhook_id)
		SELECT company_id, id, 'webhook_disabled', $2 FROM users WHERE company_id = $1 AND email = 'admin@home.test'`,
		w.Home.Company, w.Home.Webhook); err != nil {
		t.Fatal(err)
	}
	admin.get("/notifications").expect(t, http.StatusOK).contains(t, `<a href="/settings/webhooks" class="hover:underline">Webhook disabled: `)
	admin.get("/settings/webhooks").expect(t, http.StatusOK).contains(t, "Disabled after failed deliveries")
}

// mainOf is a page's main content, without the shell (navigation, title).
func mainOf(body string) string {
	if i := strings.Index(body, "<main"); i >= 0 {
		body = body[i:]
	}
	if i := strings.Index(body, "</main>"); i >= 0 {
		body = body[:i]
	}
	return body
}
