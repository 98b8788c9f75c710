package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// TestOperatorContract checks docs/operations.md from the outside: tenant create
// defaults and flags, serve --help listing every variable, and a server
// started with a short HS256 secret answering tokens of both claim layouts.
func TestOperatorContract(t *testing.T) {
	bin := buildBinary(t)
	_, dbURL := pgtest.NewWithURL(t, nil)
	env := []string{"DATABASE_URL=" + dbURL}
	if _, stderr, code := runBinary(t, bin, env, "migrate"); code != 0 {
		t.Fatalf("migrate exit %d: %s", code, stderr)
	}
	company := func(id string) (name, tier, currency, country, tz, lang string) {
		t.Helper()
		conn, err := pgx.Connect(context.Background(), dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		if err := conn.QueryRow(context.Background(), `SELECT name, subscription_tier, currency, country_code, timezone, default_language FROM companies WHERE id = $1`, id).
			Scan(&name, &tier, &currency, &country, &tz, &lang); err != nil {
			t.Fatalf("company %s: %v", id, err)
		}
		return
	}

	t.Run("tenant create defaults", func(t *testing.T) {
		out, stderr, code := runBinary(t, bin, env, "tenant", "create", "--name", "Defaults s.r.o.")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		name, tier, cur, country, tz, lang := company(strings.TrimSpace(out))
		if name != "Defaults s.r.o." || tier != "free" || cur != "CZK" || country != "CZ" || tz != "Europe/Prague" || lang != "cs" {
			t.Fatalf("defaults: %s %s %s %s %s %s", name, tier, cur, country, tz, lang)
		}
	})
	t.Run("tenant create with every flag", func(t *testing.T) {
		out, stderr, code := runBinary(t, bin, env, "tenant", "create", "--name", "Polska", "--tier", "enterprise",
			"--currency", "PLN", "--country", "PL", "--timezone", "Europe/Warsaw", "--language", "pl")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		_, tier, cur, country, tz, lang := company(strings.TrimSpace(out))
		if tier != "enterprise" || cur != "PLN" || country != "PL" || tz != "Europe/Warsaw" || lang != "pl" {
			t.Fatalf("flags: %s %s %s %s %s", tier, cur, country, tz, lang)
		}
		for _, args := range [][]string{
			{"--name", "X", "--country", "Czechia"}, {"--name", "X", "--language", "czech"}, {"--name", ""},
		} {
			out, stderr, code := runBinary(t, bin, env, append([]string{"tenant", "create"}, args...)...)
			if code != 2 || out != "" || stderr == "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
			}
		}
	})
	t.Run("serve --help lists the environment", func(t *testing.T) {
		out, _, code := runBinary(t, bin, nil, "serve", "--help")
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
		for _, v := range []string{"DATABASE_URL", "HTTP_ADDR", "PUBLIC_URL", "JWT_ALG", "JWT_SECRET", "JWT_PUBLIC_KEY_FILE", "JWT_JWKS_URL",
			"JWT_ISSUER", "JWT_AUDIENCE", "OIDC_ISSUER_URL", "OIDC_CLIENT_ID", "OIDC_CLIENT_SECRET", "AUTH_DEV_LOGIN", "STORAGE_DISK",
			"STORAGE_LOCAL_DIR", "S3_ENDPOINT", "S3_REGION", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_USE_PATH_STYLE",
			"UPLOAD_MAX_BYTES", "RATE_LIMIT_STORE", "REDIS_URL", "LOG_FORMAT", "LOG_LEVEL"} {
			if !strings.Contains(out, v) {
				t.Errorf("serve --help does not list %s", v)
			}
		}
	})
	t.Run("serve with a short secret answers both claim layouts", func(t *testing.T) {
		out, _, _ := runBinary(t, bin, env, "tenant", "create", "--name", "Served")
		companyID := strings.TrimSpace(out)
		port := freePort(t)
		const secret = "secret"
		cmd := exec.Command(bin, "serve", "--no-migrate")
		cmd.Env = append(os.Environ(), append(env, "HTTP_ADDR=127.0.0.1:"+port, "JWT_SECRET="+secret,
			"STORAGE_LOCAL_DIR="+t.TempDir(), "LOG_FORMAT=json")...)
		var logs bytes.Buffer
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		}()
		base := "http://127.0.0.1:" + port
		waitHealthy(t, base+"/healthz")
		call := func(claims jwt.MapClaims, method, path, body string) *http.Response {
			t.Helper()
			claims["exp"] = time.Now().Add(time.Hour).Unix()
			claims["iat"] = time.Now().Unix()
			tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
			if err != nil {
				t.Fatal(err)
			}
			req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tok)
			req.Header.Set("Content-Type", "application/json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res
		}
		current := jwt.MapClaims{"sub": uuid.NewString(), "email": "hr@example.test", "aud": "authenticated", "role": "authenticated",
			"app_metadata": map[string]any{"company_id": companyID}, "user_metadata": map[string]any{"role": "hr_manager"}}
		if res := call(current, "POST", "/api/v0/drivers", `{"first_name":"Jan","last_name":"Novák","email":"jan@example.test"}`); res.StatusCode != http.StatusCreated {
			t.Fatalf("create driver: %d", res.StatusCode)
		}
		earlier := jwt.MapClaims{"sub": uuid.NewString(), "email": "acc@example.test", "company_id": companyID, "roles": []string{"accountant"}}
		res := call(earlier, "GET", "/api/v0/drivers", "")
		if res.StatusCode != http.StatusOK || res.Header.Get("X-RateLimit-Limit") != "60" || res.Header.Get("X-Request-ID") == "" {
			t.Fatalf("earlier layout list: %d %v", res.StatusCode, res.Header)
		}
		if res := call(earlier, "POST", "/api/v0/drivers", `{`); res.StatusCode != http.StatusForbidden {
			t.Fatalf("accountant create with a broken body: %d, want 403", res.StatusCode)
		}
		if !strings.Contains(logs.String(), "JWT_SECRET is shorter than 32 characters") {
			t.Fatalf("no warning about the short secret:\n%s", logs.String())
		}
	})
}
