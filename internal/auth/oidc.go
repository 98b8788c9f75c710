package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// WebSignIn is the OpenID Connect authorization code flow with PKCE (S256)
// and a nonce, for the web pages. The provider is discovered on first use
// (and again after a failure), so the server starts even while the
// identity provider is briefly down.
type WebSignIn struct {
	issuer, clientID, clientSecret, redirectURL string

	mu       sync.Mutex
	provider *oidc.Provider
	endpoint string // end_session_endpoint, "" when the provider has none
}

// NewWebSignIn prepares sign-in against the issuer; redirectURL is the
// callback registered with the provider (PUBLIC_URL + /auth/callback).
func NewWebSignIn(issuer, clientID, clientSecret, redirectURL string) *WebSignIn {
	return &WebSignIn{issuer: issuer, clientID: clientID, clientSecret: clientSecret, redirectURL: redirectURL}
}

// Flow is what the browser must bring back to the callback: kept in a
// short-lived signed and encrypted cookie, never sent to the provider
// except as the state and the challenge.
type Flow struct {
	State    string `json:"s"`
	Nonce    string `json:"n"`
	Verifier string `json:"v"`
	// Next is the local path to return to after sign-in.
	Next string `json:"r"`
}

// NewFlow makes a fresh state, nonce and PKCE verifier.
func NewFlow(next string) Flow {
	return Flow{State: randomString(), Nonce: randomString(), Verifier: oauth2.GenerateVerifier(), Next: next}
}

func randomString() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand never fails on supported systems
	return base64.RawURLEncoding.EncodeToString(b)
}

func (w *WebSignIn) discover(ctx context.Context) (*oidc.Provider, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.provider != nil {
		return w.provider, nil
	}
	// The provider keeps the context for fetching keys later: detach it
	// from the request that happened to discover it, and bound every call
	// by the client's timeout instead.
	ctx = oidc.ClientContext(context.WithoutCancel(ctx), &http.Client{Timeout: 10 * time.Second})
	p, err := oidc.NewProvider(ctx, w.issuer)
	if err != nil {
		return nil, fmt.Errorf("discover OIDC issuer %s: %w", w.issuer, err)
	}
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	_ = p.Claims(&meta)
	w.provider, w.endpoint = p, meta.EndSession
	return p, nil
}

func (w *WebSignIn) oauthConfig(p *oidc.Provider) *oauth2.Config {
	return &oauth2.Config{
		ClientID: w.clientID, ClientSecret: w.clientSecret, RedirectURL: w.redirectURL,
		Endpoint: p.Endpoint(),
		Scopes:   []string{oidc.ScopeOpenID, "email", "profile"},
	}
}

// AuthCodeURL is where the browser goes to sign in.
func (w *WebSignIn) AuthCodeURL(ctx context.Context, f Flow) (string, error) {
	p, err := w.discover(ctx)
	if err != nil {
		return "", err
	}
	return w.oauthConfig(p).AuthCodeURL(f.State, oidc.Nonce(f.Nonce), oauth2.S256ChallengeOption(f.Verifier)), nil
}

// ErrSignIn marks a callback that cannot sign anyone in (bad state, a
// refused code, an ID token that does not verify).
var ErrSignIn = errors.New("sign-in failed")

// Exchange finishes the flow: it checks the state, trades the code (with
// the PKCE verifier) for tokens, verifies the ID token (signature, issuer,
// audience, expiry) and its nonce, and maps its claims with the same rules
// as an API token.
func (w *WebSignIn) Exchange(ctx context.Context, f Flow, state, code string) (Identity, error) {
	if f.State == "" || state != f.State || code == "" {
		return Identity{}, fmt.Errorf("%w: state mismatch or no code", ErrSignIn)
	}
	p, err := w.discover(ctx)
	if err != nil {
		return Identity{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	tok, err := w.oauthConfig(p).Exchange(ctx, code, oauth2.VerifierOption(f.Verifier))
	if err != nil {
		return Identity{}, fmt.Errorf("%w: code exchange: %w", ErrSignIn, err)
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return Identity{}, fmt.Errorf("%w: no id_token in the token response", ErrSignIn)
	}
	idt, err := p.Verifier(&oidc.Config{ClientID: w.clientID}).Verify(ctx, raw)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: verify id token: %w", ErrSignIn, err)
	}
	if idt.Nonce != f.Nonce {
		return Identity{}, fmt.Errorf("%w: nonce mismatch", ErrSignIn)
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return Identity{}, fmt.Errorf("%w: id token claims: %w", ErrSignIn, err)
	}
	id, err := IdentityFromClaims(claims)
	if err != nil {
		return Identity{}, fmt.Errorf("%w: %w", ErrSignIn, err)
	}
	return id, nil
}

// EndSessionURL is the provider's sign-out address (RP-initiated logout)
// returning to postLogout, or "" when the provider has none.
func (w *WebSignIn) EndSessionURL(ctx context.Context, postLogout string) string {
	if _, err := w.discover(ctx); err != nil {
		return ""
	}
	w.mu.Lock()
	end := w.endpoint
	w.mu.Unlock()
	if end == "" {
		return ""
	}
	u, err := url.Parse(end)
	if err != nil {
		return ""
	}
	q := u.Query()
	q.Set("client_id", w.clientID)
	q.Set("post_logout_redirect_uri", postLogout)
	u.RawQuery = q.Encode()
	return u.String()
}
