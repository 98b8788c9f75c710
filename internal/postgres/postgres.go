// Package postgres opens the connection pool, runs the embedded migrations
// under an advisory lock, and gives the one transaction helper every store
// uses.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/konvoj/konvoj/migrations"
)

// OpenSystem connects the system pool: the user of the database URL, who owns
// the tables and so is not subject to row-level security. Migrations,
// background jobs and operator commands run on it, and nothing else
// (docs/security.md, "Row-level security"); request handling uses
// OpenRequests.
func OpenSystem(ctx context.Context, url string, tracer pgx.QueryTracer) (*pgxpool.Pool, error) {
	cfg, err := poolConfig(url, tracer)
	if err != nil {
		return nil, err
	}
	return open(ctx, cfg)
}

func poolConfig(url string, tracer pgx.QueryTracer) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("parse database url: %w", err)
	}
	if tracer != nil {
		cfg.ConnConfig.Tracer = tracer
	}
	// Sessions run in UTC so timestamps come back in UTC and "now()" is unambiguous.
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// pgx prepares statements; after five runs PostgreSQL may switch to a
	// generic plan that ignores which company a query is for. Tenants differ
	// widely in size and data, and a plan made for a small company reads a
	// large one badly, so plan each execution with its values
	// (docs/operations.md, "Query plans").
	// A request that reads one record may switch its connection to reusing
	// plans (WithReusedPlans).
	cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = CustomPlans
	// No JIT compilation: the queries here are short and planned per run,
	// and a SQL function's body planned inside one (a recursive CTE is
	// estimated far above jit_above_cost) would be compiled again on every
	// execution, which costs many times what the query itself does
	// (docs/operations.md).
	cfg.ConnConfig.RuntimeParams["jit"] = "off"
	cfg.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
		registerUUID(conn)
		registerJSON(conn)
		return nil
	}
	return cfg, nil
}

func open(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database pool: %w", err)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := pool.Ping(pingCtx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("ping database: %w", err)
	}
	return pool, nil
}

// Migrate applies pending migrations. A PostgreSQL session advisory lock makes
// concurrent starts of several instances safe: one migrates, the others wait.
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return nil, fmt.Errorf("migration locker: %w", err)
	}
	// Out of order: features are built on branches, each given its
	// migration number when it starts, and land in another order (00018
	// after 00020, say). A database that already has the later ones gets the
	// earlier one applied at its next start instead of refusing to start
	// (docs/operations.md, "Migrations").
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS,
		goose.WithSessionLocker(locker), goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		return nil, fmt.Errorf("migration provider: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply migrations: %w", err)
	}
	applied := make([]string, 0, len(results))
	for _, r := range results {
		applied = append(applied, r.Source.Path)
	}
	river, err := migrateRiver(ctx, pool)
	if err != nil {
		return applied, err
	}
	return append(applied, river...), nil
}

// riverMigrationLock is the advisory lock key serialising River's schema
// migrations between instances starting at once (River takes no lock).
const riverMigrationLock = 727002

// migrateRiver applies the job queue's own schema migrations (River).
func migrateRiver(ctx context.Context, pool *pgxpool.Pool) ([]string, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("river migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", riverMigrationLock); err != nil {
		return nil, fmt.Errorf("river migrations: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", riverMigrationLock) //nolint:errcheck
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("river migrator: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("apply river migrations: %w", err)
	}
	applied := make([]string, 0, len(res.Versions))
	for _, v := range res.Versions {
		applied = append(applied, fmt.Sprintf("river/%03d_%s", v.Version, v.Name))
	}
	return applied, nil
}

// DBTX is what stores run queries on: a pool or a transaction.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
	CopyFrom(ctx context.Context, tableName pgx.Identifier, columnNames []string, rowSrc pgx.CopyFromSource) (int64, error)
}

// InTx runs fn in one transaction: committed when fn returns nil, rolled back
// otherwise (and on panic).
func InTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("commit transaction: %w", err)
	}
	return nil
}

// IsUniqueViolation reports whether err is a unique-constraint violation,
// optionally of the named constraint.
func IsUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" {
		return false
	}
	return constraint == "" || pgErr.ConstraintName == constraint
}

// IsNotFound reports whether err is pgx's no-rows error.
func IsNotFound(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// IsRowSecurityViolation reports whether err is a write refused by a
// row-level security policy (the row belongs to another company).
func IsRowSecurityViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "42501" && strings.Contains(pgErr.Message, "row-level security")
}
