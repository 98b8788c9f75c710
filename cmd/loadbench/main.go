// Command loadbench is `make bench`: it makes sure the scale data set
// exists, starts the konvoj server, drives it from separate wrk processes with
// a realistic mix of requests at a fixed concurrency for a fixed time, runs
// the driver list's SQL directly with pgbench at the same concurrency, and
// prints one table (and optionally writes it into the README).
//
// Usage (see Makefile): loadbench -db URL -bin ./bin/konvoj [-duration 30s]
// [-readme README.md]
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/internal/services"
)

const secret = "loadbench-secret-0123456789abcdef-0123456789"

// endpoint is one part of the mix: a wrk script and its share of the
// connections.
type endpoint struct {
	Name  string
	Conns int
	Lua   string // body of request(); helpers below are prepended
}

func main() {
	var (
		dbURL     = flag.String("db", os.Getenv("DATABASE_URL"), "PostgreSQL URL of the benchmark database")
		bin       = flag.String("bin", "./bin/konvoj", "the konvoj binary")
		duration  = flag.Duration("duration", 30*time.Second, "length of the load run")
		companies = flag.Int("companies", 10, "scale set: companies")
		perComp   = flag.Int("drivers-per-company", 2000, "scale set: drivers per company")
		readme    = flag.String("readme", "", "write the results table into this README's performance section")
	)
	flag.Parse()
	if err := run(*dbURL, *bin, *duration, *companies, *perComp, *readme); err != nil {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

func run(dbURL, bin string, duration time.Duration, companies, perComp int, readme string) error {
	if dbURL == "" {
		return errors.New("-db (or DATABASE_URL) is required")
	}
	for _, tool := range []string{"wrk", "pgbench"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (scripts/install-deps.sh --bench installs it)", tool)
		}
	}
	ctx := context.Background()
	work, err := os.MkdirTemp("", "konvoj-loadbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// 1. The data set.
	seedStart := time.Now()
	seedCmd := exec.Command(bin, "seed-scale", "--companies", fmt.Sprint(companies), "--drivers-per-company", fmt.Sprint(perComp))
	seedCmd.Env = append(os.Environ(), "DATABASE_URL="+dbURL)
	out, err := seedCmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("seed-scale: %v\n%s", err, out)
	}
	seedTook := time.Since(seedStart)
	var tail []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasPrefix(l, "seed-scale: ") && !strings.HasPrefix(l, "seed-scale:   ") {
			tail = append(tail, l)
		}
	}
	fmt.Println(strings.Join(tail, "\n"))

	var tracer lastQuery
	pool, err := postgres.Open(ctx, dbURL, &tracer)
	if err != nil {
		return err
	}
	defer pool.Close()
	fx, err := loadFixtures(ctx, pool, work)
	if err != nil {
		return err
	}

	// 2. The server.
	port, err := freePort()
	if err != nil {
		return err
	}
	base := "http://127.0.0.1:" + port
	srv := exec.Command(bin, "serve", "--no-migrate")
	srv.Env = append(os.Environ(), "DATABASE_URL="+dbURL, "HTTP_ADDR=127.0.0.1:"+port, "JWT_ALG=HS256", "JWT_SECRET="+secret,
		"STORAGE_LOCAL_DIR="+filepath.Join(work, "files"), "LOG_LEVEL=error", "LOG_FORMAT=json",
		// The benchmark measures Konvoj, not the limiter's 429s.
		"RATE_LIMIT_STORE=none")
	srvLog, _ := os.Create(filepath.Join(work, "server.log"))
	srv.Stdout, srv.Stderr = srvLog, srvLog
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _, _ = srv.Process.Wait() }()
	if err := waitHealthy(base + "/readyz"); err != nil {
		log, _ := os.ReadFile(srvLog.Name())
		return fmt.Errorf("%w\n%s", err, log)
	}

	// 3. The mix, all endpoints at once, one wrk process each.
	mix := []endpoint{
		{"GET /drivers (filters, search, sort)", 4, `
			local q = list_queries[math.random(#list_queries)]
			return get("/api/v0/drivers?" .. q)`},
		{"GET /drivers/{id}", 2, `return get("/api/v0/drivers/" .. driver())`},
		{"GET /drivers/{id}/documents", 2, `return get("/api/v0/drivers/" .. driver() .. "/documents")`},
		{"GET /drivers/{id}/finance (summary)", 2, `return get("/api/v0/drivers/" .. driver() .. "/finance?per_page=20")`},
		{"GET /drivers/{id}/penalties", 2, `return get("/api/v0/drivers/" .. driver() .. "/penalties")`},
		{"GET /drivers/{id}/rating", 2, `return get("/api/v0/drivers/" .. driver() .. "/rating")`},
		{"POST /documents/{id}/files (1 MiB)", 1, `return upload()`},
	}
	conns := 0
	for _, e := range mix {
		conns += e.Conns
	}
	fmt.Printf("\nload: %d endpoints, %d connections in all, %s, server and load generator on the same %d cores\n",
		len(mix), conns, duration, runtime.NumCPU())
	pid := srv.Process.Pid
	var peak peakMemory
	stopPeak := peak.watch(pid)
	results := make([]wrkResult, len(mix))
	var wg sync.WaitGroup
	for i, e := range mix {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runWrk(work, base, e, duration, fx)
		}()
	}
	wg.Wait()
	stopPeak()

	// 4. The list's SQL straight into PostgreSQL, same concurrency.
	pgb, err := runPgbench(ctx, pool, &tracer, dbURL, work, fx, conns, duration)
	if err != nil {
		return err
	}

	// 5. The table.
	table := render(results, pgb, peak.max(), conns, duration, seedTook, companies, perComp)
	fmt.Println()
	fmt.Println(table)
	if readme != "" {
		if err := writeReadme(readme, table); err != nil {
			return err
		}
		fmt.Println("written into", readme)
	}
	return nil
}

// fixtures are ids and tokens the load scripts pick from.
type fixtures struct {
	company   uuid.UUID
	token     string
	driverIDs []uuid.UUID
	docIDs    []uuid.UUID
	admin     auth.Principal
}

func loadFixtures(ctx context.Context, db *pgxpool.Pool, work string) (fixtures, error) {
	var fx fixtures
	err := db.QueryRow(ctx, `SELECT id FROM companies WHERE settings->>'seed' = $1 ORDER BY name LIMIT 1`, seed.ScaleMarker).Scan(&fx.company)
	if err != nil {
		return fx, fmt.Errorf("find a scale company: %w", err)
	}
	rows, err := db.Query(ctx, `SELECT id FROM drivers WHERE company_id = $1 AND deleted_at IS NULL ORDER BY internal_seq`, fx.company)
	if err != nil {
		return fx, err
	}
	fx.driverIDs, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fx, err
	}
	rows, err = db.Query(ctx, `SELECT id FROM driver_documents WHERE company_id = $1 ORDER BY id LIMIT 2000`, fx.company)
	if err != nil {
		return fx, err
	}
	fx.docIDs, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return fx, err
	}
	sub := uuid.New()
	fx.token, err = jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": sub.String(), "email": "loadbench@scale.test", "iat": time.Now().Unix(), "exp": time.Now().Add(2 * time.Hour).Unix(),
		"app_metadata": map[string]any{"company_id": fx.company.String()}, "user_metadata": map[string]any{"role": "admin"},
	}).SignedString([]byte(secret))
	if err != nil {
		return fx, err
	}
	fx.admin = auth.Principal{UserID: sub, CompanyID: fx.company, Role: auth.RoleAdmin, CompanyTimezone: "Europe/Prague"}
	var b strings.Builder
	for _, id := range fx.driverIDs {
		b.WriteString(id.String() + "\n")
	}
	if err := os.WriteFile(filepath.Join(work, "drivers.txt"), []byte(b.String()), 0o600); err != nil {
		return fx, err
	}
	b.Reset()
	for _, id := range fx.docIDs {
		b.WriteString(id.String() + "\n")
	}
	if err := os.WriteFile(filepath.Join(work, "documents.txt"), []byte(b.String()), 0o600); err != nil {
		return fx, err
	}
	// A 1 MiB PDF-looking file for uploads.
	pdf := make([]byte, 1<<20)
	copy(pdf, "%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	for i := 20; i < len(pdf); i++ {
		pdf[i] = byte('a' + rand.IntN(26))
	}
	copy(pdf[len(pdf)-6:], "%%EOF\n")
	return fx, os.WriteFile(filepath.Join(work, "upload.pdf"), pdf, 0o600)
}

// luaPrelude is shared by every wrk script: ids, auth header, helpers, and a
// done() that prints the numbers as JSON.
const luaPrelude = `
local function lines(path)
  local t = {}
  for l in io.lines(path) do t[#t + 1] = l end
  return t
end
local drivers = lines(WORK .. "/drivers.txt")
local documents = lines(WORK .. "/documents.txt")
local f = io.open(WORK .. "/upload.pdf", "rb")
local pdf = f:read("*a")
f:close()
local boundary = "konvojloadbench"
local upload_body = "--" .. boundary .. "\r\n" ..
  'Content-Disposition: form-data; name="file"; filename="scan.pdf"\r\n' ..
  "Content-Type: application/pdf\r\n\r\n" .. pdf .. "\r\n--" .. boundary .. "--\r\n"
list_queries = {
  "per_page=20",
  "per_page=50&sort_by=last_name",
  "status=active&per_page=20",
  "search=novak",
  "search=kowal&status=active,on_leave",
  "document_status=expired&per_page=20",
  "citizenship=PL,UA&sort_by=hire_date&sort_order=desc",
  "limit=20",
}
math.randomseed(os.time() + math.floor(os.clock() * 1000000))
function driver() return drivers[math.random(#drivers)] end
local headers = { ["Authorization"] = "Bearer " .. TOKEN }
function get(path) return wrk.format("GET", path, headers) end
function upload()
  local h = { ["Authorization"] = "Bearer " .. TOKEN,
    ["Content-Type"] = "multipart/form-data; boundary=" .. boundary }
  return wrk.format("POST", "/api/v0/documents/" .. documents[math.random(#documents)] .. "/files", h, upload_body)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('RESULT {"requests":%d,"duration_us":%d,"p50":%d,"p95":%d,"p99":%d,"socket_errors":%d,"status_errors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`

type wrkResult struct {
	Name                      string
	Conns                     int
	Requests                  int     `json:"requests"`
	DurationUS                int64   `json:"duration_us"`
	P50, P95, P99             float64 // microseconds
	SocketErrors, StatusError int
	Err                       string
}

func runWrk(work, base string, e endpoint, d time.Duration, fx fixtures) wrkResult {
	res := wrkResult{Name: e.Name, Conns: e.Conns}
	script := fmt.Sprintf("WORK = %q\nTOKEN = %q\n%s\nfunction request()\n%s\nend\n", work, fx.token, luaPrelude, e.Lua)
	path := filepath.Join(work, fmt.Sprintf("wrk-%x.lua", rand.Uint32()))
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		res.Err = err.Error()
		return res
	}
	cmd := exec.Command("wrk", "-t1", "-c"+fmt.Sprint(e.Conns), "-d"+fmt.Sprintf("%ds", int(d.Seconds())), "--timeout", "10s", "-s", path, base)
	out, err := cmd.CombinedOutput()
	if err != nil {
		res.Err = fmt.Sprintf("%v: %s", err, out)
		return res
	}
	m := regexp.MustCompile(`RESULT (\{.*\})`).FindSubmatch(out)
	if m == nil {
		res.Err = "no result line: " + string(out)
		return res
	}
	var raw struct {
		Requests     int     `json:"requests"`
		DurationUS   int64   `json:"duration_us"`
		P50          float64 `json:"p50"`
		P95          float64 `json:"p95"`
		P99          float64 `json:"p99"`
		SocketErrors int     `json:"socket_errors"`
		StatusErrors int     `json:"status_errors"`
	}
	if err := json.Unmarshal(m[1], &raw); err != nil {
		res.Err = err.Error()
		return res
	}
	res.Requests, res.DurationUS = raw.Requests, raw.DurationUS
	res.P50, res.P95, res.P99 = raw.P50, raw.P95, raw.P99
	res.SocketErrors, res.StatusError = raw.SocketErrors, raw.StatusErrors
	return res
}

// lastQuery is a pgx tracer that remembers the last statement and arguments.
type lastQuery struct {
	mu   sync.Mutex
	sql  string
	args []any
}

func (l *lastQuery) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	if strings.Contains(d.SQL, "FROM drivers") {
		l.sql, l.args = d.SQL, d.Args
	}
	return ctx
}

func (l *lastQuery) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

type pgbenchResult struct {
	TPS     float64
	Latency float64 // ms
}

// runPgbench captures the SQL the drivers list runs for the default list
// and replays it with pgbench at the same concurrency.
func runPgbench(ctx context.Context, pool *pgxpool.Pool, tr *lastQuery, dbURL, work string, fx fixtures, conns int, d time.Duration) (pgbenchResult, error) {
	svc := services.New(pool, services.Options{CursorKey: []byte("loadbench")}).Drivers
	company, err := fx.admin.Scope(auth.DriversRead)
	if err != nil {
		return pgbenchResult{}, err
	}
	if _, err := svc.List(ctx, fx.admin, company, drivers.ListParams{Page: 1, PerPage: 20}); err != nil {
		return pgbenchResult{}, fmt.Errorf("list drivers for pgbench: %w", err)
	}
	tr.mu.Lock()
	sql, args := tr.sql, tr.args
	tr.mu.Unlock()
	if sql == "" {
		return pgbenchResult{}, errors.New("no driver list SQL captured")
	}
	literal, err := inline(sql, args)
	if err != nil {
		return pgbenchResult{}, err
	}
	script := filepath.Join(work, "list.sql")
	if err := os.WriteFile(script, []byte(strings.Join(strings.Fields(literal), " ")+";\n"), 0o600); err != nil {
		return pgbenchResult{}, err
	}
	out, err := exec.Command("pgbench", "-n", "-c", fmt.Sprint(conns), "-j", "2", "-T", fmt.Sprint(int(d.Seconds())),
		"-f", script, dbURL).CombinedOutput()
	if err != nil {
		return pgbenchResult{}, fmt.Errorf("pgbench: %v\n%s", err, out)
	}
	var r pgbenchResult
	if m := regexp.MustCompile(`tps = ([0-9.]+)`).FindSubmatch(out); m != nil {
		r.TPS, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := regexp.MustCompile(`latency average = ([0-9.]+) ms`).FindSubmatch(out); m != nil {
		r.Latency, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if r.TPS == 0 {
		return r, fmt.Errorf("pgbench printed no tps:\n%s", out)
	}
	return r, nil
}

// inline replaces $n placeholders with SQL literals of the arguments.
func inline(sql string, args []any) (string, error) {
	var err error
	out := regexp.MustCompile(`\$(\d+)`).ReplaceAllStringFunc(sql, func(m string) string {
		n, _ := strconv.Atoi(m[1:])
		if n < 1 || n > len(args) {
			err = fmt.Errorf("placeholder %s without argument", m)
			return m
		}
		lit, e := literal(args[n-1])
		if e != nil {
			err = e
		}
		return lit
	})
	return out, err
}

func literal(v any) (string, error) {
	quote := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	switch x := v.(type) {
	case nil:
		return "NULL", nil
	case string:
		return quote(x), nil
	case uuid.UUID:
		return quote(x.String()) + "::uuid", nil
	case *uuid.UUID:
		if x == nil {
			return "NULL::uuid", nil
		}
		return quote(x.String()) + "::uuid", nil
	case int, int32, int64:
		return fmt.Sprint(x), nil
	case bool:
		return fmt.Sprint(x), nil
	case []string:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = quote(s)
		}
		return "ARRAY[" + strings.Join(parts, ",") + "]::text[]", nil
	case []uuid.UUID:
		parts := make([]string, len(x))
		for i, s := range x {
			parts[i] = quote(s.String())
		}
		return "ARRAY[" + strings.Join(parts, ",") + "]::uuid[]", nil
	case time.Time:
		return quote(x.Format(time.RFC3339Nano)), nil
	}
	return "", fmt.Errorf("cannot inline an argument of type %T", v)
}

// peakMemory samples the server's peak resident memory (VmHWM).
type peakMemory struct {
	mu  sync.Mutex
	kib int
}

func (p *peakMemory) watch(pid int) func() {
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			p.sample(pid)
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(stop); p.sample(pid) }
}

func (p *peakMemory) sample(pid int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return
	}
	if m := regexp.MustCompile(`VmHWM:\s+(\d+) kB`).FindSubmatch(b); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		p.mu.Lock()
		if n > p.kib {
			p.kib = n
		}
		p.mu.Unlock()
	}
}

func (p *peakMemory) max() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.kib
}

func render(rs []wrkResult, pgb pgbenchResult, peakKiB, conns int, d time.Duration, seedTook time.Duration, companies, perComp int) string {
	var b strings.Builder
	cpu := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`model name\s*:\s*(.+)`).FindSubmatch(info); m != nil {
			cpu = strings.TrimSpace(string(m[1]))
		}
	}
	fmt.Fprintf(&b, "Machine: %d cores (%s), PostgreSQL on the same machine; load generator (wrk) and server share the cores.\n", runtime.NumCPU(), cpu)
	fmt.Fprintf(&b, "Data: %d companies × %d drivers (14 documents each, 500 finance transactions each, penalties, orders, 12 months of ratings); the seed check took %s.\n",
		companies, perComp, seedTook.Round(time.Second))
	fmt.Fprintf(&b, "Load: %d connections in all for %s, every endpoint at once; one scale company, random drivers.\n\n", conns, d)
	b.WriteString("| endpoint | conns | req/s | p50 ms | p95 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var listRPS float64
	for i, r := range rs {
		if r.Err != "" {
			fmt.Fprintf(&b, "| %s | | | | | | failed: %s |\n", r.Name, strings.ReplaceAll(firstLine(r.Err), "|", "/"))
			continue
		}
		rps := float64(r.Requests) / (float64(r.DurationUS) / 1e6)
		if i == 0 {
			listRPS = rps
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %d |\n", r.Name, r.Conns, rps, r.P50/1000, r.P95/1000, r.P99/1000, r.SocketErrors+r.StatusError)
	}
	fmt.Fprintf(&b, "\nServer peak memory (VmHWM): %.1f MiB.\n", float64(peakKiB)/1024)
	fmt.Fprintf(&b, "Driver list SQL alone (pgbench, %d clients, %s): %.1f tps, %.2f ms average.\n", conns, d, pgb.TPS, pgb.Latency)
	if pgb.TPS > 0 && listRPS > 0 {
		fmt.Fprintf(&b, "API list throughput / raw SQL throughput: %.2f (the list endpoint shared the machine with the rest of the mix; the SQL ran alone).\n", listRPS/pgb.TPS)
	}
	return b.String()
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 80 {
		l = l[:80]
	}
	return l
}

const (
	readmeBegin = "<!-- bench:begin -->"
	readmeEnd   = "<!-- bench:end -->"
)

func writeReadme(path, table string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(raw)
	block := readmeBegin + "\n" + table + "\n_Generated by `make bench` on " + time.Now().UTC().Format("2006-01-02") + "._\n" + readmeEnd
	i, j := strings.Index(s, readmeBegin), strings.Index(s, readmeEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s markers", path, readmeBegin, readmeEnd)
	}
	s = s[:i] + block + s[j+len(readmeEnd):]
	return os.WriteFile(path, []byte(s), 0o644)
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
