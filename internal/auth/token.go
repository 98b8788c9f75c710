package auth

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"golang.org/x/time/rate"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/expiring"
)

// Leeway is the clock skew tolerated on exp and iat (docs/permissions.md).
const Leeway = 30 * time.Second

// Identity is what a verified token (or OIDC ID token) says about the caller,
// before the company and user are looked up.
type Identity struct {
	Subject   string
	Email     string
	CompanyID string
	Role      Role
	FirstName string
	LastName  string
	// EmailUnverified: the token says email_verified false, so the e-mail
	// links the caller to no driver record (docs/permissions.md).
	EmailUnverified bool
}

// ErrNoCompany marks an identity without a company id (401).
var ErrNoCompany = errors.New("token has no company id")

// VerifierConfig configures token verification.
type VerifierConfig struct {
	Alg           string // HS256, RS256 or ES256
	Secret        string // HS256
	PublicKeyFile string // RS256/ES256 PEM
	JWKSURL       string // RS256/ES256 key set, refetched on an unknown kid
	Issuer        string
	Audience      string
}

// Verifier checks bearer tokens strictly: the header algorithm must equal the
// configured one, exp is required, iat may not be in the future, aud/iss
// must match when configured.
type Verifier struct {
	alg     string
	keyFunc jwt.Keyfunc
	parser  *jwt.Parser
	now     func() time.Time

	// verified holds the identities of tokens verified in the last
	// VerifiedTTL, by the token's exact text: a token seen again within
	// that time (most API clients send the same token for many requests)
	// is not checked and parsed again (docs/security.md, "Tokens").
	mu       sync.RWMutex
	verified map[string]verifiedToken
}

// VerifiedTTL is how long a verified token is taken again without a new
// check of its signature and claims; never past its exp.
const VerifiedTTL = 5 * time.Second

// maxVerified bounds the verified tokens kept: when full, the expired go,
// and if none had, all.
const maxVerified = 10_000

type verifiedToken struct {
	id    Identity
	until time.Time
}

// NewVerifier builds a verifier; with a JWKS URL it starts a background
// refresh bound to ctx.
func NewVerifier(ctx context.Context, cfg VerifierConfig) (*Verifier, error) {
	v := &Verifier{alg: cfg.Alg, now: time.Now, verified: map[string]verifiedToken{}}
	switch cfg.Alg {
	case "HS256":
		if cfg.Secret == "" {
			return nil, errors.New("HS256 needs a secret")
		}
		secret := []byte(cfg.Secret)
		v.keyFunc = func(*jwt.Token) (any, error) { return secret, nil }
	case "RS256", "ES256":
		switch {
		case cfg.JWKSURL != "":
			kf, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{cfg.JWKSURL}, keyfunc.Override{
				// A rotated key (unknown kid) triggers a refetch at most every
				// 10 s, and a request never waits long for it.
				RefreshUnknownKID: rate.NewLimiter(rate.Every(10*time.Second), 1),
				RateLimitWaitMax:  200 * time.Millisecond,
				HTTPTimeout:       5 * time.Second,
			})
			if err != nil {
				return nil, fmt.Errorf("jwks %s: %w", cfg.JWKSURL, err)
			}
			v.keyFunc = kf.KeyfuncCtx(ctx)
		case cfg.PublicKeyFile != "":
			key, err := loadPublicKey(cfg.Alg, cfg.PublicKeyFile)
			if err != nil {
				return nil, err
			}
			v.keyFunc = func(*jwt.Token) (any, error) { return key, nil }
		default:
			return nil, fmt.Errorf("%s needs a public key file or a JWKS URL", cfg.Alg)
		}
	default:
		return nil, fmt.Errorf("unsupported JWT algorithm %q", cfg.Alg)
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods([]string{cfg.Alg}),
		jwt.WithLeeway(Leeway),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithTimeFunc(func() time.Time { return v.now() }),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

func loadPublicKey(alg, path string) (crypto.PublicKey, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read public key: %w", err)
	}
	if alg == "RS256" {
		k, err := jwt.ParseRSAPublicKeyFromPEM(pem)
		if err != nil {
			return nil, fmt.Errorf("parse RSA public key %s: %w", path, err)
		}
		return k, nil
	}
	k, err := jwt.ParseECPublicKeyFromPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("parse EC public key %s: %w", path, err)
	}
	return k, nil
}

// Verify checks a raw token and returns its identity. Every failure is the
// same 401 "Invalid token" to the caller; the cause is wrapped for logs.
//
// A token verified less than VerifiedTTL ago, and not yet past its exp,
// gives the identity it gave then without a new check: the same text
// signed by the same key says the same thing. A failure is never kept.
func (v *Verifier) Verify(raw string) (Identity, error) {
	now := v.now()
	v.mu.RLock()
	e, ok := v.verified[raw]
	v.mu.RUnlock()
	if ok && now.Before(e.until) {
		return e.id, nil
	}
	id, exp, err := v.verify(raw)
	if err != nil {
		return Identity{}, err
	}
	until := now.Add(VerifiedTTL)
	if exp.Before(until) {
		until = exp
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	expiring.MakeRoom(v.verified, maxVerified, func(e verifiedToken) bool { return !now.Before(e.until) })
	v.verified[raw] = verifiedToken{id: id, until: until}
	return id, nil
}

// verify checks the token's signature and claims, and returns its
// identity and expiry.
func (v *Verifier) verify(raw string) (Identity, time.Time, error) {
	claims := jwt.MapClaims{}
	tok, err := v.parser.ParseWithClaims(raw, claims, v.keyFunc)
	if err == nil && tok.Header["crit"] != nil {
		// No header extension is understood here, so a token that marks
		// one critical is refused (RFC 7515 §4.1.11).
		err = errors.New("token header has crit")
	}
	if err != nil || !tok.Valid {
		return Identity{}, time.Time{}, apperr.Wrap(err, apperr.KindUnauthorized, "msg.auth.invalid_token")
	}
	id, err := IdentityFromClaims(claims)
	if err != nil {
		return Identity{}, time.Time{}, apperr.Wrap(err, apperr.KindUnauthorized, "msg.auth.invalid_token")
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil { // the parser requires exp: not reached
		return Identity{}, time.Time{}, apperr.Wrap(errors.New("token has no exp"), apperr.KindUnauthorized, "msg.auth.invalid_token")
	}
	return id, exp.Time, nil
}

// IdentityFromClaims maps both claim layouts of docs/permissions.md to an Identity:
// current (app_metadata.company_id, user_metadata.role) and earlier
// (top-level company_id, roles array). A missing or unknown role is driver.
func IdentityFromClaims(claims map[string]any) (Identity, error) {
	id := Identity{
		Subject:   str(claims["sub"]),
		Email:     strings.TrimSpace(str(claims["email"])),
		FirstName: str(claims["given_name"]),
		LastName:  str(claims["family_name"]),
	}
	if id.Subject == "" {
		return Identity{}, errors.New("token has no sub")
	}
	appMeta, _ := claims["app_metadata"].(map[string]any)
	userMeta, _ := claims["user_metadata"].(map[string]any)

	id.CompanyID = str(appMeta["company_id"])
	if id.CompanyID == "" {
		id.CompanyID = str(claims["company_id"])
	}
	if id.CompanyID == "" {
		return Identity{}, ErrNoCompany
	}

	// The current layout's role, when it names one, decides alone: an
	// unknown one is driver, with no fallback to the earlier layout's roles.
	id.Role = RoleDriver
	if raw := str(userMeta["role"]); raw != "" {
		if r, ok := ParseRole(raw); ok {
			id.Role = r
		}
	} else if list, ok := claims["roles"].([]any); ok {
		id.Role = firstKnownRole(list)
	}
	switch v := claims["email_verified"].(type) {
	case bool:
		id.EmailUnverified = !v
	case string:
		id.EmailUnverified = strings.EqualFold(v, "false")
	}
	if id.FirstName == "" && id.LastName == "" {
		id.FirstName = str(userMeta["first_name"])
		id.LastName = str(userMeta["last_name"])
	}
	if id.FirstName == "" && id.LastName == "" {
		if name := str(claims["name"]); name != "" {
			id.FirstName, id.LastName, _ = strings.Cut(name, " ")
		}
	}
	return id, nil
}

// firstKnownRole picks, from the earlier layout's roles array, the highest
// role in the order admin, hr_manager, accountant, dispatcher, driver.
func firstKnownRole(list []any) Role {
	have := map[Role]bool{}
	for _, v := range list {
		if r, ok := ParseRole(str(v)); ok {
			have[r] = true
		}
	}
	for _, r := range Roles {
		if have[r] {
			return r
		}
	}
	return RoleDriver
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// UserID is the user's id: the subject when it is a UUID (docs/permissions.md),
// else a UUID derived from it, so any provider's subject works.
func (id Identity) UserID() uuid.UUID {
	if u, err := uuid.Parse(id.Subject); err == nil {
		return u
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("konvoj:sub:"+id.Subject))
}
