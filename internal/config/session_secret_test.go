package config

import (
	"strings"
	"testing"
)

func TestSessionSecret(t *testing.T) {
	const jwtSecret = "jwt-secret-0123456789abcdef0123456789"
	tests := []struct {
		name    string
		vars    map[string]string
		want    string
		problem string
	}{
		{"derived from JWT_SECRET", map[string]string{"JWT_SECRET": jwtSecret}, jwtSecret, ""},
		{"own secret wins", map[string]string{"JWT_SECRET": jwtSecret, "SESSION_SECRET": "session-secret-0123456789abcdef0123"}, "session-secret-0123456789abcdef0123", ""},
		{"too short", map[string]string{"JWT_SECRET": jwtSecret, "SESSION_SECRET": "short"}, "", "SESSION_SECRET must be at least 32 characters"},
		{"required with OIDC and no JWT secret", map[string]string{"JWT_ALG": "RS256", "OIDC_ISSUER_URL": "https://id.example", "OIDC_CLIENT_ID": "konvoj"}, "",
			"SESSION_SECRET is required when OIDC_ISSUER_URL is set"},
		{"not needed without web sign-in", map[string]string{"JWT_ALG": "RS256", "JWT_JWKS_URL": "https://id.example/jwks"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Load(env(tt.vars))
			if tt.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tt.problem) {
					t.Fatalf("error %v, want one mentioning %q", err, tt.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.SessionSecret != tt.want {
				t.Errorf("SessionSecret = %q, want %q", c.SessionSecret, tt.want)
			}
		})
	}
	found := false
	for _, v := range Vars {
		found = found || v.Name == "SESSION_SECRET"
	}
	if !found {
		t.Error("SESSION_SECRET is not listed in Vars (konvoj serve --help)")
	}
}
