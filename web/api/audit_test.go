package api_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

func TestOpenAPIServedWithoutToken(t *testing.T) {
	env := webtest.New(t)
	doc := env.Anonymous().Get("/api/v0/openapi.json").Expect(http.StatusOK).JSON()
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi version %v", doc["openapi"])
	}
}

func TestAuditLogPermissionsAndPlannedPaths(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	env.As(company, auth.RoleAdmin).Get("/api/v0/audit-logs?per_page=500").Expect(http.StatusOK)
	env.As(company, auth.RoleHRManager).Get("/api/v0/audit-logs").Expect(http.StatusOK)
	for _, r := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
		env.As(company, r).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
	}
	env.Anonymous().Get("/api/v0/audit-logs").ExpectError(http.StatusUnauthorized, "Unauthorized")
	env.As(company, auth.RoleAdmin).Get("/api/v0/orders").ExpectError(http.StatusNotImplemented, "NotImplemented")
}
