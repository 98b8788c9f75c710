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
)

// Cookie names. The session, sign-in flow and flash cookies are signed
// (HMAC-SHA256) and encrypted (AES-256); securecookie binds each value to
// its cookie name, so one cookie cannot be replayed as another.
const (
	sessionCookie = "konvoj_session"
	flowCookie    = "konvoj_signin"
	flashCookie   = "konvoj_flash"
	langCookie    = "konvoj_lang"
	csrfCookie    = "konvoj_csrf"
)

// Lifetimes.
const (
	sessionTTL = 12 * time.Hour
	flowTTL    = 10 * time.Minute
	flashTTL   = 5 * time.Minute
	langTTL    = 365 * 24 * time.Hour
)

// cookies encodes and decodes the app's cookies.
type cookies struct {
	session, flow, flash *securecookie.SecureCookie
	secure               bool
}

// newCookies derives the signing and encryption keys from the secret
// (HKDF-SHA256 with their own labels, so the keys never equal the secret,
// which may be JWT_SECRET). An empty secret gets random keys: sessions then
// end when the process does, which only happens when no sign-in is set up.
func newCookies(secret string, secure bool) (*cookies, error) {
	raw := []byte(secret)
	if len(raw) == 0 {
		raw = make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, fmt.Errorf("random session secret: %w", err)
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
	return &cookies{session: mk(sessionTTL), flow: mk(flowTTL), flash: mk(flashTTL), secure: secure}, nil
}

// session is what the session cookie holds: the verified identity (not the
// principal: that is resolved on every request, so a deleted company, a
// new driver link or a changed language apply at once).
type session struct {
	Subject   string    `json:"sub"`
	Email     string    `json:"email"`
	CompanyID string    `json:"cid"`
	Role      auth.Role `json:"role"`
	FirstName string    `json:"fn,omitempty"`
	LastName  string    `json:"ln,omitempty"`
	// Unverified: the provider said email_verified false (no driver link).
	Unverified bool `json:"uv,omitempty"`
	// Expires is checked besides the codec's timestamp so the lifetime
	// never depends on the browser honouring Max-Age.
	Expires int64 `json:"exp"`
}

func (s session) identity() auth.Identity {
	return auth.Identity{Subject: s.Subject, Email: s.Email, CompanyID: s.CompanyID, Role: s.Role, FirstName: s.FirstName, LastName: s.LastName,
		EmailUnverified: s.Unverified}
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

func (k *cookies) setSession(c echo.Context, id auth.Identity) error {
	v, err := k.session.Encode(sessionCookie, session{
		Subject: id.Subject, Email: id.Email, CompanyID: id.CompanyID, Role: id.Role,
		FirstName: id.FirstName, LastName: id.LastName, Unverified: id.EmailUnverified, Expires: time.Now().Add(sessionTTL).Unix(),
	})
	if err != nil {
		return fmt.Errorf("encode session cookie: %w", err)
	}
	k.set(c, sessionCookie, v, "/", sessionTTL, true)
	return nil
}

// getSession returns the session of the request; ok is false when there is
// none or it is expired, tampered with or made with other keys.
func (k *cookies) getSession(c echo.Context) (session, bool) {
	ck, err := c.Cookie(sessionCookie)
	if err != nil || ck.Value == "" {
		return session{}, false
	}
	var s session
	if err := k.session.Decode(sessionCookie, ck.Value, &s); err != nil {
		return session{}, false
	}
	if s.Subject == "" || time.Now().Unix() > s.Expires {
		return session{}, false
	}
	return s, true
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
