package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/app"
)

// statement is one SQL statement a request ran, with its arguments.
type statement struct {
	Pool   string // "request" or "system"
	SQL    string
	Args   []any
	Reused bool // ran on a plan PostgreSQL may reuse (postgres.WithReusedPlans)
	// Batch numbers the request's batches from 1: statements with the same
	// number went to PostgreSQL together, in one round trip; 0 is a
	// statement sent alone.
	Batch int
}

// captured is what one request ran: every statement in order, and whether
// pgbench can replay it (a COPY cannot be replayed from a script).
type captured struct {
	Path       string
	Status     int
	Statements []statement
	Copies     int
	// The answer, as the bare server (bare.go) writes it again.
	ContentType string
	Body        []byte

	batches int  // batches started so far
	inBatch bool // between a batch's start and its end
}

// recorder is a pgx tracer on one of the app's pools. The capture issues
// one request at a time, with the background jobs off, so every statement
// traced between two requests belongs to the request in between.
type recorder struct {
	mu   *sync.Mutex
	cur  **captured
	pool string
}

func (r recorder) add(ctx context.Context, sql string, args []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *r.cur != nil {
		st := statement{Pool: r.pool, SQL: sql, Args: args, Reused: r.pool == "request" && postgres.PlansReused(ctx)}
		if (*r.cur).inBatch {
			st.Batch = (*r.cur).batches
		}
		(*r.cur).Statements = append((*r.cur).Statements, st)
	}
}

func (r recorder) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.add(ctx, d.SQL, d.Args)
	return ctx
}

func (r recorder) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (r recorder) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	r.batch(true)
	return ctx
}

// batch marks the start (true) or the end of a batch.
func (r recorder) batch(start bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *r.cur != nil {
		if start {
			(*r.cur).batches++
		}
		(*r.cur).inBatch = start
	}
}

func (r recorder) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	r.add(ctx, d.SQL, d.Args)
}

func (r recorder) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) { r.batch(false) }

func (r recorder) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if *r.cur != nil {
		(*r.cur).Copies++
	}
	return ctx
}

func (r recorder) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}

// capturer is the product built in-process, exactly as `konvoj serve`
// builds it (app.New), on pools that record every statement.
type capturer struct {
	app      *app.App
	requests *pgxpool.Pool
	system   *pgxpool.Pool
	token    string
	mu       sync.Mutex
	cur      *captured
}

func newCapturer(ctx context.Context, dbURL, work, token string) (*capturer, error) {
	c := &capturer{token: token}
	env := map[string]string{
		"DATABASE_URL": dbURL, "JWT_ALG": "HS256", "JWT_SECRET": secret,
		"STORAGE_LOCAL_DIR": filepath.Join(work, "capture-files"), "RATE_LIMIT_STORE": "none",
	}
	cfg, err := config.Load(func(k string) string {
		if v, ok := env[k]; ok {
			return v
		}
		return os.Getenv(k)
	})
	if err != nil {
		return nil, fmt.Errorf("capture config: %w", err)
	}
	c.system, err = postgres.OpenSystem(ctx, dbURL, recorder{&c.mu, &c.cur, "system"})
	if err != nil {
		return nil, err
	}
	c.requests, err = postgres.OpenRequests(ctx, dbURL, recorder{&c.mu, &c.cur, "request"}, 4)
	if err != nil {
		c.system.Close()
		return nil, err
	}
	verifier, err := auth.NewVerifier(ctx, auth.VerifierConfig{Alg: "HS256", Secret: secret})
	if err != nil {
		c.close()
		return nil, err
	}
	c.app, err = app.New(ctx, app.Options{Server: web.Options{
		Config: cfg, DB: c.requests, System: c.system, Verifier: verifier,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}})
	if err != nil {
		c.close()
		return nil, fmt.Errorf("capture app: %w", err)
	}
	return c, nil
}

func (c *capturer) close() {
	if c.app != nil {
		c.app.Close()
	}
	c.requests.Close()
	c.system.Close()
}

// do issues one GET through the in-process app and returns what it ran.
func (c *capturer) do(path string) *captured {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	rec := httptest.NewRecorder()
	got := &captured{Path: path}
	c.mu.Lock()
	c.cur = got
	c.mu.Unlock()
	c.app.Echo.ServeHTTP(rec, req)
	c.mu.Lock()
	c.cur = nil
	c.mu.Unlock()
	got.Status = rec.Code
	got.ContentType, got.Body = rec.Header().Get("Content-Type"), rec.Body.Bytes()
	return got
}

// captureEndpoint runs each of the endpoint's paths once to warm up (the
// first request of a user provisions its row, connections get their
// company) and then once more, recorded.
func (c *capturer) captureEndpoint(paths []string) ([]*captured, error) {
	out := make([]*captured, 0, len(paths))
	for _, p := range paths {
		if w := c.do(p); w.Status != http.StatusOK {
			return nil, fmt.Errorf("GET %s answered %d", p, w.Status)
		}
		got := c.do(p)
		if got.Status != http.StatusOK {
			return nil, fmt.Errorf("GET %s answered %d", p, got.Status)
		}
		out = append(out, got)
	}
	return out, nil
}

// plans says how the request's statements on the request pool were planned
// (replayPlans), so that the replay plans them the same way; a request whose
// statements were planned both ways cannot be replayed like with like.
func (got *captured) plans() (replayPlans, error) {
	reused, custom := 0, 0
	for _, st := range got.Statements {
		switch {
		case st.Pool != "request":
		case st.Reused:
			reused++
		default:
			custom++
		}
	}
	if reused > 0 && custom > 0 {
		return "", fmt.Errorf("%s: %d statements on reused plans and %d on custom ones", got.Path, reused, custom)
	}
	if reused > 0 {
		return reusedPlans, nil
	}
	return customPlans, nil
}

// script renders one captured request as a pgbench script: its statements
// in order, the arguments substituted as typed SQL literals. A statement of
// the request pool is prepared with its parameters once per pgbench client,
// as pgx prepares the server's once per connection, under a flag variable
// that the command line sets to 0 (-D) and the script to 1 (pgbench 15
// cannot ask whether a variable exists), and executed with its arguments as
// literals, so that PostgreSQL parses it once and plans it as it planned the
// server's: for every execution under custom plans, generic plans after five
// executions (if they are not dearer) under reused ones. Sent as text, a
// list's statement was parsed again at every run, which the server's never
// is (docs/performance.md, "What it does, per data set").
// It returns the names of the statements it prepares. With prepare false
// every statement is written as text, with its values inline (for -explain,
// which runs each statement under EXPLAIN).
func script(ctx context.Context, db *pgxpool.Pool, lit *literalizer, got *captured, prepare bool) (string, []string, error) {
	var b strings.Builder
	var names []string
	for _, st := range got.Statements {
		if st.Pool != "request" {
			b.WriteString("-- ran on the system pool (owner role) in the server\n")
		}
		if prepare && st.Pool == "request" && preparable(st.SQL) {
			name, prepare, execute, err := lit.prepared(ctx, db, strings.TrimRight(strings.TrimSpace(st.SQL), ";"), st.Args)
			if err != nil {
				return "", nil, fmt.Errorf("%s: %w", got.Path, err)
			}
			fmt.Fprintf(&b, "\\if :%s = 0\n%s;\n\\set %s 1\n\\endif\n%s;\n", name, prepare, name, execute)
			names = append(names, name)
			continue
		}
		sql, err := lit.inline(ctx, db, st.SQL, st.Args)
		if err != nil {
			return "", nil, fmt.Errorf("%s: %w", got.Path, err)
		}
		b.WriteString(strings.TrimRight(strings.TrimSpace(sql), ";"))
		b.WriteString(";\n")
	}
	return b.String(), names, nil
}

// preparable reports whether PREPARE takes the statement (not BEGIN,
// COMMIT or SET).
func preparable(sql string) bool {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return false
	}
	switch strings.ToUpper(f[0]) {
	case "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "VALUES":
		return true
	}
	return false
}
