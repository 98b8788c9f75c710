package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestClaimRules: the claim rules of docs/permissions.md that a probe found
// trusted too far: an unknown current role does not fall back to the
// earlier roles array, an unverified e-mail links no driver record, and a
// header with crit is refused.
func TestClaimRules(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	drvCreate(t, admin, map[string]any{"first_name": "Petr", "last_name": "Svoboda", "email": "petr@example.cz"})
	claims := func(role, email string) jwt.MapClaims {
		return jwt.MapClaims{"sub": uuid.NewString(), "email": email, "exp": time.Now().Add(time.Hour).Unix(),
			"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": role}}
	}

	c := claims("superadmin", "boss@example.cz")
	c["roles"] = []string{"admin"}
	env.WithToken(env.Sign(c)).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
	if n := len(env.WithToken(env.Sign(c)).Get("/api/v0/drivers").JSON()["data"].([]any)); n != 0 {
		t.Errorf("unknown role with roles [admin] sees %d drivers, want none (an unlinked driver)", n)
	}

	count := func(c jwt.MapClaims) int {
		return len(env.WithToken(env.Sign(c)).Get("/api/v0/drivers").Expect(http.StatusOK).JSON()["data"].([]any))
	}
	verified := claims("driver", "petr@example.cz")
	verified["email_verified"] = true
	unverified := claims("driver", "petr@example.cz")
	unverified["email_verified"] = false
	if n := count(verified); n != 1 {
		t.Errorf("verified driver sees %d drivers, want its own", n)
	}
	if n := count(unverified); n != 0 {
		t.Errorf("unverified driver sees %d drivers, want none", n)
	}
	if n := count(claims("driver", "petr@example.cz")); n != 1 {
		t.Errorf("driver without email_verified sees %d drivers, want its own", n)
	}

	tok := jwt.NewWithClaims(jwt.SigningMethodHS256, claims("admin", "a@example.cz"))
	tok.Header["crit"] = []string{"exp"}
	raw, err := tok.SignedString([]byte(webtest.Secret))
	if err != nil {
		t.Fatal(err)
	}
	env.WithToken(raw).Get("/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
	plain, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, claims("admin", "a@example.cz")).SignedString([]byte(webtest.Secret))
	env.WithToken(plain).Get("/api/v0/drivers").Expect(http.StatusOK)
}
