package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth/oidctest"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/web/webtest"
)

func oidcEnv(t *testing.T) (*webtest.Env, *oidctest.Provider) {
	prov := oidctest.Start(t)
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) {
		c.OIDCIssuerURL = prov.Issuer()
		c.OIDCClientID = prov.ClientID
		c.OIDCClientSecret = prov.ClientSecret
	}))
	return env, prov
}

// startSignIn follows the flow up to the provider's answer and returns
// the callback's query (the provider redirects to PUBLIC_URL, which is not
// the test server's address).
func startSignIn(t *testing.T, b *browser, next string) url.Values {
	t.Helper()
	res := b.get("/auth/login?next="+url.QueryEscape(next)).expect(t, http.StatusFound)
	authURL, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := authURL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" {
		t.Fatalf("authorization request lacks PKCE S256, nonce or state: %s", authURL)
	}
	if q.Get("redirect_uri") != "http://localhost:8080/auth/callback" {
		t.Errorf("redirect_uri = %q", q.Get("redirect_uri"))
	}
	res = b.get(authURL.String()).expect(t, http.StatusFound)
	cb, err := url.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return cb.Query()
}

func TestOIDCSignIn(t *testing.T) {
	env, prov := oidcEnv(t)
	company := env.Company("Acme", "free")
	b := newBrowser(t, env.Server.URL)

	b.get("/login").expect(t, http.StatusOK).contains(t, `href="/auth/login?next=%2F"`)

	sub := uuid.NewString()
	prov.SignInNext(oidctest.User{Subject: sub, Email: "hana@acme.test", CompanyID: company.String(), Role: "hr_manager", FirstName: "Hana", LastName: "Horáková"})
	cb := startSignIn(t, b, "/audit")
	res := b.get("/auth/callback?"+cb.Encode()).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/audit" {
		t.Errorf("after sign-in: %q", loc)
	}
	b.get("/audit").expect(t, http.StatusOK).contains(t, "Hana Horáková", "Personalista")

	// The code and the flow are single use.
	b.get("/auth/callback?"+cb.Encode()).expect(t, http.StatusBadRequest).contains(t, "Přihlaste se prosím znovu")

	// Sign-out: the provider has no end-session endpoint, so back to /login.
	res = b.post("/logout", nil).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/login" {
		t.Errorf("after sign-out: %q", loc)
	}
	b.get("/audit").expect(t, http.StatusSeeOther)
}

func TestOIDCSignInRefusals(t *testing.T) {
	env, prov := oidcEnv(t)
	company := env.Company("Acme", "free")

	t.Run("state mismatch", func(t *testing.T) {
		b := newBrowser(t, env.Server.URL)
		prov.SignInNext(oidctest.User{Subject: uuid.NewString(), Email: "a@acme.test", CompanyID: company.String(), Role: "admin"})
		cb := startSignIn(t, b, "/")
		cb.Set("state", "forged")
		b.get("/auth/callback?"+cb.Encode()).expect(t, http.StatusBadRequest).contains(t, "could not confirm your sign-in")
		if b.cookie("konvoj_session") != "" {
			t.Error("session set despite a forged state")
		}
	})
	t.Run("nonce mismatch", func(t *testing.T) {
		b := newBrowser(t, env.Server.URL)
		prov.SignInNext(oidctest.User{Subject: uuid.NewString(), Email: "a@acme.test", CompanyID: company.String(), Role: "admin"})
		res := b.get("/auth/login").expect(t, http.StatusFound)
		authURL, _ := url.Parse(res.Header.Get("Location"))
		q := authURL.Query()
		q.Set("nonce", "replayed")
		authURL.RawQuery = q.Encode()
		res = b.get(authURL.String()).expect(t, http.StatusFound)
		cb, _ := url.Parse(res.Header.Get("Location"))
		b.get("/auth/callback?"+cb.RawQuery).expect(t, http.StatusBadRequest).contains(t, "could not confirm your sign-in")
	})
	t.Run("unknown company", func(t *testing.T) {
		b := newBrowser(t, env.Server.URL)
		prov.SignInNext(oidctest.User{Subject: uuid.NewString(), Email: "a@x.test", CompanyID: uuid.NewString(), Role: "admin"})
		cb := startSignIn(t, b, "/")
		b.get("/auth/callback?"+cb.Encode()).expect(t, http.StatusForbidden).contains(t, "Your company is not registered in Konvoj")
		if b.cookie("konvoj_session") != "" {
			t.Error("session set for an unknown company")
		}
	})
	t.Run("no company claim", func(t *testing.T) {
		b := newBrowser(t, env.Server.URL)
		prov.SignInNext(oidctest.User{Subject: uuid.NewString(), Email: "a@x.test"})
		cb := startSignIn(t, b, "/")
		b.get("/auth/callback?"+cb.Encode()).expect(t, http.StatusForbidden).contains(t, "not assigned to a company")
	})
	t.Run("provider error", func(t *testing.T) {
		b := newBrowser(t, env.Server.URL)
		startSignIn(t, b, "/")
		b.get("/auth/callback?error=access_denied&state=x").expect(t, http.StatusBadRequest).contains(t, "did not sign you in")
	})
}
