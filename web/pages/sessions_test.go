package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/web/webtest"
)

// signInAs signs the browser in through the development page as exactly
// the caller's user (its listed-user button), so a token for that user and
// the browser's session are one person.
func (b *browser) signInAs(c *webtest.Caller) {
	b.t.Helper()
	b.get("/auth/dev")
	res := b.post("/auth/dev", url.Values{"company_id": {c.CompanyID.String()}, "subject": {c.UserID.String()},
		"email": {c.Email}, "role": {string(c.Role)}, "next": {"/"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		b.t.Fatalf("sign-in as %s: %d %s", c.Email, res.Status, res.Header.Get("Location"))
	}
}

// replay is a fresh browser that holds nothing but the given session
// cookie, as an attacker who captured it would.
func replay(t *testing.T, env *webtest.Env, name, value string) *browser {
	b := newBrowser(t, env.Server.URL)
	u, _ := url.Parse(env.Server.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: name, Value: value, Path: "/"}})
	return b
}

func sessionsOf(t *testing.T, env *webtest.Env, user uuid.UUID) int {
	t.Helper()
	return webtest.Value[int](t, env, `SELECT count(*) FROM web_sessions WHERE user_id = $1`, user)
}

// TestSignedOutCookieIsRefused: a session cookie captured before sign-out
// is worth nothing after it (issue: it used to get 200 for up to 12 h).
func TestSignedOutCookieIsRefused(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	b := newBrowser(t, env.Server.URL)
	b.devSignIn(company, auth.RoleHRManager, "hana@acme.test").expect(t, http.StatusSeeOther)
	captured := b.cookie("konvoj_session")
	if captured == "" {
		t.Fatal("no session cookie")
	}
	replay(t, env, "konvoj_session", captured).get("/").expect(t, http.StatusOK)

	b.post("/logout", nil).expect(t, http.StatusSeeOther)
	res := replay(t, env, "konvoj_session", captured).get("/").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); !strings.HasPrefix(loc, "/login") {
		t.Errorf("replayed cookie sent to %q", loc)
	}
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM web_sessions`).Scan(&n); err != nil || n != 0 {
		t.Errorf("sessions left after sign-out: %d, %v", n, err)
	}
	// The cookie holds a random secret; the table holds only its hash.
	var stored int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM web_sessions WHERE token_hash = convert_to($1, 'UTF8')`, captured).Scan(&stored); err != nil || stored != 0 {
		t.Errorf("the secret itself is stored: %d, %v", stored, err)
	}
}

// TestRoleChangeAndDeletionEndSessions: a user whose role changes (here
// through an API token from the identity provider), who is deactivated or
// deleted, has no session left.
func TestRoleChangeAndDeletionEndSessions(t *testing.T) {
	env := devEnv(t)
	ctx := context.Background()
	company := env.Company("Acme", "free")

	hana := env.As(company, auth.RoleHRManager)
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)
	b1, b2 := newBrowser(t, env.Server.URL), newBrowser(t, env.Server.URL)
	b1.signInAs(hana)
	b2.signInAs(hana)
	b1.get("/").expect(t, http.StatusOK)
	// A request with the same role changes nothing.
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)
	b2.get("/").expect(t, http.StatusOK)
	// The provider now says she is an accountant.
	demoted := env.WithToken(env.Sign(map[string]any{
		"sub": hana.UserID.String(), "email": hana.Email,
		"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": "accountant"},
	}))
	demoted.Get("/api/v0/drivers").Expect(http.StatusOK)
	b1.get("/").expect(t, http.StatusSeeOther)
	b2.get("/audit").expect(t, http.StatusSeeOther)
	if n := sessionsOf(t, env, hana.UserID); n != 0 {
		t.Errorf("sessions after the role change: %d", n)
	}

	// Deactivated, then deleted: whatever changes the row.
	dan := env.As(company, auth.RoleDispatcher)
	dan.Get("/api/v0/drivers").Expect(http.StatusOK)
	b3 := newBrowser(t, env.Server.URL)
	b3.signInAs(dan)
	b3.get("/").expect(t, http.StatusOK)
	if _, err := env.DB.Exec(ctx, `UPDATE users SET is_active = false WHERE id = $1`, dan.UserID); err != nil {
		t.Fatal(err)
	}
	b3.get("/").expect(t, http.StatusSeeOther)

	eva := env.As(company, auth.RoleAdmin)
	eva.Get("/api/v0/drivers").Expect(http.StatusOK)
	b4 := newBrowser(t, env.Server.URL)
	b4.signInAs(eva)
	b4.get("/").expect(t, http.StatusOK)
	if n := sessionsOf(t, env, eva.UserID); n != 1 {
		t.Fatalf("eva's sessions: %d", n)
	}
	if _, err := env.DB.Exec(ctx, `DELETE FROM notification_settings WHERE user_id = $1`, eva.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.DB.Exec(ctx, `DELETE FROM users WHERE id = $1`, eva.UserID); err != nil {
		t.Fatal(err)
	}
	if n := sessionsOf(t, env, eva.UserID); n != 0 {
		t.Errorf("sessions of a deleted user: %d", n)
	}
	b4.get("/").expect(t, http.StatusSeeOther)
}

// TestSessionExpiry: idle 2 hours, absolute 12 hours, on the sessions
// service's clock; last_seen_at is written at most once a minute; the
// purge deletes what expired.
func TestSessionExpiry(t *testing.T) {
	env := devEnv(t)
	ctx := context.Background()
	svc := env.App.Services.Sessions
	start := time.Now().UTC().Truncate(time.Second)
	clock := start
	svc.SetNow(func() time.Time { return clock })
	t.Cleanup(func() { svc.SetNow(nil) })
	company := env.Company("Acme", "free")
	lastSeen := func(email string) time.Time {
		t.Helper()
		var at time.Time
		if err := env.DB.QueryRow(ctx, `SELECT last_seen_at FROM web_sessions WHERE email = $1`, email).Scan(&at); err != nil {
			t.Fatal(err)
		}
		return at.UTC()
	}

	idle := newBrowser(t, env.Server.URL)
	idle.devSignIn(company, auth.RoleHRManager, "idle@acme.test").expect(t, http.StatusSeeOther)
	clock = start.Add(30 * time.Second)
	idle.get("/").expect(t, http.StatusOK)
	if got := lastSeen("idle@acme.test"); !got.Equal(start) {
		t.Errorf("last_seen_at written within the minute: %v, want %v", got, start)
	}
	clock = start.Add(time.Hour + 59*time.Minute)
	idle.get("/").expect(t, http.StatusOK)
	if got := lastSeen("idle@acme.test"); !got.Equal(clock) {
		t.Errorf("last_seen_at %v, want %v", got, clock)
	}
	// Used within two hours of the last request: still live.
	clock = clock.Add(2*time.Hour - time.Second)
	idle.get("/").expect(t, http.StatusOK)
	clock = clock.Add(2 * time.Hour)
	idle.get("/").expect(t, http.StatusSeeOther)

	// Used every 90 minutes, it still ends 12 hours after sign-in.
	clock = start
	busy := newBrowser(t, env.Server.URL)
	busy.devSignIn(company, auth.RoleHRManager, "busy@acme.test").expect(t, http.StatusSeeOther)
	for clock.Before(start.Add(12*time.Hour - 90*time.Minute)) {
		clock = clock.Add(90 * time.Minute)
		busy.get("/").expect(t, http.StatusOK)
	}
	clock = start.Add(12*time.Hour - time.Second)
	busy.get("/").expect(t, http.StatusOK)
	clock = start.Add(12 * time.Hour)
	busy.get("/").expect(t, http.StatusSeeOther)

	// A session that expired without another request is purged (by the
	// job, on the owner's pool, across companies).
	purge := sessions.NewService(env.DB)
	purge.SetNow(func() time.Time { return clock })
	clock = start
	gone := newBrowser(t, env.Server.URL)
	gone.devSignIn(company, auth.RoleHRManager, "gone@acme.test").expect(t, http.StatusSeeOther)
	live := newBrowser(t, env.Server.URL)
	clock = start.Add(time.Hour)
	live.devSignIn(company, auth.RoleHRManager, "live@acme.test").expect(t, http.StatusSeeOther)
	clock = start.Add(2*time.Hour + time.Minute)
	n, err := purge.Purge(ctx)
	if err != nil || n != 1 {
		t.Fatalf("purged %d, %v; want 1", n, err)
	}
	live.get("/").expect(t, http.StatusOK)
	gone.get("/").expect(t, http.StatusSeeOther)
}

// TestSessionCookiesOverHTTPS: with an https PUBLIC_URL the session and
// CSRF cookies are __Host- cookies: Secure, HttpOnly, SameSite=Lax, path /,
// no Domain; the unprefixed name is no session.
func TestSessionCookiesOverHTTPS(t *testing.T) {
	env := devEnv(t, webtest.WithConfig(func(c *config.Config) { c.PublicURL = "https://konvoj.example" }))
	company := env.Company("Acme", "free")
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	setCookie := func(res *http.Response, name string) *http.Cookie {
		t.Helper()
		for _, ck := range res.Cookies() {
			if ck.Name == name {
				raw := ""
				for _, h := range res.Header.Values("Set-Cookie") {
					if strings.HasPrefix(h, name+"=") {
						raw = h
					}
				}
				for _, want := range []string{"HttpOnly", "Secure", "SameSite=Lax", "Path=/"} {
					if !strings.Contains(raw, want) {
						t.Errorf("%s lacks %s: %q", name, want, raw)
					}
				}
				if strings.Contains(strings.ToLower(raw), "domain=") {
					t.Errorf("%s has a Domain: %q", name, raw)
				}
				return ck
			}
		}
		t.Fatalf("no %s cookie in %v", name, res.Header.Values("Set-Cookie"))
		return nil
	}
	res, err := c.Get(env.Server.URL + "/auth/dev")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	csrf := setCookie(res, "__Host-konvoj_csrf")

	form := url.Values{"company_id": {company.String()}, "role": {"admin"}, "email": {"a@acme.test"}, "_csrf": {csrf.Value}}
	req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/auth/dev", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(csrf)
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("dev sign-in: %d", res.StatusCode)
	}
	session := setCookie(res, "__Host-konvoj_session")
	if session.MaxAge != 12*60*60 {
		t.Errorf("session cookie Max-Age %d", session.MaxAge)
	}

	get := func(ck *http.Cookie) int {
		req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/", nil)
		req.AddCookie(ck)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if got := get(&http.Cookie{Name: "__Host-konvoj_session", Value: session.Value}); got != http.StatusOK {
		t.Errorf("with the __Host- cookie: %d", got)
	}
	if got := get(&http.Cookie{Name: "konvoj_session", Value: session.Value}); got != http.StatusSeeOther {
		t.Errorf("with the unprefixed name: %d", got)
	}
}

// TestSessionsPage: the page lists the caller's sessions with device,
// address and "this device"; ending another one sends that browser to the
// sign-in page; "sign out everywhere else" keeps only this one; another
// user's session is 404 and another company's 403, and neither ends.
func TestSessionsPage(t *testing.T) {
	env := devEnv(t)
	ctx := context.Background()
	company, other := env.Company("Acme", "free"), env.Company("Other", "free")
	hana := env.As(company, auth.RoleHRManager)
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)
	laptop, phone, tablet := newBrowser(t, env.Server.URL), newBrowser(t, env.Server.URL), newBrowser(t, env.Server.URL)
	laptop.Header.Set("User-Agent", "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:140.0) Gecko/20100101 Firefox/140.0")
	phone.Header.Set("User-Agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1")
	tablet.Header.Set("User-Agent", "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36")
	for _, b := range []*browser{laptop, phone, tablet} {
		b.Header.Set("Accept-Language", "en")
		b.signInAs(hana)
	}
	page := laptop.get("/sessions").expect(t, http.StatusOK).
		contains(t, "Signed-in devices", "Firefox on Windows", "Safari on iOS", "Chrome on Android", "This device", "127.0.0.1",
			"Sign out everywhere else", `href="/sessions"`)
	if n := strings.Count(page.Body, `data-testid="session"`); n != 3 {
		t.Errorf("%d sessions listed, want 3", n)
	}
	if n := strings.Count(page.Body, `data-testid="end-session"`); n != 2 {
		t.Errorf("%d End buttons, want 2 (not on this device)", n)
	}

	var phoneID, dansID, olgasID uuid.UUID
	if err := env.DB.QueryRow(ctx, `SELECT id FROM web_sessions WHERE user_agent LIKE '%iPhone%'`).Scan(&phoneID); err != nil {
		t.Fatal(err)
	}
	laptop.post("/sessions/"+phoneID.String()+"/end", nil).expect(t, http.StatusSeeOther)
	laptop.get("/sessions").expect(t, http.StatusOK).contains(t, "The session was ended.").lacks(t, "Safari on iOS")
	phone.get("/").expect(t, http.StatusSeeOther)
	tablet.get("/").expect(t, http.StatusOK)

	// Other people's sessions cannot be ended from here.
	dan := env.As(company, auth.RoleDispatcher)
	dan.Get("/api/v0/drivers").Expect(http.StatusOK)
	dans := newBrowser(t, env.Server.URL)
	dans.signInAs(dan)
	olga := env.As(other, auth.RoleAdmin)
	olga.Get("/api/v0/drivers").Expect(http.StatusOK)
	olgas := newBrowser(t, env.Server.URL)
	olgas.signInAs(olga)
	if err := env.DB.QueryRow(ctx, `SELECT id FROM web_sessions WHERE user_id = $1`, dan.UserID).Scan(&dansID); err != nil {
		t.Fatal(err)
	}
	if err := env.DB.QueryRow(ctx, `SELECT id FROM web_sessions WHERE user_id = $1`, olga.UserID).Scan(&olgasID); err != nil {
		t.Fatal(err)
	}
	laptop.post("/sessions/"+dansID.String()+"/end", nil).expect(t, http.StatusNotFound)
	laptop.post("/sessions/"+olgasID.String()+"/end", nil).expect(t, http.StatusForbidden)
	dans.get("/").expect(t, http.StatusOK)
	olgas.get("/").expect(t, http.StatusOK)

	// Everywhere else: the tablet goes, the laptop and the others stay.
	laptop.post("/sessions/end-others", nil).expect(t, http.StatusSeeOther)
	laptop.get("/sessions").expect(t, http.StatusOK).
		contains(t, "Signed out on the other devices (1).", "No other device is signed in.").lacks(t, "Sign out everywhere else")
	tablet.get("/").expect(t, http.StatusSeeOther)
	dans.get("/").expect(t, http.StatusOK)
	if n := sessionsOf(t, env, hana.UserID); n != 1 {
		t.Errorf("hana's sessions after signing out everywhere else: %d", n)
	}

	// In Czech, an unknown browser too.
	cz := newBrowser(t, env.Server.URL)
	cz.Header.Set("User-Agent", "curl/8.5")
	cz.devSignIn(company, auth.RoleAccountant, "adam@acme.test").expect(t, http.StatusSeeOther)
	cz.get("/sessions").expect(t, http.StatusOK).contains(t, "Přihlášená zařízení", "Neznámý prohlížeč, systém neznámý", "Toto zařízení")
}
