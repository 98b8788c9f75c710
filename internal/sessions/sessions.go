// Package sessions keeps the web pages' sessions as rows in PostgreSQL
// (docs/security.md, "Web sign-in and sessions"). The session cookie holds
// only a random secret; the row is found by the secret's SHA-256 hash, so
// the database never holds what a browser presents. A session ends at
// sign-out, when the person ends it from the sessions page or the API, when
// the user's role or company changes or the user is deactivated or deleted
// (a database trigger, whichever front changes the user), after IdleTimeout
// without a request, and AbsoluteTimeout after sign-in.
package sessions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
)

// Lifetimes of a session.
const (
	// IdleTimeout ends a session that made no request for this long.
	IdleTimeout = 2 * time.Hour
	// AbsoluteTimeout ends every session this long after its sign-in.
	AbsoluteTimeout = 12 * time.Hour
	// TouchEvery: last_seen_at is written at most this often per session,
	// so a run of page requests costs no write each.
	TouchEvery = time.Minute
)

// secretBytes is the length of a session secret (256 random bits).
const secretBytes = 32

// Limits of the client facts stored with a session.
const (
	maxUserAgent = 512
	maxIPAddress = 64
)

// ErrNoSession: the secret names no live session (never was one, signed
// out, ended, or expired).
var ErrNoSession = errors.New("no such session")

// Session is one signed-in browser.
type Session struct {
	ID        uuid.UUID
	CompanyID uuid.UUID
	UserID    uuid.UUID
	// Identity is what the sign-in verified; the caller's Principal is
	// resolved from it on every request.
	Identity   auth.Identity
	UserAgent  string
	IPAddress  string
	CreatedAt  time.Time
	LastSeenAt time.Time
}

// ExpiresAt is when the session ends unless a request comes first.
func (s Session) ExpiresAt() time.Time {
	idle, abs := s.LastSeenAt.Add(IdleTimeout), s.CreatedAt.Add(AbsoluteTimeout)
	if idle.Before(abs) {
		return idle
	}
	return abs
}

func (s Session) expired(now time.Time) bool { return !now.Before(s.ExpiresAt()) }

// Service stores sessions.
type Service struct {
	db  *pgxpool.Pool
	now atomic.Pointer[func() time.Time]
}

// NewService returns the sessions service on db: the request pool in the
// server (row-level security), the owner's pool in jobs and commands.
func NewService(db *pgxpool.Pool) *Service { return &Service{db: db} }

// SetNow replaces the service's clock (tests move it instead of sleeping);
// nil restores time.Now. Every timestamp the service writes or compares
// comes from it.
func (s *Service) SetNow(f func() time.Time) {
	if f == nil {
		s.now.Store(nil)
		return
	}
	s.now.Store(&f)
}

// Now is the service's clock, in UTC.
func (s *Service) Now() time.Time {
	if f := s.now.Load(); f != nil {
		return (*f)().UTC()
	}
	return time.Now().UTC()
}

// Hash is the stored form of a secret.
func Hash(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// Start stores a new session for a signed-in identity (its principal
// already resolved) and returns the secret for the cookie.
func (s *Service) Start(ctx context.Context, id auth.Identity, p auth.Principal, userAgent, ip string) (string, Session, error) {
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", Session{}, fmt.Errorf("random session secret: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw)
	now := s.Now()
	sess := Session{CompanyID: p.CompanyID, UserID: p.UserID, Identity: id, UserAgent: clean(userAgent, maxUserAgent),
		IPAddress: clean(ip, maxIPAddress), CreatedAt: now, LastSeenAt: now}
	err := s.db.QueryRow(postgres.WithCompany(ctx, p.CompanyID), `
		INSERT INTO web_sessions (company_id, user_id, token_hash, subject, email, role, first_name, last_name,
			email_unverified, user_agent, ip_address, created_at, last_seen_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)
		RETURNING id`,
		p.CompanyID, p.UserID, Hash(secret), id.Subject, id.Email, string(id.Role),
		id.FirstName, id.LastName, id.EmailUnverified, sess.UserAgent, sess.IPAddress, now,
	).Scan(&sess.ID)
	if err != nil {
		return "", Session{}, fmt.Errorf("start session of user %s: %w", p.UserID, err)
	}
	return secret, sess, nil
}

// Resolve returns the live session a cookie's secret names, or
// ErrNoSession. An expired session found here is deleted; a live one has
// its last_seen_at moved to now when it is older than TouchEvery.
func (s *Service) Resolve(ctx context.Context, secret string) (Session, error) {
	return s.resolve(ctx, secret, true)
}

// Check is Resolve without moving last_seen_at: an open live-update stream
// checks its session again and again (docs/live-updates.md), and an open
// page is not activity that keeps a session alive.
func (s *Service) Check(ctx context.Context, secret string) (Session, error) {
	return s.resolve(ctx, secret, false)
}

func (s *Service) resolve(ctx context.Context, secret string, touch bool) (Session, error) {
	if raw, err := base64.RawURLEncoding.DecodeString(secret); err != nil || len(raw) != secretBytes {
		return Session{}, ErrNoSession
	}
	// The cookie names no company: the row is found past row-level
	// security by the secret's hash, which only its holder knows.
	var (
		sess Session
		role string
	)
	err := s.db.QueryRow(ctx, `
		SELECT id, company_id, user_id, subject, email, role, first_name, last_name, email_unverified,
			user_agent, ip_address, created_at, last_seen_at
		FROM konvoj_web_session($1)`, Hash(secret),
	).Scan(&sess.ID, &sess.CompanyID, &sess.UserID, &sess.Identity.Subject, &sess.Identity.Email, &role,
		&sess.Identity.FirstName, &sess.Identity.LastName, &sess.Identity.EmailUnverified,
		&sess.UserAgent, &sess.IPAddress, &sess.CreatedAt, &sess.LastSeenAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Session{}, ErrNoSession
	}
	if err != nil {
		return Session{}, fmt.Errorf("find session: %w", err)
	}
	sess.Identity.Role = auth.Role(role)
	sess.Identity.CompanyID = sess.CompanyID.String()
	ctx = postgres.WithCompany(ctx, sess.CompanyID)
	now := s.Now()
	if sess.expired(now) {
		if _, err := s.db.Exec(ctx, `DELETE FROM web_sessions WHERE id = $1 AND company_id = $2`, sess.ID, sess.CompanyID); err != nil {
			return Session{}, fmt.Errorf("delete expired session %s: %w", sess.ID, err)
		}
		return Session{}, ErrNoSession
	}
	if touch && now.Sub(sess.LastSeenAt) >= TouchEvery {
		// Two requests at once both write: the later time wins.
		if _, err := s.db.Exec(ctx, `UPDATE web_sessions SET last_seen_at = $3
			WHERE id = $1 AND company_id = $2 AND last_seen_at < $3`, sess.ID, sess.CompanyID, now); err != nil {
			return Session{}, fmt.Errorf("touch session %s: %w", sess.ID, err)
		}
		sess.LastSeenAt = now
	}
	return sess, nil
}

// End ends the caller's own web session (sign-out). A caller without one
// (a token) ends nothing.
func (s *Service) End(ctx context.Context, p auth.Principal) error {
	if p.SessionID == uuid.Nil {
		return nil
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM web_sessions WHERE id = $1 AND company_id = $2 AND user_id = $3`,
		p.SessionID, p.CompanyID, p.UserID); err != nil {
		return fmt.Errorf("end session %s: %w", p.SessionID, err)
	}
	return nil
}

// List returns the caller's live web sessions, the most recently used
// first.
func (s *Service) List(ctx context.Context, p auth.Principal) ([]Session, error) {
	if err := mine(p); err != nil {
		return nil, err
	}
	now := s.Now()
	rows, err := s.db.Query(ctx, `
		SELECT id, company_id, user_id, user_agent, ip_address, created_at, last_seen_at
		FROM web_sessions
		WHERE company_id = $1 AND user_id = $2 AND last_seen_at > $3 AND created_at > $4
		ORDER BY last_seen_at DESC, created_at DESC, id`,
		p.CompanyID, p.UserID, now.Add(-IdleTimeout), now.Add(-AbsoluteTimeout))
	if err != nil {
		return nil, fmt.Errorf("list sessions of user %s: %w", p.UserID, err)
	}
	list, err := postgres.AppendRows(nil, rows, func(r pgx.Row, x *Session) error {
		return r.Scan(&x.ID, &x.CompanyID, &x.UserID, &x.UserAgent, &x.IPAddress, &x.CreatedAt, &x.LastSeenAt)
	})
	if err != nil {
		return nil, fmt.Errorf("list sessions of user %s: %w", p.UserID, err)
	}
	return list, nil
}

// Delete ends one of the caller's own sessions. Another user's session is
// 404, another company's 403 AccessDenied (docs/errors.md).
func (s *Service) Delete(ctx context.Context, p auth.Principal, id uuid.UUID) error {
	if _, err := loadSession(ctx, s.db, p, id); err != nil {
		return err
	}
	if _, err := s.db.Exec(ctx, `DELETE FROM web_sessions WHERE id = $1 AND company_id = $2 AND user_id = $3`,
		id, p.CompanyID, p.UserID); err != nil {
		return fmt.Errorf("end session %s: %w", id, err)
	}
	return nil
}

// DeleteOthers ends every session of the caller but its current one ("sign
// out everywhere else") and returns how many it ended. A caller without a
// web session (a token) ends them all.
func (s *Service) DeleteOthers(ctx context.Context, p auth.Principal) (int, error) {
	if err := mine(p); err != nil {
		return 0, err
	}
	tag, err := s.db.Exec(ctx, `DELETE FROM web_sessions WHERE company_id = $1 AND user_id = $2 AND id <> $3`,
		p.CompanyID, p.UserID, p.SessionID)
	if err != nil {
		return 0, fmt.Errorf("end other sessions of user %s: %w", p.UserID, err)
	}
	return int(tag.RowsAffected()), nil
}

// Purge deletes the sessions that expired (idle or absolute) and returns
// how many; the job queue runs it on the owner's pool, across companies.
func (s *Service) Purge(ctx context.Context) (int, error) {
	now := s.Now()
	tag, err := s.db.Exec(ctx, `DELETE FROM web_sessions WHERE last_seen_at <= $1 OR created_at <= $2`,
		now.Add(-IdleTimeout), now.Add(-AbsoluteTimeout))
	if err != nil {
		return 0, fmt.Errorf("purge expired sessions: %w", err)
	}
	return int(tag.RowsAffected()), nil
}

// clean makes a client-sent text storable: valid UTF-8 without control
// characters (a NUL would be a database error), at most max characters.
func clean(s string, max int) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max])
	}
	return strings.TrimSpace(s)
}
