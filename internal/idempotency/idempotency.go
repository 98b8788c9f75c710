// Package idempotency keeps the first response to an API POST sent with an
// Idempotency-Key (docs/idempotency.md), per company and key, for 24 hours,
// so that a client may retry a POST after a timeout without doing the
// change twice. The web middleware (web/idempotency.go) is its one user;
// a River job purges expired keys.
package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
)

// TTL is how long a key and its response are kept.
const TTL = 24 * time.Hour

// Margin is how much longer than the longest request a key stays running
// before a repeat may take it over: a commit sent just before a request's
// deadline has landed long before.
const Margin = 5 * time.Minute

// AbandonedAfter is how long a first request's key stays running before a
// repeat takes it over, when no request under a key runs longer than
// longest (the web middleware holds each one to the longest request
// deadline). By then the first request can no longer change anything, so
// the repeat cannot do the change a second time; a server that stopped in
// the middle of a request leaves its key running for this long.
func AbandonedAfter(longest time.Duration) time.Duration { return longest + Margin }

// MaxKeyLength is the longest key accepted.
const MaxKeyLength = 255

// ValidKey reports whether a key is 1–255 printable ASCII characters
// (space through tilde).
func ValidKey(k string) bool {
	if len(k) < 1 || len(k) > MaxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// Request is the identity of a request under a key.
type Request struct {
	CompanyID uuid.UUID
	UserID    uuid.UUID
	// Role is the caller's role: a kept answer is replayed only to the
	// same user with the same role.
	Role   string
	Key    string
	Method string
	Path   string
	// Claim is a token the caller makes fresh for each request (uuid.New):
	// the key holds the claim of the request that started it, and Finish
	// and Forget act only while it does, so a request whose key was taken
	// over can neither store an answer under it nor release it.
	Claim uuid.UUID
}

// State is what Begin found for a key.
type State int

const (
	// Started: the key is new (or expired, or abandoned); the caller runs
	// the request and then calls Finish or Forget.
	Started State = iota
	// Running: the first request with the key has not finished.
	Running
	// Done: the key has a stored response.
	Done
)

// Stored is a finished request's identity and response.
type Stored struct {
	UserID      *uuid.UUID
	Role        string
	Method      string
	Path        string
	RequestHash string
	Status      int
	ContentType string
	Body        []byte
}

// Store reads and writes keys on the request pool (row-level security: the
// context's company).
type Store struct {
	db *pgxpool.Pool
	// abandoned is how long a key stays running before a repeat takes it
	// over (AbandonedAfter).
	abandoned time.Duration
}

// NewStore returns a store on db whose running keys are taken over after
// abandoned (AbandonedAfter of the longest request).
func NewStore(db *pgxpool.Pool, abandoned time.Duration) *Store {
	return &Store{db: db, abandoned: abandoned}
}

// Begin claims the key for r, or reports that it runs or is done. Claiming
// is one INSERT (or, for an expired or abandoned key, one UPDATE), so of
// two concurrent requests with one key exactly one starts.
func (s *Store) Begin(ctx context.Context, r Request) (State, Stored, error) {
	for range 3 {
		tag, err := s.db.Exec(ctx, `
			INSERT INTO idempotency_keys (company_id, key, user_id, method, path, expires_at, user_role, claim)
			VALUES ($1, $2, $3, $4, $5, now() + $6::interval, $7, $8)
			ON CONFLICT (company_id, key) DO NOTHING`,
			r.CompanyID, r.Key, nullUUID(r.UserID), r.Method, r.Path, TTL.String(), r.Role, r.Claim)
		if err != nil {
			return 0, Stored{}, fmt.Errorf("claim idempotency key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return Started, Stored{}, nil
		}
		// Taken: an expired key, or a first request that never finished,
		// is taken over; otherwise it runs or is done.
		tag, err = s.db.Exec(ctx, `
			UPDATE idempotency_keys SET user_id = $3, method = $4, path = $5, request_hash = NULL, status = NULL,
				content_type = NULL, response_body = NULL, created_at = now(), expires_at = now() + $6::interval,
				user_role = $8, claim = $9
			WHERE company_id = $1 AND key = $2
				AND (expires_at <= now() OR (status IS NULL AND created_at <= now() - $7::interval))`,
			r.CompanyID, r.Key, nullUUID(r.UserID), r.Method, r.Path, TTL.String(), s.abandoned.String(), r.Role, r.Claim)
		if err != nil {
			return 0, Stored{}, fmt.Errorf("take over idempotency key: %w", err)
		}
		if tag.RowsAffected() == 1 {
			return Started, Stored{}, nil
		}
		var st Stored
		var status *int
		var hash, ctype, role *string
		err = s.db.QueryRow(ctx, `
			SELECT user_id, user_role, method, path, request_hash, status, content_type, response_body
			FROM idempotency_keys WHERE company_id = $1 AND key = $2`, r.CompanyID, r.Key).
			Scan(&st.UserID, &role, &st.Method, &st.Path, &hash, &status, &ctype, &st.Body)
		if errors.Is(err, pgx.ErrNoRows) {
			continue // forgotten or purged meanwhile: claim again
		}
		if err != nil {
			return 0, Stored{}, fmt.Errorf("read idempotency key: %w", err)
		}
		if status == nil {
			return Running, st, nil
		}
		st.Status = *status
		if role != nil {
			st.Role = *role
		}
		if hash != nil {
			st.RequestHash = *hash
		}
		if ctype != nil {
			st.ContentType = *ctype
		}
		return Done, st, nil
	}
	return 0, Stored{}, errors.New("claim idempotency key: the key kept changing")
}

// Finish stores the response of the request that started the key, unless
// the key was taken over meanwhile (its claim is another's).
func (s *Store) Finish(ctx context.Context, r Request, requestHash string, status int, contentType string, body []byte) error {
	if _, err := s.db.Exec(ctx, `
		UPDATE idempotency_keys SET request_hash = $3, status = $4, content_type = $5, response_body = $6
		WHERE company_id = $1 AND key = $2 AND claim = $7 AND status IS NULL`,
		r.CompanyID, r.Key, requestHash, status, contentType, body, r.Claim); err != nil {
		return fmt.Errorf("store idempotent response: %w", err)
	}
	return nil
}

// Forget releases a key whose request ended without a response worth
// keeping (a server error): a retry runs the request again. A key taken
// over meanwhile is the other request's and stays.
func (s *Store) Forget(ctx context.Context, r Request) error {
	if _, err := s.db.Exec(ctx, `DELETE FROM idempotency_keys WHERE company_id = $1 AND key = $2 AND claim = $3 AND status IS NULL`,
		r.CompanyID, r.Key, r.Claim); err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	return nil
}

// Purge deletes the expired keys of every company; the job runs it on the
// owner's pool.
func Purge(ctx context.Context, db postgres.DBTX) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM idempotency_keys WHERE expires_at <= now()`)
	if err != nil {
		return 0, fmt.Errorf("purge expired idempotency keys: %w", err)
	}
	return tag.RowsAffected(), nil
}

func nullUUID(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}
