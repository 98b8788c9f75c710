package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestDeactivatedUserIsRefused: a user whose row says is_active = false is
// refused on every request with 403 Forbidden and a message saying so,
// whatever token it brings (issue: its token still answered 200), while
// the company's other users go on.
func TestDeactivatedUserIsRefused(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	ctx := context.Background()
	company := env.Company("Acme", "free")
	hana := env.As(company, auth.RoleHRManager)
	dan := env.As(company, auth.RoleDispatcher)
	hana.Get("/api/v0/drivers").Expect(http.StatusOK)
	dan.Get("/api/v0/drivers").Expect(http.StatusOK)
	refused := func(c *webtest.Caller, path string) {
		t.Helper()
		body := c.Get(path).ExpectError(http.StatusForbidden, "Forbidden")
		if msg, _ := body["message"].(string); !strings.HasPrefix(msg, "This account is deactivated.") {
			t.Errorf("message %q", msg)
		}
	}

	// Deactivated as a change through this process is: the row, then the
	// announcement (tenants.CompanyChanged) that the cached caller is void.
	if _, err := env.DB.Exec(ctx, `UPDATE users SET is_active = false WHERE id = $1`, hana.UserID); err != nil {
		t.Fatal(err)
	}
	tenants.CompanyChanged(company)
	refused(hana, "/api/v0/drivers")
	refused(hana, "/api/v0/me/sessions")
	// A new token of hers, another role in it: refused as well, and the
	// row stays inactive.
	again := env.WithToken(env.Sign(jwt.MapClaims{
		"sub": hana.UserID.String(), "email": "hana.new@example.test",
		"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": "admin"},
	}))
	refused(again, "/api/v0/drivers")
	var (
		active bool
		role   string
	)
	if err := env.DB.QueryRow(ctx, `SELECT is_active, role FROM users WHERE id = $1`, hana.UserID).Scan(&active, &role); err != nil {
		t.Fatal(err)
	}
	if active || role != string(auth.RoleHRManager) {
		t.Errorf("user row after the refused tokens: active %v, role %s", active, role)
	}
	dan.Get("/api/v0/drivers").Expect(http.StatusOK)

	// Deactivated before this process ever resolved the user: its first
	// request is refused.
	eva := env.As(company, auth.RoleAdmin)
	if _, err := env.DB.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, role, is_active)
		VALUES ($1, $2, $3, $4, 'admin', false)`, eva.UserID, company, eva.UserID.String(), eva.Email); err != nil {
		t.Fatal(err)
	}
	refused(eva, "/api/v0/drivers")
}
