package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/postgres"
)

// bareServer answers a single-record endpoint's captured requests as
// cheaply as a Go server can while doing the same database work: net/http
// and pgx alone, on a request pool connected as the server's is
// (postgres.OpenRequests, the company and plan mode set as it sets them),
// it sends each request's statements with their captured arguments in the
// same batches as the server did, reads every row without decoding it, and
// writes the answer the server gave, byte for byte. No authentication, no
// routing, no middleware, no scanning into Go values, no encoding.
//
// Its run is the measured floor of the comparison (docs/performance.md,
// "The floor"): how close to its SQL any server of this design gets on this
// machine. It runs inside loadbench, whose own processor time is then the
// bare server's (loadbench only waits for wrk meanwhile).
type bareServer struct {
	requests, system *pgxpool.Pool
	company          uuid.UUID
	byPath           map[string]*captured
	srv              *http.Server
	base             string
}

// startBare serves the captured requests on a free local port, with a
// request pool of conns connections (as the server's DATABASE_MAX_CONNS).
func startBare(ctx context.Context, dbURL string, company uuid.UUID, requests []*captured, conns int) (*bareServer, error) {
	b := &bareServer{company: company, byPath: map[string]*captured{}}
	for _, c := range requests {
		b.byPath[c.Path] = c
	}
	var err error
	if b.requests, err = postgres.OpenRequests(ctx, dbURL, nil, int32(conns)); err != nil {
		return nil, err
	}
	if b.system, err = postgres.OpenSystem(ctx, dbURL, nil); err != nil {
		b.requests.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.close()
		return nil, err
	}
	b.base = "http://" + ln.Addr().String()
	b.srv = &http.Server{Handler: http.HandlerFunc(b.serve), ReadHeaderTimeout: 10 * time.Second}
	go b.srv.Serve(ln)
	return b, nil
}

func (b *bareServer) close() {
	if b.srv != nil {
		b.srv.Close()
	}
	b.requests.Close()
	if b.system != nil {
		b.system.Close()
	}
}

func (b *bareServer) serve(w http.ResponseWriter, r *http.Request) {
	c, ok := b.byPath[r.URL.RequestURI()]
	if !ok {
		http.NotFound(w, r)
		return
	}
	if err := b.run(r.Context(), c); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", c.ContentType)
	w.Write(c.Body)
}

// run sends the request's statements as the server sent them: a batch as
// one batch, a lone statement alone, the request pool's on one connection
// acquired for the request (a transaction's statements need one).
func (b *bareServer) run(ctx context.Context, c *captured) error {
	ctx = b.requestContext(ctx, c)
	var conn *pgxpool.Conn
	defer func() {
		if conn != nil {
			conn.Release()
		}
	}()
	sts := c.Statements
	for len(sts) > 0 {
		n := 1
		for sts[0].Batch > 0 && n < len(sts) && sts[n].Batch == sts[0].Batch {
			n++
		}
		group := sts[:n]
		sts = sts[n:]
		var db postgres.DBTX = b.system
		if group[0].Pool == "request" {
			if conn == nil {
				var err error
				if conn, err = b.requests.Acquire(ctx); err != nil {
					return err
				}
			}
			db = conn
		}
		if err := send(ctx, db, group); err != nil {
			return err
		}
	}
	return nil
}

// requestContext is ctx as the server's request had it: the company, and
// the plan mode its statements ran with (captured.plans).
func (b *bareServer) requestContext(ctx context.Context, c *captured) context.Context {
	ctx = postgres.WithCompany(ctx, b.company)
	if plans, _ := c.plans(); plans == reusedPlans {
		ctx = postgres.WithReusedPlans(ctx)
	}
	return ctx
}

// send runs one group of statements: a batch (Batch > 0) in one round trip,
// else the one statement alone, and reads every row of them.
func send(ctx context.Context, db postgres.DBTX, group []statement) error {
	if group[0].Batch == 0 {
		rows, err := db.Query(ctx, group[0].SQL, group[0].Args...)
		if err != nil {
			return err
		}
		return drain(rows)
	}
	batch := &pgx.Batch{}
	for _, st := range group {
		batch.Queue(st.SQL, st.Args...)
	}
	br := db.SendBatch(ctx, batch)
	for range group {
		rows, err := br.Query()
		if err == nil {
			err = drain(rows)
		}
		if err != nil {
			br.Close()
			return err
		}
	}
	return br.Close()
}

// warm opens conns connections of the request pool at once, set to the
// company and to the plan mode of c's statements, and returns them to it.
func (b *bareServer) warm(ctx context.Context, c *captured, conns int) error {
	ctx = b.requestContext(ctx, c)
	held := make([]*pgxpool.Conn, 0, conns)
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	for range conns {
		conn, err := b.requests.Acquire(ctx)
		if err != nil {
			return err
		}
		held = append(held, conn)
	}
	return nil
}

// drain reads every row PostgreSQL sends, decoding none.
func drain(rows pgx.Rows) error {
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// bareRun drives one endpoint's requests through a bare server with wrk at
// conns connections for d, and returns wrk's result and the processor
// time (the server's being loadbench's own).
func bareRun(ctx context.Context, work, token, dbURL string, company uuid.UUID, name string, got []*captured, conns int, d time.Duration) (wrkResult, cpuUse) {
	fail := func(err error) (wrkResult, cpuUse) {
		return wrkResult{Name: name, Err: fmt.Sprintf("bare server: %v", err)}, cpuUse{}
	}
	b, err := startBare(ctx, dbURL, company, got, conns)
	if err != nil {
		return fail(err)
	}
	defer b.close()
	paths := make([]string, len(got))
	for i, c := range got {
		paths[i] = c.Path
	}
	// Every connection of the pool opened and set first, and each request
	// answered once: the run then measures what the server's run does.
	if err := b.warm(ctx, got[0], conns); err != nil {
		return fail(err)
	}
	for _, p := range paths {
		res, err := http.Get(b.base + p)
		if err != nil {
			return fail(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			return fail(fmt.Errorf("GET %s answered %s", p, res.Status))
		}
	}
	var res wrkResult
	var use cpuUse
	use.Machine, use.Server = measure(os.Getpid(), func() {
		res = runWrkPaths(work, b.base, token, name, paths, conns, d)
	})
	use.Load, use.Count = res.CPU, res.Requests
	if res.Err == "" && res.StatusErrors > 0 {
		res.Err = fmt.Sprintf("%d answers were not 2xx", res.StatusErrors)
	}
	return res, use
}
