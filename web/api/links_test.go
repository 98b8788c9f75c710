package api_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestLinksUsePublicURL: page links are built from PUBLIC_URL, never from
// the request's Host header (docs/security.md).
func TestLinksUsePublicURL(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.PublicURL = "https://konvoj.example/app" }))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	for range 3 {
		env.Driver(company)
	}
	req, _ := http.NewRequest(http.MethodGet, env.Server.URL+"/api/v0/drivers?per_page=1&page=2", nil)
	req.Host = "evil.example"
	req.Header.Set("Authorization", "Bearer "+hr.Token)
	req.Header.Set("X-Forwarded-Host", "evil.example")
	req.Header.Set("X-Forwarded-Proto", "http")
	res, err := env.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var page map[string]any
	if err := json.NewDecoder(res.Body).Decode(&page); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("%d %v", res.StatusCode, err)
	}
	for _, k := range []string{"first_page_url", "last_page_url", "next_page_url", "prev_page_url", "path"} {
		v, _ := page[k].(string)
		if !strings.HasPrefix(v, "https://konvoj.example/app/api/v0/drivers") || strings.Contains(v, "evil") {
			t.Errorf("%s = %q", k, v)
		}
	}
	if res.Header.Get("Strict-Transport-Security") == "" {
		t.Error("no HSTS with an https PUBLIC_URL")
	}
}
