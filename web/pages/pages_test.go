package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/static"
	"github.com/konvoj/konvoj/web/webtest"
)

func TestPagesNeedASession(t *testing.T) {
	env := devEnv(t)
	b := newBrowser(t, env.Server.URL)

	res := b.get("/audit?page=2").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/login?next=%2Faudit%3Fpage%3D2" {
		t.Errorf("redirect to %q", loc)
	}

	// htmx cannot follow a redirect into a fragment: it is told to load
	// the sign-in page, returning to the page the person was on.
	b.Header.Set("HX-Request", "true")
	b.Header.Set("HX-Current-URL", env.Server.URL+"/audit?page=3")
	res = b.get("/audit").expect(t, http.StatusUnauthorized)
	if got := res.Header.Get("HX-Redirect"); got != "/login?next=%2Faudit%3Fpage%3D3" {
		t.Errorf("HX-Redirect = %q", got)
	}

	// A tampered session cookie is no session.
	b = newBrowser(t, env.Server.URL)
	u, _ := url.Parse(env.Server.URL)
	b.c.Jar.SetCookies(u, []*http.Cookie{{Name: "konvoj_session", Value: "MTIzNDU2Nzg5MHxhYmNkZWZ8"}})
	b.get("/").expect(t, http.StatusSeeOther)
}

func TestDevSignInShowsRoleAwareDashboard(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme Transport", "free")

	hr := newBrowser(t, env.Server.URL)
	res := hr.devSignIn(company, auth.RoleHRManager, "hana@acme.test").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Errorf("after sign-in: redirect to %q", loc)
	}
	// The company speaks Czech by default.
	hr.get("/").expect(t, http.StatusOK).
		contains(t, "Acme Transport", "Personalista", "hana@acme.test", `href="/audit"`, "Historie změn", `aria-current="page"`)
	hr.get("/audit").expect(t, http.StatusOK).contains(t, "<h1", "Historie změn", "Zatím nebyly zaznamenány žádné změny.")

	acc := newBrowser(t, env.Server.URL)
	acc.devSignIn(company, auth.RoleAccountant, "adam@acme.test").expect(t, http.StatusSeeOther)
	acc.get("/").expect(t, http.StatusOK).contains(t, "Účetní").lacks(t, `href="/audit"`)
	// The service refuses; the page says what to do.
	acc.get("/audit").expect(t, http.StatusForbidden).
		contains(t, "K tomuto nemáte přístup", "požádejte správce", `href="/"`)

	// The development page lists the known users by role (HR before the
	// accountant), and signing in as a listed one is that same user.
	dev := newBrowser(t, env.Server.URL)
	list := dev.get("/auth/dev").expect(t, http.StatusOK).contains(t, "Acme Transport", "hana@acme.test", "adam@acme.test").Body
	if strings.Index(list, "hana@acme.test") > strings.Index(list, "adam@acme.test") {
		t.Error("users are not listed in role order")
	}
	var subject string
	if err := env.DB.QueryRow(context.Background(), "SELECT external_id FROM users WHERE email = 'hana@acme.test'").Scan(&subject); err != nil {
		t.Fatal(err)
	}
	dev.post("/auth/dev", url.Values{"company_id": {company.String()}, "subject": {subject}, "email": {"hana@acme.test"}, "role": {"hr_manager"}}).
		expect(t, http.StatusSeeOther)
	var users int
	if err := env.DB.QueryRow(context.Background(), "SELECT count(*) FROM users WHERE company_id = $1", company).Scan(&users); err != nil || users != 2 {
		t.Errorf("users after signing in again: %d, %v", users, err)
	}
}

func TestSessionCookie(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	b := newBrowser(t, env.Server.URL)
	res := b.devSignIn(company, auth.RoleDispatcher, "dita@acme.test")
	var set string
	for _, c := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(c, "konvoj_session=") {
			set = c
		}
	}
	for _, want := range []string{"HttpOnly", "SameSite=Lax", "Max-Age=43200", "Path=/"} {
		if !strings.Contains(set, want) {
			t.Errorf("session cookie %q lacks %s", set, want)
		}
	}
	if strings.Contains(set, "Secure") {
		t.Errorf("session cookie is Secure on plain http: %q", set)
	}
	// The cookie holds a random secret, never the identity (https:
	// TestSessionCookiesOverHTTPS).
	if strings.Contains(set, "dita") || strings.Contains(set, company.String()) {
		t.Errorf("session cookie shows its content: %q", set)
	}

	// Sign-out clears it.
	b.post("/logout", nil).expect(t, http.StatusSeeOther)
	b.get("/").expect(t, http.StatusSeeOther)
	b.get("/login").expect(t, http.StatusOK).contains(t, "You have signed out.")
}

func TestUnknownCompanyIsRefused(t *testing.T) {
	env := devEnv(t)
	b := newBrowser(t, env.Server.URL)
	res := b.devSignIn(uuid.New(), auth.RoleAdmin, "x@nowhere.test").expect(t, http.StatusForbidden)
	page{Body: res.Body}.contains(t, "Your company is not registered in Konvoj.")
	if b.cookie("konvoj_session") != "" {
		t.Error("a session was set for an unknown company")
	}
}

func TestCSRF(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	b := newBrowser(t, env.Server.URL)
	b.devSignIn(company, auth.RoleHRManager, "h@acme.test").expect(t, http.StatusSeeOther)

	// No token, a wrong token, a cross-site post: refused, nothing stored.
	b.postRaw("/language", url.Values{"lang": {"cs"}}).expect(t, http.StatusForbidden).contains(t, "načtěte stránku znovu")
	b.postRaw("/language", url.Values{"lang": {"cs"}, "_csrf": {"forged"}}).expect(t, http.StatusForbidden)
	b.Header.Set("Sec-Fetch-Site", "cross-site")
	b.post("/language", url.Values{"lang": {"cs"}}).expect(t, http.StatusForbidden)
	b.Header.Del("Sec-Fetch-Site")
	b.postRaw("/logout", nil).expect(t, http.StatusForbidden)
	// The right token in the query string (where logs and Referer headers
	// would keep it) is not looked for.
	b.postRaw("/language?_csrf="+url.QueryEscape(b.cookie("konvoj_csrf")), url.Values{"lang": {"cs"}}).expect(t, http.StatusForbidden)
	var lang *string
	if err := env.DB.QueryRow(context.Background(), "SELECT preferred_language FROM users WHERE email = 'h@acme.test'").Scan(&lang); err != nil {
		t.Fatal(err)
	}
	if lang != nil {
		t.Fatalf("preferred_language changed to %q by a forged request", *lang)
	}

	// The page's token in a hidden field, or htmx's header, is accepted.
	b.post("/language", url.Values{"lang": {"en"}}).expect(t, http.StatusSeeOther)
	req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/language", strings.NewReader("lang=en"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-CSRF-Token", b.cookie("konvoj_csrf"))
	b.do(req).expect(t, http.StatusSeeOther)
	// The token the page renders is the cookie's.
	b.get("/").contains(t, `name="_csrf" value="`+b.cookie("konvoj_csrf")+`"`, `hx-headers="{&#34;X-CSRF-Token&#34;:&#34;`+b.cookie("konvoj_csrf"))
}

func TestLanguageSwitch(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free") // default language cs
	b := newBrowser(t, env.Server.URL)
	b.devSignIn(company, auth.RoleHRManager, "h@acme.test")

	// The company's default language first.
	b.get("/").contains(t, `<html lang="cs"`, "Vítejte", "Personalista", "Odhlásit se")

	res := b.post("/language", url.Values{"lang": {"en"}, "next": {"/audit?page=1"}}).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/audit?page=1" {
		t.Errorf("back to %q", loc)
	}
	b.get("/").contains(t, `<html lang="en"`, "Welcome", "HR manager", "Sign out")
	var lang string
	if err := env.DB.QueryRow(context.Background(), "SELECT preferred_language FROM users WHERE email = 'h@acme.test'").Scan(&lang); err != nil || lang != "en" {
		t.Fatalf("preferred_language = %q, %v", lang, err)
	}

	// A return address off this site is ignored.
	res = b.post("/language", url.Values{"lang": {"cs"}, "next": {"//evil.example/x"}}).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Errorf("open redirect to %q", loc)
	}
	b.post("/language", url.Values{"lang": {"de"}}).expect(t, http.StatusUnprocessableEntity)

	// Before sign-in the choice lives in a cookie.
	anon := newBrowser(t, env.Server.URL)
	anon.get("/login").contains(t, `<html lang="en"`, "Development sign-in")
	anon.post("/language", url.Values{"lang": {"cs"}, "next": {"/login"}}).expect(t, http.StatusSeeOther)
	anon.get("/login").contains(t, `<html lang="cs"`, "Přihlášení", "Vývojové přihlášení")
}

func TestErrorPages(t *testing.T) {
	env := devEnv(t)
	b := newBrowser(t, env.Server.URL)
	b.get("/no/such/page").expect(t, http.StatusNotFound).
		contains(t, "Page not found", "Check the address", `href="/login"`).lacks(t, "Dashboard")
	b.Header.Set("Accept-Language", "cs-CZ,cs;q=0.9")
	b.get("/no/such/page").expect(t, http.StatusNotFound).contains(t, `<html lang="cs"`, "Stránka nenalezena")
	b.Header.Del("Accept-Language")

	// Signed in, the 404 page keeps the navigation.
	company := env.Company("Acme", "free")
	b.devSignIn(company, auth.RoleAdmin, "a@acme.test")
	b.get("/drivers/123").expect(t, http.StatusNotFound).contains(t, "Stránka nenalezena", "Přehled", `href="/"`)

	// htmx gets the error card for the main area.
	b.Header.Set("HX-Request", "true")
	res := b.get("/no/such/page").expect(t, http.StatusNotFound)
	if res.Header.Get("HX-Retarget") != "#main" || strings.Contains(res.Body, "<html") {
		t.Errorf("htmx error: retarget %q, body %s", res.Header.Get("HX-Retarget"), truncate(res.Body))
	}
	b.Header.Del("HX-Request")

	// The API keeps its JSON errors.
	res = b.get("/api/v0/no-such-thing").expect(t, http.StatusNotFound)
	if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
		t.Errorf("API 404 content type %q", res.Header.Get("Content-Type"))
	}
}

func TestDevSignInIsOffByDefault(t *testing.T) {
	env := webtest.New(t)
	b := newBrowser(t, env.Server.URL)
	b.get("/auth/dev").expect(t, http.StatusNotFound)
	b.get("/login").expect(t, http.StatusOK).contains(t, "Sign-in is not set up").lacks(t, "/auth/dev", "/auth/login")
}

func TestStaticAssets(t *testing.T) {
	// A tight limiter: the assets must not count against it.
	env := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()))
	b := newBrowser(t, env.Server.URL)
	for i := 0; i < 120; i++ {
		res := b.get(static.URL("app.css")).expect(t, http.StatusOK)
		if i == 0 {
			if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/css") {
				t.Errorf("content type %q", ct)
			}
			if cc := res.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("cache control %q", cc)
			}
			if len(res.Body) < 1000 {
				t.Errorf("app.css is only %d bytes", len(res.Body))
			}
		}
	}
	res := b.get(static.URL("htmx.min.js")).expect(t, http.StatusOK)
	if !strings.Contains(res.Body, `version:"2.`) {
		t.Error("htmx.min.js is not htmx 2")
	}
	b.get("/static/nope.js").expect(t, http.StatusNotFound)

	// The icon answers where browsers ask for it by themselves, cached
	// like an asset without its hash; the pages link its hashed URL.
	ico := b.get("/favicon.ico").expect(t, http.StatusOK)
	if ct, cc := ico.Header.Get("Content-Type"), ico.Header.Get("Cache-Control"); ct != "image/vnd.microsoft.icon" && ct != "image/x-icon" || cc != "public, max-age=3600" {
		t.Errorf("/favicon.ico: content type %q, cache control %q", ct, cc)
	}
	if !strings.HasPrefix(ico.Body, "\x00\x00\x01\x00") {
		t.Error("/favicon.ico is not an icon file")
	}
	b.get("/login").expect(t, http.StatusOK).contains(t, `<link rel="icon" href="`+static.URL("favicon.ico")+`"`)

	// The installed app's manifest and service worker answer without a
	// session; the worker keeps the hashed static files and loads
	// Workbox from here, never from a CDN.
	mf := b.get("/manifest.webmanifest").expect(t, http.StatusOK).contains(t, `"start_url":"/"`).contains(t, static.URL("icons/icon-192.png"))
	if ct := mf.Header.Get("Content-Type"); ct != "application/manifest+json" {
		t.Errorf("/manifest.webmanifest: content type %q", ct)
	}
	sw := b.get("/sw.js").expect(t, http.StatusOK).contains(t, static.URL("app.css")).contains(t, `modulePathPrefix: "/static/workbox/"`)
	if cc := sw.Header.Get("Cache-Control"); cc != "no-cache" {
		t.Errorf("/sw.js: cache control %q", cc)
	}
	if strings.Contains(sw.Body, "apidocs") || strings.Contains(sw.Body, "https://") {
		t.Error("/sw.js keeps the API documentation's viewer or loads from another site")
	}
	b.get("/login").expect(t, http.StatusOK).contains(t, `<link rel="manifest" href="/manifest.webmanifest"`)

	// Pages load nothing from other sites.
	page := b.get("/login").expect(t, http.StatusOK)
	for _, bad := range []string{"http://", "https://", "//cdn"} {
		if strings.Contains(strings.ReplaceAll(page.Body, `xmlns="http://www.w3.org/2000/svg"`, ""), bad) {
			t.Errorf("the sign-in page refers to %q", bad)
		}
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
		t.Errorf("CSP %q", csp)
	}
	if page.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("nosniff: page %q, asset %q", page.Header.Get("X-Content-Type-Options"), res.Header.Get("X-Content-Type-Options"))
	}
}
