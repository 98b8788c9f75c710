package pages_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/web/webtest"
)

// browser is an HTTP client that keeps cookies and does not follow
// redirects, so each step of a flow can be checked.
type browser struct {
	t    testing.TB
	base string
	c    *http.Client
	// Header is sent with every request (Accept-Language, HX-Request…).
	Header http.Header
}

func newBrowser(t testing.TB, base string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, base: base, Header: http.Header{}, c: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

type page struct {
	Status int
	Header http.Header
	Body   string
}

func (b *browser) do(req *http.Request) page {
	b.t.Helper()
	for k, v := range b.Header {
		req.Header[k] = v
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return page{Status: res.StatusCode, Header: res.Header, Body: string(body)}
}

func (b *browser) get(path string) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, b.abs(path), nil)
	return b.do(req)
}

// post sends a form with the CSRF token from the cookie, as the pages'
// hidden field does.
func (b *browser) post(path string, form url.Values) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if form.Get("_csrf") == "" {
		form.Set("_csrf", b.cookie("konvoj_csrf"))
	}
	return b.postRaw(path, form)
}

func (b *browser) postRaw(path string, form url.Values) page {
	b.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, b.abs(path), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

func (b *browser) abs(path string) string {
	if strings.HasPrefix(path, "http") {
		return path
	}
	return b.base + path
}

func (b *browser) cookie(name string) string {
	u, _ := url.Parse(b.base)
	for _, c := range b.c.Jar.Cookies(u) {
		if c.Name == name {
			return c.Value
		}
	}
	return ""
}

// devSignIn signs in through the development page as a new user of the
// company with the role.
func (b *browser) devSignIn(company uuid.UUID, role auth.Role, email string) page {
	b.t.Helper()
	b.get("/auth/dev") // sets the CSRF cookie
	return b.post("/auth/dev", url.Values{"company_id": {company.String()}, "role": {string(role)}, "email": {email}, "next": {"/"}})
}

func (p page) expect(t *testing.T, status int) page {
	t.Helper()
	if p.Status != status {
		t.Fatalf("status %d, want %d; body:\n%s", p.Status, status, truncate(p.Body))
	}
	return p
}

func (p page) contains(t *testing.T, texts ...string) page {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(p.Body, s) {
			t.Errorf("page does not contain %q; body:\n%s", s, truncate(p.Body))
		}
	}
	return p
}

func (p page) lacks(t *testing.T, texts ...string) page {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(p.Body, s) {
			t.Errorf("page contains %q but must not", s)
		}
	}
	return p
}

// truncate shows the page's main content, short.
func truncate(s string) string {
	if i := strings.Index(s, "<main"); i >= 0 {
		s = s[i:]
	}
	if len(s) > 1500 {
		return s[:1500] + "…"
	}
	return s
}

// devEnv is a server with the development sign-in on.
func devEnv(t *testing.T, opts ...webtest.Option) *webtest.Env {
	return webtest.New(t, append([]webtest.Option{webtest.WithConfig(func(c *config.Config) { c.AuthDevLogin = true })}, opts...)...)
}
