package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestLiveUpdatesAcrossInstances runs two `konvoj serve` on one database: a
// change made through A reaches a stream on B within a second (the commit's
// NOTIFY); SIGTERM to B ends its stream at once, and the client resumes on
// A from its last id without a gap or a repeat (docs/live-updates.md).
func TestLiveUpdatesAcrossInstances(t *testing.T) {
	bin := buildBinary(t)
	_, dbURL := pgtest.NewWithURL(t, nil)
	env := []string{"DATABASE_URL=" + dbURL}
	if _, stderr, code := runBinary(t, bin, env, "migrate"); code != 0 {
		t.Fatalf("migrate exit %d: %s", code, stderr)
	}
	out, _, _ := runBinary(t, bin, env, "tenant", "create", "--name", "Live", "--tier", "enterprise")
	company := strings.TrimSpace(out)
	const secret = "live-updates-test-secret-0123456789abcdef"
	start := func() (string, *exec.Cmd, *bytes.Buffer) {
		t.Helper()
		port := freePort(t)
		cmd := exec.Command(bin, "serve", "--no-migrate")
		cmd.Env = append(os.Environ(), append(env, "HTTP_ADDR=127.0.0.1:"+port, "JWT_SECRET="+secret,
			"STORAGE_LOCAL_DIR="+t.TempDir(), "RATE_LIMIT_STORE=none")...)
		var logs bytes.Buffer
		cmd.Stderr = &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
		base := "http://127.0.0.1:" + port
		waitHealthy(t, base+"/healthz")
		return base, cmd, &logs
	}
	a, _, _ := start()
	b, bCmd, bLogs := start()

	claims := jwt.MapClaims{"sub": uuid.NewString(), "email": "hr@example.test", "aud": "authenticated", "role": "authenticated",
		"app_metadata": map[string]any{"company_id": company}, "user_metadata": map[string]any{"role": "hr_manager"},
		"iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	auth := http.Header{"Authorization": {"Bearer " + tok}}
	create := func(base, email string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, base+"/api/v0/drivers",
			strings.NewReader(`{"first_name":"Jan","last_name":"Novák","email":"`+email+`"}`))
		req.Header = auth.Clone()
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("create driver on %s: %d", base, res.StatusCode)
		}
	}
	next := func(s *webtest.Stream, email string) webtest.Message {
		t.Helper()
		m, ok := s.Next(time.Second)
		if !ok {
			t.Fatalf("no event for %s within a second", email)
		}
		if m.Event != "driver.created" || !strings.Contains(m.Data, email) {
			t.Fatalf("got %s %s, want driver.created of %s", m.Event, m.Data, email)
		}
		return m
	}

	onB := webtest.OpenStream(t, b+"/api/v0/events", auth)
	if onB.Status != http.StatusOK {
		t.Fatalf("stream on B: %d %s", onB.Status, onB.Body)
	}
	create(a, "one@example.test")
	first := next(onB, "one@example.test")

	// SIGTERM to B: its stream ends at once, not after the shutdown's grace.
	stopped := time.Now()
	if err := bCmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-onB.Ended:
	case <-time.After(5 * time.Second):
		t.Fatalf("B's stream still open 5 s after SIGTERM; logs:\n%s", bLogs.String())
	}
	if err := bCmd.Wait(); err != nil {
		t.Fatalf("B exited with %v:\n%s", err, bLogs.String())
	}
	if d := time.Since(stopped); d > 10*time.Second {
		t.Fatalf("B took %v to stop", d)
	}

	// Missed while reconnecting, then resumed on A from the last id.
	create(a, "two@example.test")
	create(a, "three@example.test")
	h := auth.Clone()
	h.Set("Last-Event-ID", first.ID)
	onA := webtest.OpenStream(t, a+"/api/v0/events", h)
	two := next(onA, "two@example.test")
	three := next(onA, "three@example.test")
	create(a, "four@example.test")
	four := next(onA, "four@example.test")
	ids := []string{first.ID, two.ID, three.ID, four.ID}
	for i := 1; i < len(ids); i++ {
		p, _ := strconv.ParseInt(ids[i-1], 10, 64)
		n, _ := strconv.ParseInt(ids[i], 10, 64)
		if n <= p {
			t.Fatalf("ids out of order: %v", ids)
		}
	}
	if m, ok := onA.Next(500 * time.Millisecond); ok {
		t.Fatalf("an event twice or extra: %s %s", m.Event, m.Data)
	}
}
