// Command loadbench is `make bench` (docs/performance.md). For each data
// set, in a database of its own, it:
//
//  1. seeds the set (konvoj seed-scale) and picks K fixed requests per read
//     endpoint (K different drivers, or K search terms);
//  2. captures exactly the SQL statements each of those requests runs, with
//     their arguments, by running the product in-process (app.New, the same
//     wiring as `konvoj serve`) on pools with a recording query tracer, and
//     writes one pgbench script per request, the arguments as typed literals;
//  3. starts the konvoj binary and, at each concurrency, drives every
//     endpoint alone with wrk over its K requests, and right after it
//     replays the K scripts with pgbench at the same concurrency, as the
//     server's request role and company: API req/s against SQL replays/s,
//     per endpoint;
//  4. saves CPU and allocation profiles of the server (PPROF_ADDR) over the
//     single-record endpoints' runs and prints their top functions;
//  5. runs the realistic mix, and times the rating of the set's first
//     company for a month (the monthly job's work): the past month, stored
//     before, and a month rated for the first time (timeMonthlyRating).
//
// With -explain it stops after step 2 and prints EXPLAIN (ANALYZE, BUFFERS)
// of the list endpoints' statements instead (docs/query-plans.md).
//
// Usage (see scripts/bench.sh): loadbench -db ADMIN_URL -bin ./bin/konvoj
// [-sets 10x2000:500,1x20000:20] [-conns 8,32] [-duration 10s] [-requests 20]
// [-out data/bench] [-doc docs/performance.md] [-explain] [-only REGEXP]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/rating"
)

// secret signs the benchmark's tokens; the server is started with it.
const secret = "loadbench-secret-0123456789abcdef-0123456789"

type options struct {
	adminURL, bin, out, doc string
	sets                    []dataSet
	conns                   []int
	duration, mixDuration   time.Duration
	k, profileSeconds       int
	mix, explain, bare      bool
	only                    *regexp.Regexp // endpoints to run (nil: all)
}

func main() {
	var (
		o             options
		sets, conns   string
		only          string
		adminFallback = os.Getenv("DATABASE_URL")
	)
	flag.StringVar(&o.adminURL, "db", adminFallback, "PostgreSQL URL allowed to CREATE DATABASE; each data set gets a database of its own on that server")
	flag.StringVar(&o.bin, "bin", "./bin/konvoj", "the konvoj binary")
	flag.StringVar(&sets, "sets", "10x2000:500,1x20000:20", "data sets: COMPANIESxDRIVERS[:TRANSACTIONS per driver], comma-separated")
	flag.StringVar(&conns, "conns", "8,32", "concurrencies (wrk connections = pgbench clients), comma-separated")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "length of each endpoint's wrk run and of each pgbench replay")
	flag.DurationVar(&o.mixDuration, "mix-duration", 30*time.Second, "length of the realistic mix")
	flag.BoolVar(&o.mix, "mix", true, "run the realistic mix")
	flag.BoolVar(&o.bare, "bare", true, "after each single-record endpoint's replay, drive a bare server (net/http and pgx running the same statements, bare.go) with wrk: the measured floor")
	flag.BoolVar(&o.explain, "explain", false, "only EXPLAIN (ANALYZE, BUFFERS) the list endpoints' SQL as the request role (into -out/<set>/plans), no load runs")
	flag.IntVar(&o.k, "requests", 20, "K: fixed requests per endpoint (different drivers or search terms)")
	flag.IntVar(&o.profileSeconds, "profile-seconds", 10, "length of the CPU and allocation profiles (at most the single-record runs' total)")
	flag.StringVar(&o.out, "out", "data/bench", "folder for the pgbench scripts and the profiles")
	flag.StringVar(&o.doc, "doc", "", "write the results between this document's bench:begin and bench:end markers (docs/performance.md)")
	flag.StringVar(&only, "only", "", "run only the endpoints whose name matches this regular expression (an A/B of one endpoint); the monthly rating is timed only without it")
	flag.Parse()
	err := func() error {
		var err error
		if o.sets, err = parseSets(sets); err != nil {
			return err
		}
		for _, c := range strings.Split(conns, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(c))
			if err != nil || n < 1 {
				return fmt.Errorf("-conns %q: want positive integers", conns)
			}
			o.conns = append(o.conns, n)
		}
		if o.k < 1 {
			return errors.New("-requests must be at least 1")
		}
		if only != "" {
			if o.only, err = regexp.Compile(only); err != nil {
				return fmt.Errorf("-only: %w", err)
			}
		}
		return run(o)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.adminURL == "" {
		return errors.New("-db (or DATABASE_URL) is required")
	}
	for _, tool := range []string{"wrk", "pgbench", "go"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (scripts/bench.sh installs wrk and pgbench)", tool)
		}
	}
	// Like with like: the server may hold as many database sessions as
	// pgbench runs clients, so unless DATABASE_MAX_CONNS says otherwise it
	// gets the largest concurrency (its default, max(8, 4 × cores), is 8
	// here: 32 requests would queue for 8 sessions while pgbench ran 32).
	poolNote := " (from the environment)"
	if os.Getenv("DATABASE_MAX_CONNS") == "" {
		os.Setenv("DATABASE_MAX_CONNS", fmt.Sprint(slices.Max(o.conns)))
		poolNote = " (the largest -conns: as many sessions as pgbench has clients)"
	}
	// The request pool's size, as the server will read it.
	cfg, err := config.Load(func(k string) string {
		if k == "DATABASE_MAX_CONNS" {
			return os.Getenv(k)
		}
		if k == "JWT_SECRET" {
			return secret
		}
		return ""
	})
	if err != nil {
		return err
	}
	ctx := context.Background()
	host := machine() + "; " + postgresMemory(ctx, o.adminURL)
	fmt.Printf("Machine: %s.\n", host)
	fmt.Printf("Server pool: DATABASE_MAX_CONNS=%d%s.\n", cfg.DatabaseMaxConns, poolNote)
	var report strings.Builder
	fmt.Fprintf(&report, "Machine: %s. Server pool DATABASE_MAX_CONNS=%d%s.\n", host, cfg.DatabaseMaxConns, poolNote)
	for _, set := range o.sets {
		section, err := runSet(ctx, o, set)
		if err != nil {
			return fmt.Errorf("data set %s: %w", set, err)
		}
		report.WriteString("\n" + section)
	}
	if o.doc != "" {
		if err := writeDoc(o.doc, report.String()); err != nil {
			return err
		}
		fmt.Println("written into", o.doc)
	}
	return nil
}

// runSet measures one data set and returns its part of the report.
func runSet(ctx context.Context, o options, set dataSet) (string, error) {
	var rep strings.Builder
	say := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		fmt.Print(s)
		rep.WriteString(s)
	}
	fmt.Printf("\n== data set %s (database %s)\n", set, set.database())
	dbURL, seedTook, err := prepareSet(ctx, o.adminURL, o.bin, set)
	if err != nil {
		return "", err
	}
	work, err := os.MkdirTemp("", "konvoj-loadbench-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(work)
	outDir := filepath.Join(o.out, fmt.Sprintf("%dx%d", set.Companies, set.Drivers))
	if err := os.RemoveAll(outDir); err != nil {
		return "", err
	}

	system, err := postgres.OpenSystem(ctx, dbURL, nil)
	if err != nil {
		return "", err
	}
	defer system.Close()
	fx, err := loadFixtures(ctx, system, work, o.k)
	if err != nil {
		return "", err
	}
	say("### %s\n\nData: %s (14 documents each, penalties, orders, 12 months of ratings); seed check %s. Company %s, %d requests per endpoint.\n",
		set, set, seedTook.Round(time.Second), fx.company, len(fx.sample))

	// Capture each endpoint's K requests and write their pgbench scripts.
	endpoints := readEndpoints(fx)
	if o.only != nil {
		endpoints = slices.DeleteFunc(endpoints, func(e endpointDef) bool { return !o.only.MatchString(e.Name) })
		if len(endpoints) == 0 {
			return "", fmt.Errorf("-only %q matches no endpoint", o.only)
		}
	}
	capt, err := newCapturer(ctx, dbURL, work, fx.token)
	if err != nil {
		return "", err
	}
	lit := newLiteralizer()
	type prepared struct {
		def        endpointDef
		paths      []string
		scripts    []string
		texts      []string
		statements float64
		replayable string
		plans      replayPlans
		prepared   []string // statements the replay prepares (reused plans)
		captured   []*captured
	}
	var eps []prepared
	for _, e := range endpoints {
		p := prepared{def: e}
		for i := range fx.sample {
			p.paths = append(p.paths, e.Path(i))
		}
		got, err := capt.captureEndpoint(p.paths)
		if err != nil {
			capt.close()
			return "", fmt.Errorf("capture %s: %w", e.Name, err)
		}
		texts := make([]string, len(got))
		n := 0
		for i, g := range got {
			n += len(g.Statements)
			plans, err := g.plans()
			if err == nil && i > 0 && plans != p.plans {
				err = fmt.Errorf("%s: planned %s, %s: %s", got[0].Path, p.plans, g.Path, plans)
			}
			if err != nil {
				capt.close()
				return "", fmt.Errorf("capture %s: %w", e.Name, err)
			}
			p.plans = plans
			if g.Copies > 0 {
				p.replayable = "the read runs COPY"
			}
			var names []string
			if texts[i], names, err = script(ctx, system, lit, g, !o.explain); err != nil {
				capt.close()
				return "", fmt.Errorf("script for %s: %w", e.Name, err)
			}
			for _, n := range names {
				if !slices.Contains(p.prepared, n) {
					p.prepared = append(p.prepared, n)
				}
			}
			texts[i] = "-- GET " + g.Path + "\n" + texts[i]
		}
		p.statements = float64(n) / float64(len(got))
		p.texts, p.captured = texts, got
		if p.scripts, err = writeScripts(filepath.Join(outDir, "sql", slug(e.Name)), texts); err != nil {
			capt.close()
			return "", err
		}
		eps = append(eps, p)
	}
	capt.close()
	fmt.Printf("pgbench scripts (one per captured request) in %s\n", filepath.Join(outDir, "sql"))
	if o.explain {
		// The lists' plans: they run on custom plans in the server.
		replay, err := replayURL(dbURL, fx.company, customPlans)
		if err != nil {
			return "", err
		}
		var names []string
		var scripts [][]string
		for _, p := range eps {
			if !p.def.Single {
				names = append(names, p.def.Name)
				scripts = append(scripts, p.texts)
			}
		}
		return rep.String(), explainLists(ctx, replay, filepath.Join(outDir, "plans"), names, scripts)
	}

	// The server.
	started := time.Now()
	srv, err := startServer(o.bin, dbURL, work)
	if err != nil {
		return "", err
	}
	defer srv.stop()
	if err := waitStartWork(ctx, system, started); err != nil {
		return "", err
	}
	// The start-up refresh rewrote every company's current month: its
	// vacuum would otherwise run during the first endpoints' runs.
	settled, err := settle(ctx, system)
	if err != nil {
		return "", err
	}
	fmt.Printf("before the runs, the database settled: %s\n", settled)
	peak := watchPeak(srv.cmd.Process.Pid)
	prof := profiler{addr: srv.pprof, dir: filepath.Join(outDir, "profiles"), bin: o.bin}

	for ci, conns := range o.conns {
		runs := make([]endpointRun, len(eps))
		fmt.Printf("wrk %-42s %d conns, %s\n", floorPath, conns, o.duration)
		floor := endpointRun{Name: "GET " + floorPath + " (no SQL)"}
		floor.APICPU.Machine, floor.APICPU.Server = measure(srv.cmd.Process.Pid, func() {
			floor.API = runWrkPaths(work, srv.base, fx.token, floor.Name, []string{floorPath}, conns, o.duration)
		})
		floor.APICPU.Load, floor.APICPU.Count = floor.API.CPU, floor.API.Requests
		var wait func() []profileFile
		for i, p := range eps {
			if ci == 0 && p.def.Single && wait == nil {
				singles := 0
				for _, q := range eps[i:] {
					if q.def.Single {
						singles++
					}
				}
				secs := min(o.profileSeconds, singles*max(1, int(o.duration.Seconds())))
				fmt.Printf("profiling the server for %d s over the single-record endpoints' runs\n", secs)
				wait = prof.start(fmt.Sprintf("single-record-c%d", conns), secs)
			}
			fmt.Printf("wrk %-42s %d conns, %s\n", p.def.Name, conns, o.duration)
			runs[i] = endpointRun{Name: p.def.Name, Statements: p.statements, Replayable: p.replayable, Plans: p.plans}
			before, err := scrapeLatency(srv.base)
			if err != nil {
				return "", err
			}
			runs[i].APICPU.Machine, runs[i].APICPU.Server = measure(srv.cmd.Process.Pid, func() {
				runs[i].API = runWrkPaths(work, srv.base, fx.token, p.def.Name, p.paths, conns, o.duration)
			})
			after, err := scrapeLatency(srv.base)
			if err != nil {
				return "", err
			}
			runs[i].Handler = after.since(before)
			runs[i].APICPU.Load, runs[i].APICPU.Count = runs[i].API.CPU, runs[i].API.Requests
			if p.replayable != "" {
				continue
			}
			// The replay follows its endpoint's run at once: on a shared
			// machine whose speed drifts over minutes, the two halves of a
			// ratio are measured under the same conditions.
			fmt.Printf("pgbench %-38s %d clients, %s\n", p.def.Name, conns, o.duration)
			runs[i].SQLCPU.Machine, _ = measure(srv.cmd.Process.Pid, func() {
				runs[i].SQL = runPgbench(dbURL, fx.company, p.plans, p.prepared, p.scripts, conns, o.duration)
			})
			runs[i].SQLCPU.Load, runs[i].SQLCPU.Count = runs[i].SQL.CPU, runs[i].SQL.Count
			if o.bare && p.def.Single {
				fmt.Printf("wrk %-42s %d conns, %s, bare server\n", p.def.Name, conns, o.duration)
				runs[i].Bare, runs[i].BareCPU = bareRun(ctx, work, fx.token, dbURL, fx.company, p.def.Name, p.captured, conns, o.duration)
			}
		}
		var profiles []profileFile
		if wait != nil {
			profiles = wait()
		}
		say("\n%s", renderEndpoints(runs, conns, o.duration, len(fx.sample)))
		say("\n%s", renderCPU(runs, floor, conns))
		for _, f := range profiles {
			if f.Err == nil {
				fmt.Printf("\nprofile saved: %s\n", f.Path)
			}
			fmt.Print(prof.top(f, 15))
		}
	}

	if o.mix {
		results := make([]wrkResult, len(realisticMix))
		done := make(chan struct{})
		for i, part := range realisticMix {
			go func() {
				results[i] = runWrkMix(work, srv.base, fx.token, part, o.mixDuration)
				done <- struct{}{}
			}()
		}
		for range realisticMix {
			<-done
		}
		say("\n%s", renderMix(results, o.mixDuration, peak.max()))
	}

	// The monthly job's work for the past month, on the set's first
	// company, timed alone: the server and its background jobs (the
	// current month's refresh) are stopped first.
	srv.stop()
	if o.only != nil {
		return rep.String(), nil
	}
	settled, err = settle(ctx, system)
	if err != nil {
		return "", err
	}
	months, err := timeMonthlyRating(ctx, system, fx.company)
	if err != nil {
		return "", err
	}
	say("\n%sBefore it, the database settled: %s.\n", months, settled)
	return rep.String(), nil
}

// floorPath is the server's cheapest answer, which runs no SQL: its run
// prices an HTTP exchange on the machine (renderCPU).
const floorPath = "/healthz"

// settleLimit bounds settle's wait for autovacuum.
const settleLimit = 3 * time.Minute

// settle lets the database finish what was written before a measurement
// (the server's start-up work before the endpoints' runs; the mix's
// uploads and the refreshes before the timed monthly rating): a
// CHECKPOINT writes out the dirtied pages, and settle then waits, up to
// settleLimit, until no autovacuum worker is at work in the database.
// Timed right after the runs, the rating shared the cores and the disk
// with both (docs/performance.md, "Rating a month"). It returns what it
// waited for, in words.
func settle(ctx context.Context, db *pgxpool.Pool) (string, error) {
	start := time.Now()
	if _, err := db.Exec(ctx, `CHECKPOINT`); err != nil {
		return "", fmt.Errorf("checkpoint before measuring: %w", err)
	}
	checkpoint := time.Since(start)
	for {
		var vacuums int
		if err := db.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE backend_type = 'autovacuum worker' AND datname = current_database()`).Scan(&vacuums); err != nil {
			return "", fmt.Errorf("autovacuum workers at work: %w", err)
		}
		waited := time.Since(start) - checkpoint
		if vacuums == 0 {
			return fmt.Sprintf("a CHECKPOINT (%.1f s), then %.0f s until no autovacuum worker was at work", checkpoint.Seconds(), waited.Seconds()), nil
		}
		if waited > settleLimit {
			return fmt.Sprintf("a CHECKPOINT (%.1f s), and %d autovacuum workers still at work after %.0f s", checkpoint.Seconds(), vacuums, waited.Seconds()), nil
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// timeMonthlyRating times rating the company for a month
// (docs/performance.md, "Rating a month"):
//
//   - the past month, as the monthly job finds it: stored by the current
//     month's refresh (a month the seed wrote, which this code never rated,
//     is rated once untimed first, so that every run measures the same),
//     on a new database session and then again on the same session: a new
//     session pays once for what it touches first (docs/performance.md, "A
//     new database session");
//   - a month rated for the first time, nothing of it stored (the first
//     refresh of a month does that): the month before the oldest stored,
//     removed again afterwards with the previous_score it gave the month
//     after it, so that the set stays as seeded.
func timeMonthlyRating(ctx context.Context, db *pgxpool.Pool, company uuid.UUID) (string, error) {
	y, m, _ := time.Now().UTC().AddDate(0, -1, 0).Date()
	past := rating.MonthOf(y, m)
	var unrated bool
	if err := db.QueryRow(ctx, `SELECT EXISTS (SELECT FROM rating_snapshots
		WHERE company_id = $1 AND rating_period = $2 AND component_rows_digest IS NULL)`, company, past.First()).Scan(&unrated); err != nil {
		return "", fmt.Errorf("check the stored month %s: %w", past, err)
	}
	if unrated {
		if _, err := rating.NewService(db).RateCompany(ctx, company, past); err != nil {
			return "", fmt.Errorf("rate company %s for %s: %w", company, past, err)
		}
	}
	// One session of its own, opened after the untimed run above.
	cfg := db.Config()
	cfg.MaxConns, cfg.MinConns = 1, 0
	session, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("open a session to time the rating: %w", err)
	}
	defer session.Close()
	svc := rating.NewService(session)
	timed := func(month rating.Period) (int, time.Duration, error) {
		start := time.Now()
		n, err := svc.RateCompany(ctx, company, month)
		if err != nil {
			return 0, 0, fmt.Errorf("rate company %s for %s: %w", company, month, err)
		}
		return n, time.Since(start), nil
	}
	n, newSession, err := timed(past)
	if err != nil {
		return "", err
	}
	_, sameSession, err := timed(past)
	if err != nil {
		return "", err
	}

	var oldest time.Time
	if err := db.QueryRow(ctx, `SELECT min(rating_period) FROM rating_snapshots WHERE company_id = $1`, company).Scan(&oldest); err != nil {
		return "", fmt.Errorf("oldest rated month: %w", err)
	}
	y, m, _ = oldest.AddDate(0, -1, 0).Date()
	first := rating.MonthOf(y, m)
	n1, fresh, err := timed(first)
	if err != nil {
		return "", err
	}
	err = postgres.InTx(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM rating_snapshots WHERE company_id = $1 AND rating_period = $2`, company, first.First()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM rating_runs WHERE company_id = $1 AND rating_period = $2`, company, first.First()); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE rating_snapshots SET previous_score = NULL WHERE company_id = $1 AND rating_period = $2`, company, first.Next().First())
		return err
	})
	if err != nil {
		return "", fmt.Errorf("remove the month %s rated for the benchmark: %w", first, err)
	}
	return fmt.Sprintf("Rating the company for a month (RateCompany, the monthly job's work), %s drivers rated: "+
		"%.2f s for %s, stored before (as the current month's refresh leaves it), on a new database session, "+
		"and %.2f s again on the same session; "+
		"%.2f s for %s, rated for the first time (%s drivers), on that session.\n",
		thousands(n), newSession.Seconds(), past, sameSession.Seconds(), fresh.Seconds(), first, thousands(n1)), nil
}

// server is the konvoj binary serving the set's database.
type server struct {
	cmd   *exec.Cmd
	base  string
	pprof string
	log   string
}

func startServer(bin, dbURL, work string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	pport, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &server{base: "http://127.0.0.1:" + port, pprof: "127.0.0.1:" + pport, log: filepath.Join(work, "server.log")}
	s.cmd = exec.Command(bin, "serve", "--no-migrate")
	// DATABASE_MAX_CONNS, when set, comes with the environment.
	s.cmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "HTTP_ADDR=127.0.0.1:"+port, "JWT_ALG=HS256", "JWT_SECRET="+secret,
		"STORAGE_LOCAL_DIR="+filepath.Join(work, "files"), "LOG_LEVEL=error", "LOG_FORMAT=json", "PPROF_ADDR="+s.pprof,
		// /metrics on the main listener, where scrapeLatency reads it,
		// whatever METRICS_ADDR the environment sets.
		"METRICS_ADDR=",
		// The benchmark measures Konvoj, not the limiter's 429s.
		"RATE_LIMIT_STORE=none")
	logf, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	if err := waitHealthy(s.base + "/readyz"); err != nil {
		s.stop()
		log, _ := os.ReadFile(s.log)
		return nil, fmt.Errorf("%w\n%s", err, log)
	}
	return s, nil
}

func (s *server) stop() {
	_ = s.cmd.Process.Kill()
	_, _ = s.cmd.Process.Wait()
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port), nil
}

func waitHealthy(url string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("server not ready within 60 s")
}

// slug is a folder name for an endpoint: "get-drivers-id-rating-past-month".
func slug(name string) string {
	s := strings.Trim(regexp.MustCompile(`[^a-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-"), "-")
	return s
}

// waitStartWork waits until the work a server starts with is over, so
// that wrk measures each endpoint alone, as pgbench replays its SQL alone.
// Elected leader a few seconds after it answers, the server enqueues the
// day's alert scan of every company (the first scan of a day renders every
// alert's e-mail) and makes every company's current-month rating refresh
// due, which the next claim (every 10 s) turns into a refresh job per
// company. A profile of the first runs showed a third of the server's CPU
// in the alert scan; the refresh of a 20,000-driver company then ran for a
// minute beside the first endpoints' wrk runs, but not beside their
// pgbench replays, which halved their API ÷ SQL.
func waitStartWork(ctx context.Context, db *pgxpool.Pool, since time.Time) error {
	start := time.Now()
	deadline := start.Add(15 * time.Minute)
	for time.Now().Before(deadline) {
		var done bool
		err := db.QueryRow(ctx, `SELECT
				EXISTS (SELECT FROM river_job WHERE kind = 'enqueue_alert_scans' AND state = 'completed' AND finalized_at >= $1)
				AND EXISTS (SELECT FROM river_job WHERE kind = 'refresh_all_ratings' AND state = 'completed' AND finalized_at >= $1)
				AND EXISTS (SELECT FROM river_job WHERE kind = 'enqueue_monthly_ratings' AND state = 'completed' AND finalized_at >= $1)
				AND NOT EXISTS (SELECT FROM rating_refresh_due WHERE due_at <= now())
				AND NOT EXISTS (SELECT FROM river_job
					WHERE kind IN ('scan_company_alerts', 'refresh_current_ratings', 'rate_company_month')
					AND state IN ('available', 'running', 'retryable', 'scheduled') AND scheduled_at <= now())`, since).Scan(&done)
		if err != nil {
			return fmt.Errorf("wait for the server's start-up work: %w", err)
		}
		if done {
			fmt.Printf("the server's start-up work (alert scan, rating refresh) took %s to finish\n", time.Since(start).Round(100*time.Millisecond))
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("the server's start-up work (alert scan, rating refresh) did not finish within 15 minutes")
}
