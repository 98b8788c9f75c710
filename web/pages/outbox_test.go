package pages_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
)

// TestDevOutbox: under dev sign-in (make run) an HR manager sees the
// company's e-mails, newest first, with the text part and the HTML part
// served alone in a sandbox; another company's e-mail is refused, and the
// notifications page links to the outbox for the roles that may read it.
func TestDevOutbox(t *testing.T) {
	env := devEnv(t)
	w := env.World()
	hr := signIn(t, env, w.Home.Company, auth.RoleHRManager, "hr@home.test", "en")

	page := hr.get("/dev/outbox").expect(t, http.StatusOK)
	if !strings.Contains(page.Body, "Home digest") || strings.Contains(page.Body, "Away digest") {
		t.Errorf("outbox page: want the company's own e-mail only; body: %s", truncate(page.Body))
	}
	if !strings.Contains(page.Body, "SMTP_URL is not set") {
		t.Errorf("outbox page: want the note that nothing leaves the machine")
	}
	html := hr.get("/dev/outbox/"+w.Home.Outbox.String()+"/html").expect(t, http.StatusOK)
	if html.Body != "<p>html</p>" {
		t.Errorf("HTML part: %q", html.Body)
	}
	if csp := html.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox;") || !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("HTML part CSP %q: want a sandbox that loads nothing", csp)
	}
	hr.get("/dev/outbox/"+w.Away.Outbox.String()+"/html").expect(t, http.StatusForbidden)
	hr.get("/dev/outbox/00000000-0000-0000-0000-00000000abcd/html").expect(t, http.StatusNotFound)

	if n := hr.get("/notifications").expect(t, http.StatusOK); !strings.Contains(n.Body, `href="/dev/outbox"`) {
		t.Errorf("notifications page: no link to the outbox")
	}
	dispatcher := signIn(t, env, w.Home.Company, auth.RoleDispatcher, "dispatcher@home.test", "en")
	if n := dispatcher.get("/notifications").expect(t, http.StatusOK); strings.Contains(n.Body, `href="/dev/outbox"`) {
		t.Errorf("a dispatcher, who may not read the outbox, sees the link")
	}
}
