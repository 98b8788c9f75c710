package pages_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestPageEventsEndWithTheSession: a page opens the live-update stream at
// /events with its session cookie, gets its company's events, and the
// stream ends when the session does (sign-out).
func TestPageEventsEndWithTheSession(t *testing.T) {
	env := devEnv(t, webtest.WithApp(func(o *app.Options) { o.Server.Live.Recheck = 200 * time.Millisecond }))
	co := env.Company("Acme", "free")
	hr := signIn(t, env, co, auth.RoleHRManager, "hana@acme.test", "en")
	u, _ := url.Parse(env.Server.URL)
	h := http.Header{}
	for _, c := range hr.c.Jar.Cookies(u) {
		h.Add("Cookie", c.Name+"="+c.Value)
	}
	s := webtest.OpenStream(t, env.Server.URL+"/events", h)
	if s.Status != http.StatusOK || s.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("page stream: %d %v", s.Status, s.Header)
	}
	env.As(co, auth.RoleAdmin).Post("/api/v0/drivers", map[string]any{"first_name": "Jan", "last_name": "Novák",
		"email": "jan@acme.test"}).Expect(http.StatusCreated)
	if m, ok := s.Next(time.Second); !ok || m.Event != "driver.created" {
		t.Fatalf("page stream: %v %v", m, ok)
	}
	if p := hr.post("/logout", nil); p.Status >= 400 {
		t.Fatalf("sign-out: %d", p.Status)
	}
	select {
	case <-s.Ended:
	case <-time.After(3 * time.Second):
		t.Fatal("the stream outlived its session")
	}
	if gone := webtest.OpenStream(t, env.Server.URL+"/events", h); gone.Header.Get("Content-Type") == "text/event-stream" {
		t.Fatal("a stream opened with an ended session") // (it is sent to the sign-in page)
	}
}
