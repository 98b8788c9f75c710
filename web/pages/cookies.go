package pages

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net/http"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/sessions"
)

// Cookie names. The sign-in flow and flash cookies are signed
// (HMAC-SHA256) and encrypted (AES-256); securecookie binds each value to
// its cookie name, so one cookie cannot be replayed as another. The session
// cookie holds only a random secret naming a row of web_sessions
// (internal/sessions). With an https PUBLIC_URL the session and CSRF
// cookies carry the __Host- prefix (cookies.name): the browser then keeps
// them only when set Secure, for path / and without a Domain, so no
// sibling subdomain can plant or overwrite them.
const (
	sessionCookie = "konvoj_session"
	flowCookie    = "konvoj_signin"
	flashCookie   = "konvoj_flash"
	langCookie    = "konvoj_lang"
	csrfCookie    = "konvoj_csrf"
	hostPrefix    = "__Host-"
)

// Lifetimes.
const (
	sessionTTL = sessions.AbsoluteTimeout
	flowTTL    = 10 * time.Minute
	flashTTL   = 5 * time.Minute
	langTTL    = 365 * 24 * time.Hour
)

// cookies encodes and decodes the app's cookies.
type cookies struct {
	flow, flash *securecookie.SecureCookie
	secure      bool
}

// newCookies derives the signing and encryption keys from the secret
// (HKDF-SHA256 with their own labels, so the keys never equal the secret,
// which may be JWT_SECRET). An empty secret gets random keys: a sign-in
// flow or a flash message then does not survive a restart, which only
// happens when no sign-in is set up.
func newCookies(secret string, secure bool) (*cookies, error) {
	raw := []byte(secret)
	if len(raw) == 0 {
		raw = make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, fmt.Errorf("random cookie secret: %w", err)
		}
	}
	hashKey, err := hkdf.Key(sha256.New, raw, nil, "konvoj web cookies: hmac", 64)
	if err != nil {
		return nil, fmt.Errorf("derive cookie signing key: %w", err)
	}
	blockKey, err := hkdf.Key(sha256.New, raw, nil, "konvoj web cookies: aes", 32)
	if err != nil {
		return nil, fmt.Errorf("derive cookie encryption key: %w", err)
	}
	mk := func(ttl time.Duration) *securecookie.SecureCookie {
		return securecookie.New(hashKey, blockKey).MaxAge(int(ttl.Seconds())).SetSerializer(securecookie.JSONEncoder{})
	}
	return &cookies{flow: mk(flowTTL), flash: mk(flashTTL), secure: secure}, nil
}

// name is the name a path-/ cookie goes by: with the __Host- prefix when
// the site is served over https.
func (k *cookies) name(base string) string {
	if k.secure {
		return hostPrefix + base
	}
	return base
}

func (k *cookies) set(c echo.Context, name, value, path string, ttl time.Duration, httpOnly bool) {
	c.SetCookie(&http.Cookie{
		Name: name, Value: value, Path: path, MaxAge: int(ttl.Seconds()), Expires: time.Now().Add(ttl),
		HttpOnly: httpOnly, Secure: k.secure, SameSite: http.SameSiteLaxMode,
	})
}

func (k *cookies) clear(c echo.Context, name, path string) {
	c.SetCookie(&http.Cookie{Name: name, Value: "", Path: path, MaxAge: -1, Expires: time.Unix(0, 0),
		HttpOnly: true, Secure: k.secure, SameSite: http.SameSiteLaxMode})
}

// setSession gives the browser the session's secret, for the session's
// absolute lifetime (the server ends it earlier when idle).
func (k *cookies) setSession(c echo.Context, secret string) {
	k.set(c, k.name(sessionCookie), secret, "/", sessionTTL, true)
}

func (k *cookies) clearSession(c echo.Context) { k.clear(c, k.name(sessionCookie), "/") }

// sessionSecret returns the secret the request's session cookie holds, ""
// when there is none.
func (k *cookies) sessionSecret(c echo.Context) string {
	ck, err := c.Cookie(k.name(sessionCookie))
	if err != nil {
		return ""
	}
	return ck.Value
}

func (k *cookies) setFlow(c echo.Context, f auth.Flow) error {
	v, err := k.flow.Encode(flowCookie, f)
	if err != nil {
		return fmt.Errorf("encode sign-in cookie: %w", err)
	}
	k.set(c, flowCookie, v, "/auth", flowTTL, true)
	return nil
}

// takeFlow returns and clears the pending sign-in flow.
func (k *cookies) takeFlow(c echo.Context) (auth.Flow, bool) {
	ck, err := c.Cookie(flowCookie)
	if err != nil {
		return auth.Flow{}, false
	}
	k.clear(c, flowCookie, "/auth")
	var f auth.Flow
	if err := k.flow.Decode(flowCookie, ck.Value, &f); err != nil {
		return auth.Flow{}, false
	}
	return f, true
}

// flashMsg is a message for the next page: an i18n key and its
// placeholder values, translated when shown.
type flashMsg struct {
	Kind string   `json:"k"`
	Key  string   `json:"m"`
	Args []string `json:"a,omitempty"`
}
