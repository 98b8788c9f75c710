package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// buildBinary compiles konvoj once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "konvoj")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func runBinary(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return o.String(), e.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return o.String(), e.String(), 0
}

func TestTenantCreateMigrateAndServe(t *testing.T) {
	bin := buildBinary(t)
	_, dbURL := pgtest.NewWithURL(t, nil)
	env := []string{"DATABASE_URL=" + dbURL}

	if _, stderr, code := runBinary(t, bin, env, "migrate"); code != 0 {
		t.Fatalf("migrate exit %d: %s", code, stderr)
	}

	t.Run("tenant create prints only a UUID", func(t *testing.T) {
		out, stderr, code := runBinary(t, bin, env, "tenant", "create", "--name", "Acme s.r.o.", "--tier", "starter")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if _, err := uuid.Parse(strings.TrimSpace(out)); err != nil || strings.Count(out, "\n") != 1 {
			t.Fatalf("stdout %q is not one UUID line", out)
		}
	})
	t.Run("bad values exit 2 with a clear message", func(t *testing.T) {
		for _, args := range [][]string{
			{"tenant", "create", "--name", "X", "--tier", "platinum"},
			{"tenant", "create", "--tier", "free"},
			{"tenant", "create", "--name", "X", "--timezone", "Mars/Olympus"},
			{"tenant", "create", "--name", "X", "--currency", "CZ"},
			{"tenant", "create", "--name", "X", "--bogus"},
			{"tenant", "delete"},
			{"frobnicate"},
		} {
			out, stderr, code := runBinary(t, bin, env, args...)
			if code != 2 || out != "" || stderr == "" {
				t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2, a message, no stdout", args, code, out, stderr)
			}
		}
		_, stderr, _ := runBinary(t, bin, env, "tenant", "create", "--name", "X", "--tier", "platinum")
		if !strings.Contains(stderr, "tier") {
			t.Errorf("message does not name the tier: %s", stderr)
		}
	})
	t.Run("serve rejects bad configuration with exit 2", func(t *testing.T) {
		_, stderr, code := runBinary(t, bin, append(env, "JWT_ALG=HS512", "JWT_SECRET=x", "STORAGE_DISK=ftp"), "serve")
		if code != 2 || !strings.Contains(stderr, "JWT_ALG") || !strings.Contains(stderr, "STORAGE_DISK") {
			t.Fatalf("exit %d, stderr %s", code, stderr)
		}
	})

	t.Run("serve answers, then stops gracefully on SIGTERM", func(t *testing.T) {
		out, _, _ := runBinary(t, bin, env, "tenant", "create", "--name", "Served")
		company := strings.TrimSpace(out)
		port := freePort(t)
		secret := "serve-test-secret-0123456789abcdef-xyz"
		cmd := exec.Command(bin, "serve")
		cmd.Env = append(os.Environ(), append(env, "HTTP_ADDR=127.0.0.1:"+port, "JWT_SECRET="+secret,
			"STORAGE_LOCAL_DIR="+t.TempDir(), "LOG_FORMAT=json")...)
		var logs bytes.Buffer
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		base := "http://127.0.0.1:" + port
		waitHealthy(t, base+"/healthz")
		for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
			if res, err := http.Get(base + p); err != nil || res.StatusCode != 200 {
				t.Fatalf("%s: %v %v", p, err, res)
			}
		}
		tok, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
			"sub": uuid.NewString(), "email": "admin@example.test", "exp": time.Now().Add(time.Hour).Unix(),
			"app_metadata": map[string]any{"company_id": company}, "user_metadata": map[string]any{"role": "admin"},
		}).SignedString([]byte(secret))
		req, _ := http.NewRequest("GET", base+"/api/v0/audit-logs", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("token from tenant create: %v %v", err, res)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("serve exited with %v; logs:\n%s", err, logs.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("serve did not stop within 30 s of SIGTERM")
		}
		if !strings.Contains(logs.String(), `"msg":"request"`) || !strings.Contains(logs.String(), `"request_id"`) {
			t.Fatalf("no structured request log lines:\n%s", logs.String())
		}
		if strings.Contains(logs.String(), tok) {
			t.Fatal("the token appears in the logs")
		}
	})
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

func waitHealthy(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if res, err := http.Get(url); err == nil && res.StatusCode == 200 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s not healthy within 30 s", url)
}

func TestSeedDemoIsCompleteAndIdempotent(t *testing.T) {
	bin := buildBinary(t)
	pool, dbURL := pgtest.NewWithURL(t, nil)
	env := []string{"DATABASE_URL=" + dbURL, "JWT_SECRET=seed-demo-test-secret-0123456789abcdef", "STORAGE_LOCAL_DIR=" + t.TempDir()}
	out, stderr, code := runBinary(t, bin, env, "seed-demo")
	if code != 0 {
		t.Fatalf("seed-demo exit %d: %s", code, stderr)
	}
	if _, err := uuid.Parse(strings.Split(out, "\n")[0]); err != nil || !strings.Contains(out, "hr_manager") || !strings.Contains(out, "eyJ") {
		t.Fatalf("seed-demo output lacks the company id, users or tokens:\n%s", out)
	}
	counts := func() string {
		var s string
		err := pool.QueryRow(context.Background(), `SELECT concat_ws(' ',
			(SELECT count(*) FROM companies), (SELECT count(*) FROM drivers), (SELECT count(*) FROM document_files),
			(SELECT count(*) FROM finance_transactions), (SELECT count(*) FROM penalties), (SELECT count(*) FROM orders),
			(SELECT count(*) FROM rating_snapshots), (SELECT count(*) FROM users), (SELECT count(*) FROM audit_logs))`).Scan(&s)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := counts()
	out2, stderr2, code := runBinary(t, bin, env, "seed-demo")
	if code != 0 || !strings.Contains(stderr2, "nothing changed") {
		t.Fatalf("second seed-demo: exit %d: %s", code, stderr2)
	}
	if after := counts(); after != before {
		t.Fatalf("second run changed the data: %s → %s", before, after)
	}
	if strings.Split(out, "\n")[0] != strings.Split(out2, "\n")[0] {
		t.Fatal("the two runs name different companies")
	}

	// Each demo user's subject is the id it resolves to, so signing in as
	// it (development page, printed tokens) finds it; demo users of earlier
	// versions (external_id demo:<e-mail>) are repaired by the next run.
	var mismatched int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM users WHERE external_id <> id::text`).Scan(&mismatched); err != nil || mismatched != 0 {
		t.Fatalf("%d users whose subject is not their id (%v)", mismatched, err)
	}
	if _, err := pool.Exec(context.Background(), `UPDATE users SET external_id = 'demo:' || email`); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBinary(t, bin, env, "seed-demo"); code != 0 {
		t.Fatalf("third seed-demo: exit %d: %s", code, stderr)
	}
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM users WHERE external_id <> id::text`).Scan(&mismatched); err != nil || mismatched != 0 {
		t.Fatalf("%d demo users not repaired (%v)", mismatched, err)
	}

	// Every document status, every penalty state and a rating history.
	var statuses, penaltyStates []string
	rows, _ := pool.Query(context.Background(), `SELECT DISTINCT konvoj_document_status(d.current_file_id IS NOT NULL, d.valid_until, konvoj_today('Europe/Prague'))
		FROM driver_documents d ORDER BY 1`)
	statuses, _ = pgx.CollectRows(rows, pgx.RowTo[string])
	rows, _ = pool.Query(context.Background(), `SELECT DISTINCT status FROM penalties ORDER BY 1`)
	penaltyStates, _ = pgx.CollectRows(rows, pgx.RowTo[string])
	if strings.Join(statuses, ",") != "expired,expiring_soon,no_data,valid,warning" {
		t.Errorf("document statuses: %v", statuses)
	}
	if strings.Join(penaltyStates, ",") != "accepted,cancelled,disputed,pending,resolved" {
		t.Errorf("penalty states: %v", penaltyStates)
	}
	var months int
	_ = pool.QueryRow(context.Background(), `SELECT count(DISTINCT rating_period) FROM rating_snapshots`).Scan(&months)
	if months < 6 {
		t.Errorf("rating history has %d months, want 6", months)
	}
	var names string
	_ = pool.QueryRow(context.Background(), `SELECT string_agg(last_name, ',') FROM drivers`).Scan(&names)
	for _, n := range []string{"Novák", "Wiśniewski", "Shevchenko", "Rădulescu", "Baláž"} {
		if !strings.Contains(names, n) {
			t.Errorf("no driver named %s", n)
		}
	}
}
