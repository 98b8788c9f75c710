package sessions_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/internal/tenants"
)

// clock is a test clock the service reads; tests move it.
type clock struct{ t time.Time }

func (c *clock) now() time.Time                 { return c.t }
func (c *clock) move(d time.Duration) time.Time { c.t = c.t.Add(d); return c.t }

func setup(t *testing.T) (context.Context, *pgxpool.Pool, *sessions.Service, *clock, auth.Identity, auth.Principal) {
	t.Helper()
	ctx := context.Background()
	db := pgtest.New(t)
	company := fixtures.Company(t, db)
	id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: company.String(), Role: auth.RoleHRManager}
	p, err := tenants.NewService(db).Principal(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	s := sessions.NewService(db)
	c := &clock{t: time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)}
	s.SetNow(c.now)
	return ctx, db, s, c, id, p
}

// TestSessionLifecycle: a started session is stored by its secret's hash
// only and found by the secret; a wrong secret finds nothing; a request
// keeps it alive (idle 2 h), but 12 h after sign-in it ends whatever the
// activity; ending it signs out.
func TestSessionLifecycle(t *testing.T) {
	t.Parallel()
	ctx, db, s, c, id, p := setup(t)
	secret, sess, err := s.Start(ctx, id, p, "Firefox\x00", "192.0.2.1")
	if err != nil {
		t.Fatal(err)
	}
	var stored []byte
	var secretKept bool
	if err := db.QueryRow(ctx, `SELECT token_hash, position($2::bytea IN token_hash) > 0 FROM web_sessions WHERE id = $1`,
		sess.ID, []byte(secret)).Scan(&stored, &secretKept); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(stored, sessions.Hash(secret)) || secretKept {
		t.Fatalf("stored hash %x, want %x", stored, sessions.Hash(secret))
	}
	got, err := s.Resolve(ctx, secret)
	if err != nil || got.ID != sess.ID || got.UserID != p.UserID || got.Identity.Role != auth.RoleHRManager ||
		got.Identity.CompanyID != p.CompanyID.String() || got.UserAgent != "Firefox" {
		t.Fatalf("resolve: %+v %v", got, err)
	}
	other, _, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "not base64!", other[:len(other)-2] + "AA"} {
		if _, err := s.Resolve(ctx, bad); !errors.Is(err, sessions.ErrNoSession) {
			t.Fatalf("secret %q: %v", bad, err)
		}
	}

	// Idle: a request every 1 h 59 min keeps the session; 2 h without one
	// ends it.
	c.move(sessions.IdleTimeout - time.Minute)
	if got, err := s.Resolve(ctx, secret); err != nil || !got.LastSeenAt.Equal(c.t) {
		t.Fatalf("before the idle limit: %+v %v", got.LastSeenAt, err)
	}
	// other was last seen at sign-in: 2 h later it is gone, and its row
	// with it.
	c.move(time.Minute)
	if _, err := s.Resolve(ctx, other); !errors.Is(err, sessions.ErrNoSession) {
		t.Fatalf("idle session resolved: %v", err)
	}
	var rows int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM web_sessions`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("%d rows after the idle session was found expired (%v)", rows, err)
	}

	// Absolute: active every hour, the session still ends 12 h after
	// sign-in.
	start := sess.CreatedAt
	for c.move(time.Hour).Before(start.Add(sessions.AbsoluteTimeout)) {
		if _, err := s.Resolve(ctx, secret); err != nil {
			t.Fatalf("active session at %s: %v", c.t.Sub(start), err)
		}
	}
	if _, err := s.Resolve(ctx, secret); !errors.Is(err, sessions.ErrNoSession) {
		t.Fatalf("session resolved %s after sign-in: %v", c.t.Sub(start), err)
	}

	// End: the caller's own session only.
	c.move(time.Hour)
	mine, sess2, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	theirs, _, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	p.SessionID = sess2.ID
	if err := s.End(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, mine); !errors.Is(err, sessions.ErrNoSession) {
		t.Fatalf("ended session resolved: %v", err)
	}
	if _, err := s.Resolve(ctx, theirs); err != nil {
		t.Fatalf("ending one session ended another: %v", err)
	}
}

// TestSessionsEndOnRoleChange: changing a user's role (or deactivating
// the user) ends every session of that user, whoever makes the change;
// other users' sessions stay.
func TestSessionsEndOnRoleChange(t *testing.T) {
	t.Parallel()
	ctx, db, s, _, id, p := setup(t)
	colleagueID := auth.Identity{Subject: uuid.NewString(), Email: "acc@example.test", CompanyID: id.CompanyID, Role: auth.RoleAccountant}
	colleague, err := tenants.NewService(db).Principal(ctx, colleagueID)
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	kept, _, err := s.Start(ctx, colleagueID, colleague, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// An update that does not change the role leaves the sessions.
	if _, err := db.Exec(ctx, `UPDATE users SET role = role, first_name = 'Eva' WHERE id = $1`, p.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, first); err != nil {
		t.Fatalf("an update without a role change ended the session: %v", err)
	}
	if _, err := db.Exec(ctx, `UPDATE users SET role = 'driver' WHERE id = $1`, p.UserID); err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{first, second} {
		if _, err := s.Resolve(ctx, secret); !errors.Is(err, sessions.ErrNoSession) {
			t.Fatalf("session survived a role change: %v", err)
		}
	}
	if _, err := s.Resolve(ctx, kept); err != nil {
		t.Fatalf("another user's session ended: %v", err)
	}
	if _, err := db.Exec(ctx, `UPDATE users SET is_active = false WHERE id = $1`, colleague.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Resolve(ctx, kept); !errors.Is(err, sessions.ErrNoSession) {
		t.Fatalf("session survived deactivation: %v", err)
	}
}

// TestPurge deletes exactly the expired sessions.
func TestPurge(t *testing.T) {
	t.Parallel()
	ctx, _, s, c, id, p := setup(t)
	if _, _, err := s.Start(ctx, id, p, "", ""); err != nil {
		t.Fatal(err)
	}
	c.move(sessions.IdleTimeout - time.Second)
	fresh, _, err := s.Start(ctx, id, p, "", "")
	if err != nil {
		t.Fatal(err)
	}
	c.move(time.Second)
	if n, err := s.Purge(ctx); err != nil || n != 1 {
		t.Fatalf("purged %d (%v), want 1", n, err)
	}
	if _, err := s.Resolve(ctx, fresh); err != nil {
		t.Fatalf("purge ended a live session: %v", err)
	}
}
