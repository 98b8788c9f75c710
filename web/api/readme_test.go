package api_test

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestReadmeQuickstart runs the README's curl examples, in order and in one
// shell, against a real server, so the documentation cannot drift from the
// API.
func TestReadmeQuickstart(t *testing.T) {
	for _, tool := range []string{"bash", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed for the README examples (scripts/install-deps.sh installs it)", tool)
		}
	}
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "<!-- quickstart:begin -->")
	section, _, ok2 := strings.Cut(section, "<!-- quickstart:end -->")
	if !ok || !ok2 {
		t.Fatal("README has no quickstart section")
	}
	var blocks []string
	for _, part := range strings.Split(section, "```sh\n")[1:] {
		code, _, _ := strings.Cut(part, "```")
		blocks = append(blocks, code)
	}
	if len(blocks) < 4 {
		t.Fatalf("only %d examples found", len(blocks))
	}

	env := webtest.New(t)
	company := env.Company("Quickstart s.r.o.", "free")
	hr := env.As(company, auth.RoleHRManager)
	for _, email := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		hr.Post("/api/v0/drivers", map[string]any{"first_name": "Petr", "last_name": "Dvořák", "email": email}).Expect(201)
	}

	script := "set -euo pipefail\n" + strings.Join(blocks, "\n")
	cmd := exec.Command("bash", "-c", script)
	cmd.Env = append(os.Environ(), "KONVOJ="+env.Server.URL, "TOKEN="+hr.Token)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("README examples failed: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{`"internal_number": "DRV-0004"`, `"total": 4`, "DRV-0001\nDRV-0002\nDRV-0003\nDRV-0004", `"error": "ValidationError"`, `"last_name"`, `"next_due": null`} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}
