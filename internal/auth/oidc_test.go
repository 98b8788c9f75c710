package auth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
)

// A provider that is down at first is discovered on a later request, and
// its end-session endpoint is used for sign-out.
func TestWebSignInDiscoveryAndEndSession(t *testing.T) {
	var up atomic.Bool
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !up.Load() || r.URL.Path != "/.well-known/openid-configuration" {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"jwks_uri": srv.URL + "/jwks", "end_session_endpoint": srv.URL + "/logout?tenant=x",
			"id_token_signing_alg_values_supported": []string{"RS256"},
		})
	}))
	defer srv.Close()
	ctx := context.Background()
	w := NewWebSignIn(srv.URL, "konvoj", "secret", "https://konvoj.example/auth/callback")

	if _, err := w.AuthCodeURL(ctx, NewFlow("/")); err == nil {
		t.Fatal("AuthCodeURL succeeded while the provider is down")
	}
	if got := w.EndSessionURL(ctx, "https://konvoj.example/login"); got != "" {
		t.Fatalf("EndSessionURL while down = %q, want none", got)
	}
	up.Store(true)
	f := NewFlow("/drivers")
	raw, err := w.AuthCodeURL(ctx, f)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(raw)
	q := u.Query()
	if u.Path != "/authorize" || q.Get("state") != f.State || q.Get("nonce") != f.Nonce ||
		q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("code_challenge") == f.Verifier ||
		q.Get("redirect_uri") != "https://konvoj.example/auth/callback" || q.Get("scope") != "openid email profile" {
		t.Errorf("authorization URL %s", raw)
	}
	end, _ := url.Parse(w.EndSessionURL(ctx, "https://konvoj.example/login"))
	eq := end.Query()
	if end.Path != "/logout" || eq.Get("tenant") != "x" || eq.Get("client_id") != "konvoj" || eq.Get("post_logout_redirect_uri") != "https://konvoj.example/login" {
		t.Errorf("end-session URL %s", end)
	}

	// A callback whose state differs is refused before any exchange.
	if _, err := w.Exchange(ctx, f, "other", "code"); err == nil {
		t.Error("Exchange accepted a foreign state")
	}
	if _, err := w.Exchange(ctx, Flow{}, "", "code"); err == nil {
		t.Error("Exchange accepted an empty flow")
	}
}

func TestNewFlowIsRandom(t *testing.T) {
	a, b := NewFlow("/"), NewFlow("/")
	if a.State == b.State || a.Nonce == b.Nonce || a.Verifier == b.Verifier || len(a.State) < 40 || len(a.Verifier) < 43 {
		t.Errorf("flows are not fresh: %+v %+v", a, b)
	}
}
