package pages_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestUsersPage: an admin sees who has access (role, active, sessions),
// filters by search, role and access, deactivates a user after a question
// (the user's browser session and token are refused at once, audited) and
// reactivates it; its own account has no buttons and a hand-made POST is
// refused with the message above the list, at the list's address; other
// roles neither see the entry nor get the page.
func TestUsersPage(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	hana := env.As(company, auth.RoleHRManager, "hana@acme.test")
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)
	hanaBrowser := newBrowser(t, env.Server.URL)
	hanaBrowser.signInAs(hana)
	jan := env.As(company, auth.RoleDriver, "jan@acme.test")
	jan.Get("/api/v0/notifications").Expect(http.StatusOK)
	env.As(env.Company("Other", "free"), auth.RoleHRManager, "olga@other.test").Get("/api/v0/drivers").Expect(http.StatusOK)

	admin := signIn(t, env, company, auth.RoleAdmin, "adam@acme.test", "en")
	adminID := webtest.Value[uuid.UUID](t, env, `SELECT id FROM users WHERE email = 'adam@acme.test'`)
	hanaRow := `data-email="hana@acme.test" data-active="true"`

	admin.get("/").expect(t, http.StatusOK).contains(t, `href="/users"`)
	admin.get("/users").expect(t, http.StatusOK).
		contains(t, "Users found: 3", hanaRow, `data-email="jan@acme.test"`, `data-email="adam@acme.test"`, "HR manager", "Driver", "Administrator",
			`data-testid="user-self"`, `href="/users/`+hana.UserID.String()+`/deactivate?back=%2Fusers"`).
		lacks(t, "olga@other.test", `href="/users/`+adminID.String()+`/deactivate`)
	if n := strings.Count(admin.get("/users?search=hana").Body, `data-testid="user" `); n != 1 {
		t.Errorf("search hana: %d users, want 1", n)
	}
	admin.get("/users?role=driver").expect(t, http.StatusOK).contains(t, `data-email="jan@acme.test"`, "Users found: 1").lacks(t, "hana@acme.test")
	admin.get("/users?is_active=false").expect(t, http.StatusOK).contains(t, "No user matches these filters.", `data-testid="users-clear"`)
	if res := admin.get("/users?search=&role=&is_active=").expect(t, http.StatusSeeOther); res.Header.Get("Location") != "/users" {
		t.Errorf("empty filters redirect to %q", res.Header.Get("Location"))
	}

	// Deactivating asks first, then returns to the list it came from.
	back := "/users?role=hr_manager"
	admin.get("/users/"+hana.UserID.String()+"/deactivate?back="+url.QueryEscape(back)).expect(t, http.StatusOK).
		contains(t, "Deactivate Test hr_manager?", `action="/users/`+hana.UserID.String()+`/deactivate"`, `name="back" value="/users?role=hr_manager"`)
	res := admin.post("/users/"+hana.UserID.String()+"/deactivate", url.Values{"back": {back}}).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != back {
		t.Errorf("after deactivating: redirect to %q", loc)
	}
	admin.get(back).expect(t, http.StatusOK).
		contains(t, "Test hr_manager is deactivated", `data-email="hana@acme.test" data-active="false"`, `data-testid="reactivate"`)
	// Hana's browser session ended and her token is refused.
	hanaBrowser.get("/").expect(t, http.StatusSeeOther)
	hana.Get("/api/v0/drivers").Expect(http.StatusForbidden)
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'user' AND entity_id = $1 AND action = 'deactivated' AND user_id = $2`,
		hana.UserID, adminID); n != 1 {
		t.Errorf("%d audit rows of the deactivation", n)
	}
	admin.get("/users?is_active=false").expect(t, http.StatusOK).contains(t, "Users found: 1", "hana@acme.test")

	admin.post("/users/"+hana.UserID.String()+"/reactivate", url.Values{"back": {"/users?is_active=false"}}).expect(t, http.StatusSeeOther)
	admin.get("/users").expect(t, http.StatusOK).contains(t, "Test hr_manager can sign in again.", hanaRow)
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)

	// Not oneself: the refusal is said above the list (409), and a return
	// address elsewhere is not followed.
	admin.post("/users/"+adminID.String()+"/deactivate", url.Values{"back": {"https://evil.test/"}}).expect(t, http.StatusConflict).
		contains(t, `data-testid="users-problem"`, "You cannot deactivate or reactivate your own account", `data-testid="users"`)
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM users WHERE id = $1 AND is_active`, adminID); n != 1 {
		t.Error("the admin deactivated itself")
	}

	// Other roles: no entry, the 403 page, nothing changes.
	hr := signIn(t, env, company, auth.RoleHRManager, "hr2@acme.test", "en")
	hr.get("/").expect(t, http.StatusOK).lacks(t, `href="/users"`)
	hr.get("/users").expect(t, http.StatusForbidden)
	hr.post("/users/"+jan.UserID.String()+"/deactivate", url.Values{}).expect(t, http.StatusForbidden)
	jan.Get("/api/v0/notifications").Expect(http.StatusOK)
}

// TestRefusedFormKeepsItsAddress: a refused form's page names the page the
// form was on (its Referer, when of this site) as its own address, for the
// address bar (static/forms.js) and the language switch; not a page of
// another site, and not when nothing was refused.
func TestRefusedFormKeepsItsAddress(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	admin := signIn(t, env, company, auth.RoleAdmin, "adam@acme.test", "en")
	adminID := webtest.Value[uuid.UUID](t, env, `SELECT id FROM users WHERE email = 'adam@acme.test'`)
	self := "/users/" + adminID.String() + "/deactivate"

	admin.Header.Set("Referer", env.Server.URL+"/users?role=admin")
	admin.post(self, url.Values{"back": {"/users?role=admin"}}).expect(t, http.StatusConflict).
		contains(t, `data-address="/users?role=admin"`, `name="next" value="/users?role=admin"`)

	admin.Header.Set("Referer", "https://evil.test/users?role=admin")
	admin.post(self, url.Values{}).expect(t, http.StatusConflict).lacks(t, "data-address=")

	admin.Header.Del("Referer")
	admin.post(self, url.Values{}).expect(t, http.StatusConflict).lacks(t, "data-address=")
	admin.Header.Set("Referer", env.Server.URL+"/")
	admin.get("/users").expect(t, http.StatusOK).lacks(t, "data-address=")
}
