// Package pgtest gives each test its own fresh PostgreSQL database, cloned
// from a template that has every migration applied, so tests run in parallel
// against a real server and leave nothing behind.
//
// The server is TEST_DATABASE_URL when set (`make test` sets it, starting a
// throwaway cluster when needed), else postgres@127.0.0.1:5432.
package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/migrations"
)

// ServerURL is the admin connection URL of the test server.
func ServerURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// New creates a fresh migrated database for the test and returns a pool on
// it; both are dropped when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, _ := NewWithURL(t, nil)
	return pool
}

// NewWithURL is New that also returns the database's URL (for a server
// started as a separate process) and accepts a query tracer.
func NewWithURL(t testing.TB, tracer pgx.QueryTracer) (*pgxpool.Pool, string) {
	t.Helper()
	ctx := context.Background()
	templateOnce.Do(func() { templateName, templateErr = ensureTemplate(ctx) })
	if templateErr != nil {
		t.Fatalf("pgtest: prepare template database: %v", templateErr)
	}
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v (set TEST_DATABASE_URL or run `make test`)", redact(ServerURL()), err)
	}
	defer admin.Close(ctx)

	name := "konvoj_t_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	if err := createFromTemplate(ctx, admin, name, templateName); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	dbURL := withDatabase(ServerURL(), name)
	pool, err := postgres.OpenSystem(ctx, dbURL, tracer)
	if err != nil {
		t.Fatalf("pgtest: open %s: %v", name, err)
	}
	t.Cleanup(func() {
		pool.Close()
		c, err := pgx.Connect(context.Background(), ServerURL())
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return pool, dbURL
}

// Requests opens a request pool (postgres.OpenRequests: the request role,
// row-level security) on the database at url, closed when the test ends.
// It is the pool a server under test runs its requests on.
func Requests(t testing.TB, url string, tracer pgx.QueryTracer) *pgxpool.Pool {
	t.Helper()
	pool, err := postgres.OpenRequests(context.Background(), url, tracer, 0)
	if err != nil {
		t.Fatalf("pgtest: request pool: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// NewEmpty creates an empty database (no migrations) for the test and
// returns its URL; it is dropped when the test ends.
func NewEmpty(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", redact(ServerURL()), err)
	}
	defer admin.Close(ctx)
	name := "konvoj_e_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), ServerURL())
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return withDatabase(ServerURL(), name)
}

// ensureTemplate creates (once per migration set, across concurrently running
// test binaries) a database with every migration applied.
func ensureTemplate(ctx context.Context) (string, error) {
	h := sha256.New()
	// The job queue's schema is part of the template too (postgres.Migrate).
	h.Write([]byte("river v0.51.0"))
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		b, err := fs.ReadFile(migrations.FS, e.Name())
		if err != nil {
			return "", err
		}
		h.Write([]byte(e.Name()))
		h.Write(b)
	}
	name := "konvoj_tpl_" + hex.EncodeToString(h.Sum(nil))[:16]

	admin, err := pgx.Connect(ctx, ServerURL())
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w (set TEST_DATABASE_URL or run `make test`)", redact(ServerURL()), err)
	}
	defer admin.Close(ctx)
	// Serialise template creation between test binaries running in parallel.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(727001)"); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock(727001)") //nolint:errcheck

	var ready bool
	err = admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", name).Scan(&ready)
	if err != nil || ready {
		return name, err
	}
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	pool, err := postgres.OpenSystem(ctx, withDatabase(ServerURL(), name), nil)
	if err != nil {
		return "", err
	}
	_, err = postgres.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return "", err
	}
	// Marked as a template only once complete, so a crashed run is redone.
	if _, err := admin.Exec(ctx, "ALTER DATABASE "+name+" WITH is_template true"); err != nil {
		return "", err
	}
	return name, nil
}

// createFromTemplate retries while another session briefly holds the
// template (PostgreSQL refuses to copy a database with other connections).
func createFromTemplate(ctx context.Context, admin *pgx.Conn, name, tpl string) error {
	var err error
	for range 50 {
		_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE "+tpl)
		if err == nil || !strings.Contains(err.Error(), "is being accessed by other users") {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
	return err
}

func withDatabase(raw, db string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + db
	return u.String()
}

func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "the test database"
	}
	return u.Redacted()
}
