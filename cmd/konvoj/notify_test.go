package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestNotifyCommand: --dry-run prints what the scan would send and keeps
// nothing; without it the scan is recorded, and a second run of the same
// day sends nothing.
func TestNotifyCommand(t *testing.T) {
	bin := buildBinary(t)
	pool, dbURL := pgtest.NewWithURL(t, nil)
	f := ratingtest.New(t, pool)
	d := f.Driver(fixtures.Name("Jan", "Novák"), fixtures.Email("jan@example.test"))
	f.Document(d, "passport", "2026-06-30", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	env := []string{"DATABASE_URL=" + dbURL, "PUBLIC_URL=https://konvoj.example"}
	count := func(sql string) int {
		var n int
		if err := pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	out, stderr, code := runBinary(t, bin, env, "notify", "--company", f.Company.String(), "--date", "2026-06-16", "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "Would record 5 alert(s)") || !strings.Contains(out, "passport expiring_soon, valid until 2026-06-30") ||
		!strings.Contains(out, "--- to jan@example.test (driver_alert") || !strings.Contains(out, "https://konvoj.example/drivers/"+d.String()) {
		t.Errorf("dry run output:\n%s", out)
	}
	if n := count(`SELECT count(*) FROM alert_runs`) + count(`SELECT count(*) FROM outbox`); n != 0 {
		t.Errorf("the dry run kept %d rows", n)
	}

	if out, stderr, code = runBinary(t, bin, env, "notify", "--company", f.Company.String(), "--date", "2026-06-16"); code != 0 || !strings.Contains(out, "Wrote to the outbox 1 e-mail(s)") {
		t.Fatalf("scan: exit %d: %s\n%s", code, stderr, out)
	}
	if out, _, code = runBinary(t, bin, env, "notify", "--company", f.Company.String(), "--date", "2026-06-16"); code != 0 || !strings.Contains(out, "has run already") {
		t.Errorf("second scan: exit %d:\n%s", code, out)
	}
	if count(`SELECT count(*) FROM outbox`) != 1 {
		t.Error("the second run wrote e-mails")
	}
	if _, _, code = runBinary(t, bin, env, "notify", "--company", "acme", "--date", "2026-06-16"); code != exitUsage {
		t.Errorf("a bad company id: exit %d, want %d", code, exitUsage)
	}
	if _, _, code = runBinary(t, bin, env, "notify", "--company", f.Company.String(), "--date", "16.6.2026"); code != exitUsage {
		t.Errorf("a bad date: exit %d, want %d", code, exitUsage)
	}
}
