package pages_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// devUserForms are the hidden fields of the development page's per-user
// sign-in buttons, by e-mail.
func devUserForms(t *testing.T, body string) map[string]url.Values {
	t.Helper()
	re := regexp.MustCompile(`(?s)<form method="post" action="/auth/dev">(.*?)</form>`)
	field := regexp.MustCompile(`<input type="hidden" name="([a-z_]+)" value="([^"]*)"`)
	out := map[string]url.Values{}
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		v := url.Values{}
		for _, f := range field.FindAllStringSubmatch(m[1], -1) {
			v.Set(f[1], html.UnescapeString(f[2]))
		}
		if v.Get("subject") != "" {
			out[v.Get("email")] = v
		}
	}
	return out
}

// Every listed user's button signs in as that user, whatever subject its
// row was created with (seed-demo's users were "demo:<e-mail>" and answered
// 500), and signing in by e-mail and role reuses the user with them.
func TestDevSignInIsTheExistingUser(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme Transport", "free")
	ctx := context.Background()
	seeded := uuid.New()
	if _, err := env.DB.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, first_name, last_name, role, preferred_language)
		VALUES ($1, $2, 'demo:hana@acme.test', 'hana@acme.test', 'Hana', 'Růžičková', 'hr_manager', 'en')`, seeded, company); err != nil {
		t.Fatal(err)
	}
	users := func() int {
		t.Helper()
		var n int
		if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM users WHERE company_id = $1`, company).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	for round := 1; round <= 2; round++ {
		b := newBrowser(t, env.Server.URL)
		form, ok := devUserForms(t, b.get("/auth/dev").expect(t, http.StatusOK).Body)["hana@acme.test"]
		if !ok {
			t.Fatal("the development page does not list hana@acme.test")
		}
		b.post("/auth/dev", form).expect(t, http.StatusSeeOther)
		// The seeded name and the stored language (English in a Czech company).
		b.get("/").expect(t, http.StatusOK).contains(t, `<html lang="en"`, "Hana Růžičková", "HR manager")
		if n := users(); n != 1 {
			t.Fatalf("round %d: %d users after signing in as the listed one, want 1", round, n)
		}
	}

	// "Sign in as someone else" with that e-mail (any case) and role is
	// the same user; another role or e-mail is someone new, once.
	b := newBrowser(t, env.Server.URL)
	b.devSignIn(company, auth.RoleHRManager, "Hana@Acme.test").expect(t, http.StatusSeeOther)
	b.get("/").expect(t, http.StatusOK).contains(t, "Hana Růžičková")
	if n := users(); n != 1 {
		t.Fatalf("%d users after signing in by e-mail and role, want 1", n)
	}
	for i := 0; i < 2; i++ {
		newBrowser(t, env.Server.URL).devSignIn(company, auth.RoleAccountant, "hana@acme.test").expect(t, http.StatusSeeOther)
		newBrowser(t, env.Server.URL).devSignIn(company, auth.RoleDispatcher, "dita@acme.test").expect(t, http.StatusSeeOther)
	}
	if n := users(); n != 3 {
		t.Fatalf("%d users after signing in twice as two new people, want 3", n)
	}
}

// A user who never chose a language reads the pages in the browser's
// language when Konvoj speaks it, else in the company's.
func TestLanguageAfterSignIn(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme Transport", "free") // speaks Czech

	en := newBrowser(t, env.Server.URL)
	en.Header.Set("Accept-Language", "en-GB,en;q=0.9")
	en.devSignIn(company, auth.RoleHRManager, "hana@acme.test").expect(t, http.StatusSeeOther)
	en.get("/").expect(t, http.StatusOK).contains(t, `<html lang="en"`, "Dashboard")

	de := newBrowser(t, env.Server.URL)
	de.Header.Set("Accept-Language", "de-DE,de;q=0.9")
	de.devSignIn(company, auth.RoleAccountant, "adam@acme.test").expect(t, http.StatusSeeOther)
	de.get("/").expect(t, http.StatusOK).contains(t, `<html lang="cs"`, "Přehled")

	// A stored choice wins over the browser.
	en.post("/language", url.Values{"lang": {"cs"}}).expect(t, http.StatusSeeOther)
	fresh := newBrowser(t, env.Server.URL)
	fresh.Header.Set("Accept-Language", "en")
	fresh.devSignIn(company, auth.RoleHRManager, "hana@acme.test").expect(t, http.StatusSeeOther)
	fresh.get("/").expect(t, http.StatusOK).contains(t, `<html lang="cs"`)
}

// navLinks are the main menu's targets in page order (desktop and phone
// menus list the same entries, so each appears once here).
func navLinks(body string) []string {
	re := regexp.MustCompile(`<a href="([^"]*)" class="nav-link`)
	seen := map[string]bool{}
	var out []string
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// A driver's menu: its home page (to-dos), its profile, its pay, its
// penalties, its rating and its signed-in devices.
func TestDriverMenu(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	own := env.Driver(company, fixtures.Name("Petr", "Malý"), fixtures.Email("petr@acme.test"))
	drv := signIn(t, env, company, auth.RoleDriver, "petr@acme.test", "en")
	res := drv.get("/drivers/"+own.String()).expect(t, http.StatusOK)
	want := []string{"/", "/drivers/" + own.String(), "/drivers/" + own.String() + "/pay", "/drivers/" + own.String() + "/penalties", "/drivers/" + own.String() + "/rating", "/sessions"}
	if got := navLinks(res.Body); !slices.Equal(got, want) {
		t.Errorf("driver's menu %v, want %v", got, want)
	}
	res.contains(t, "My profile", "My pay", "My penalties", "My rating", `aria-current="page"`)

	// An unlinked driver account has no pay of its own to open.
	lost := signIn(t, env, company, auth.RoleDriver, "nobody@acme.test", "en")
	lost.get("/").expect(t, http.StatusOK).contains(t, "Ask HR to enter your e-mail address").lacks(t, "My pay")

	// Other roles keep the dashboard and the list.
	hr := signIn(t, env, company, auth.RoleHRManager, "hr@acme.test", "en")
	if got := " " + strings.Join(navLinks(hr.get("/").expect(t, http.StatusOK).Body), " ") + " "; !strings.HasPrefix(got, " / ") || !strings.Contains(got, " /drivers ") {
		t.Errorf("HR's menu %q, want the dashboard first and the drivers", got)
	}
}
