// Package oidctest runs an OpenID Connect provider inside a test
// (github.com/oauth2-proxy/mockoidc): discovery, authorization code flow
// with PKCE, RS256 ID tokens and a JWKS. It has no login page: each
// authorization request signs in the next queued user.
package oidctest

import (
	"encoding/json"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/oauth2-proxy/mockoidc"
)

// Provider is a running test identity provider.
type Provider struct {
	*mockoidc.MockOIDC
}

// Start runs a provider on 127.0.0.1 until the test ends.
func Start(t testing.TB) *Provider {
	t.Helper()
	m, err := mockoidc.Run()
	if err != nil {
		t.Fatalf("oidctest: start provider: %v", err)
	}
	t.Cleanup(func() { _ = m.Shutdown() })
	return &Provider{MockOIDC: m}
}

// User is a person of the provider with Konvoj's claims (the current
// layout: app_metadata.company_id, user_metadata.role).
type User struct {
	Subject   string
	Email     string
	CompanyID string
	Role      string
	FirstName string
	LastName  string
}

// SignInNext makes the next authorization request sign in u.
func (p *Provider) SignInNext(u User) { p.QueueUser(&u) }

// ID implements mockoidc.User.
func (u *User) ID() string { return u.Subject }

// Userinfo implements mockoidc.User.
func (u *User) Userinfo([]string) ([]byte, error) {
	return json.Marshal(map[string]string{"email": u.Email})
}

type claims struct {
	*mockoidc.IDTokenClaims
	Email        string         `json:"email,omitempty"`
	GivenName    string         `json:"given_name,omitempty"`
	FamilyName   string         `json:"family_name,omitempty"`
	AppMetadata  map[string]any `json:"app_metadata,omitempty"`
	UserMetadata map[string]any `json:"user_metadata,omitempty"`
}

// Claims implements mockoidc.User: the ID token carries the company and
// role where Konvoj's claim mapping looks for them.
func (u *User) Claims(_ []string, base *mockoidc.IDTokenClaims) (jwt.Claims, error) {
	c := &claims{IDTokenClaims: base, Email: u.Email, GivenName: u.FirstName, FamilyName: u.LastName}
	if u.CompanyID != "" {
		c.AppMetadata = map[string]any{"company_id": u.CompanyID}
	}
	if u.Role != "" {
		c.UserMetadata = map[string]any{"role": u.Role}
	}
	return c, nil
}
