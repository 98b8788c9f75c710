package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
)

// A verified token is taken again without a new check for a few seconds
// (auth.VerifiedTTL), but never past its exp, and a refused token is
// refused every time.
func TestVerifiedTokenKeepsItsExpiry(t *testing.T) {
	v, err := auth.NewVerifier(context.Background(), auth.VerifierConfig{Alg: "HS256", Secret: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	clock := time.Now()
	v.SetNow(func() time.Time { return clock })
	sign := func(secret string, exp time.Time) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": "user-1", "email": "hr@example.test", "exp": exp.Unix(), "iat": clock.Unix(),
			"app_metadata":  map[string]any{"company_id": "c0ffee00-0000-4000-8000-000000000001"},
			"user_metadata": map[string]any{"role": "hr_manager"},
		}).SignedString([]byte(secret))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tok := sign("secret", clock.Add(2*time.Second))
	for range 2 {
		if id, err := v.Verify(tok); err != nil || id.Subject != "user-1" || id.Role != auth.RoleHRManager {
			t.Fatalf("fresh token: %+v %v", id, err)
		}
	}
	clock = clock.Add(2*time.Second + auth.Leeway + time.Second)
	if _, err := v.Verify(tok); apperr.KindOf(err) != apperr.KindUnauthorized {
		t.Fatalf("expired token verified before: %v, want Unauthorized", err)
	}

	forged := sign("another secret", clock.Add(time.Hour))
	for range 2 {
		if _, err := v.Verify(forged); apperr.KindOf(err) != apperr.KindUnauthorized {
			t.Fatalf("forged token: %v, want Unauthorized", err)
		}
	}
}
