package main

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// endpointRun is one endpoint alone at one concurrency: wrk against the
// server, pgbench replaying the same K requests' SQL.
type endpointRun struct {
	Name       string
	Statements float64 // statements per request, averaged over the K
	Replayable string  // empty when pgbench replayed it, else why not
	Plans      replayPlans
	API        wrkResult
	Handler    histogram // the server's own latency histogram over the wrk run (latency.go)
	SQL        pgbenchResult
	APICPU     cpuUse    // processor time of the wrk run
	SQLCPU     cpuUse    // processor time of the pgbench replay
	Bare       wrkResult // the bare server's run (single-record reads; bare.go)
	BareCPU    cpuUse    // its processor time, Server being the bare server's
}

// machine describes the cores and load the numbers were taken on.
func machine() string {
	cpu := "unknown CPU"
	if info, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`model name\s*:\s*(.+)`).FindSubmatch(info); m != nil {
			cpu = strings.TrimSpace(string(m[1]))
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = ", load average " + strings.Join(strings.Fields(string(b))[:3], " ") + " at the start"
	}
	return fmt.Sprintf("%d cores (%s)%s; PostgreSQL, the server and wrk/pgbench share them", runtime.NumCPU(), cpu, load)
}

// postgresMemory says how big PostgreSQL's shared buffers are and in
// which pages the kernel maps them, read from the memory map of one of its
// sessions (so only when PostgreSQL runs on this machine): a new session
// takes a page fault for every page of them it touches first, and 2 MB huge
// pages make those 512 times fewer (docs/performance.md, "A new database
// session").
func postgresMemory(ctx context.Context, url string) string {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return "PostgreSQL's memory unknown"
	}
	defer conn.Close(ctx)
	var buffers string
	var pid int
	if err := conn.QueryRow(ctx, `SELECT current_setting('shared_buffers'), pg_backend_pid()`).Scan(&buffers, &pid); err != nil {
		return "PostgreSQL's memory unknown"
	}
	pages := "pages of a size unknown here"
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid)); err == nil {
		if size := sharedPageSize(string(b)); size != "" {
			pages = size + " pages"
		}
	}
	return fmt.Sprintf("PostgreSQL shared_buffers %s, mapped in %s", buffers, pages)
}

// sharedPageSize is the kernel page size ("2048 kB") of PostgreSQL's main
// shared memory segment in a session's /proc/PID/smaps: the shared mapping
// of /dev/zero or of an anonymous huge page file (mmap, the default), or a
// System V segment.
func sharedPageSize(smaps string) string {
	shared := false
	for line := range strings.Lines(smaps) {
		f := strings.Fields(line)
		if len(f) >= 5 && strings.Contains(f[0], "-") && len(f[1]) == 4 {
			name := strings.Join(f[5:], " ")
			shared = f[1][3] == 's' && (strings.HasPrefix(name, "/dev/zero") || strings.HasPrefix(name, "/anon_hugepage") || strings.HasPrefix(name, "/SYSV"))
			continue
		}
		if shared && len(f) == 3 && f[0] == "KernelPageSize:" {
			return f[1] + " " + f[2]
		}
	}
	return ""
}

// renderEndpoints is the like-with-like table at one concurrency.
func renderEndpoints(runs []endpointRun, conns int, d time.Duration, k int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Each endpoint alone: wrk, %d connections, %s, the same %d requests in turn; then pgbench, %d clients, %s, replaying exactly the SQL those requests ran.\n\n",
		conns, d, k, conns, d)
	b.WriteString("| endpoint | stmts/req | plans | API req/s | p50 ms | p99 ms | server p99 ms | errors | SQL replays/s | SQL avg ms | SQL p99 ms | API ÷ SQL |\n")
	b.WriteString("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range runs {
		api := "failed: " + cell(r.API.Err)
		p50, p99, errs := "", "", ""
		if r.API.Err == "" {
			api = fmt.Sprintf("%.1f", r.API.RPS())
			p50, p99 = fmt.Sprintf("%.1f", r.API.P50/1000), fmt.Sprintf("%.1f", r.API.P99/1000)
			errs = fmt.Sprint(r.API.SocketErrors + r.API.StatusErrors)
		}
		sql, sqlMs, sqlP99, ratio := "", "", "", "—"
		switch {
		case r.Replayable != "":
			sql = "n/a (" + r.Replayable + ")"
		case r.SQL.Err != "":
			sql = "failed: " + cell(r.SQL.Err)
		default:
			sql, sqlMs = fmt.Sprintf("%.1f", r.SQL.TPS), fmt.Sprintf("%.1f", r.SQL.Latency)
			if r.SQL.P99 > 0 {
				sqlP99 = fmt.Sprintf("%.1f", r.SQL.P99)
			}
			if r.API.Err == "" && r.SQL.TPS > 0 {
				ratio = fmt.Sprintf("%.2f", r.API.RPS()/r.SQL.TPS)
			}
		}
		fmt.Fprintf(&b, "| %s | %.1f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name, r.Statements, r.Plans, api, p50, p99, serverP99(r.Handler), errs, sql, sqlMs, sqlP99, ratio)
	}
	return b.String()
}

// renderCPU is where each endpoint's processor time went, per request
// and per replay of its SQL: the machine's busy time over the run, the
// server's and the load generator's shares, and the rest (PostgreSQL and
// the kernel on their behalf). Where API ÷ SQL is low, this says whether
// the server, the load generator or PostgreSQL is the difference.
//
// floor is a run of GET /healthz, which runs no SQL: what one HTTP
// exchange costs this machine, server and wrk together. A request costs
// at least that plus what a client's replay of its SQL costs (the server
// is a database client as pgbench is), so while both runs keep the cores
// busy an endpoint can reach at most replay ÷ (replay + floor) of its SQL:
// the "best API ÷ SQL" column. Where the measured ratio is near it, the
// gap is the machine's price of an HTTP exchange, not the server's work.
//
// The last three columns are the bare server's run (bare.go: net/http and
// pgx, the same statements in the same batches, the same answer bytes,
// nothing else): its own processor time a request, its requests a second
// over the replay's, and wrk's p99 of it. That is the measured floor: what a server of
// this design reaches on this machine before it authenticates, routes,
// scans or encodes anything.
func renderCPU(runs []endpointRun, floor endpointRun, conns int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Processor time per request and per replay of its SQL (µs, %d connections; the machine's busy time over the run divided by the requests; the rest is PostgreSQL and the kernel). The first row runs no SQL: the price of an HTTP exchange here (%.0f requests a second), from which the best ratio follows (docs/performance.md, \"The floor\"). The last three columns are a bare server's run of the single-record reads: net/http and pgx sending the same statements in the same batches and writing the same answers, nothing else (its processor time a request, its requests a second over the replay's, and wrk's p99 of it).\n\n", conns, floor.API.RPS())
	b.WriteString("| endpoint | API: machine | server | wrk | rest | SQL: machine | pgbench | rest | best API ÷ SQL | bare: server | bare ÷ SQL | bare p99 ms |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	us := func(u cpuUse, d time.Duration) string {
		if u.Count == 0 {
			return ""
		}
		return fmt.Sprintf("%.0f", u.perOp(d))
	}
	f := floor.APICPU
	fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | | | | | | | |\n", floor.Name, us(f, f.Machine), us(f, f.Server), us(f, f.Load), us(f, f.rest()))
	for _, r := range runs {
		a, q, bare := r.APICPU, r.SQLCPU, r.BareCPU
		bareRatio, bareP99 := "", ""
		switch {
		case r.Bare.Err != "":
			bareRatio = "failed: " + cell(r.Bare.Err)
		case r.Bare.Requests > 0 && r.SQL.TPS > 0:
			bareRatio = fmt.Sprintf("%.2f", r.Bare.RPS()/r.SQL.TPS)
		}
		if r.Bare.Err == "" && r.Bare.Requests > 0 {
			bareP99 = fmt.Sprintf("%.1f", r.Bare.P99/1000)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Name,
			us(a, a.Machine), us(a, a.Server), us(a, a.Load), us(a, a.rest()),
			us(q, q.Machine), us(q, q.Load), us(q, q.rest()), bestRatio(q, f), us(bare, bare.Server), bareRatio, bareP99)
	}
	return b.String()
}

// bestRatio is the highest API ÷ SQL an endpoint whose replay cost replay
// can reach when every request also pays floor (renderCPU); empty without
// both figures.
func bestRatio(replay, floor cpuUse) string {
	r, f := replay.perOp(replay.Machine), floor.perOp(floor.Machine)
	if replay.Count == 0 || floor.Count == 0 || r+f == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", r/(r+f))
}

// renderMix is the realistic mix's table.
func renderMix(rs []wrkResult, d time.Duration, peakKiB int) string {
	var b strings.Builder
	conns := 0
	for _, r := range rs {
		conns += r.Conns
	}
	fmt.Fprintf(&b, "Realistic mix: every endpoint at once, %d connections in all, %s, random drivers of the company.\n\n", conns, d)
	b.WriteString("| endpoint | conns | req/s | p50 ms | p95 ms | p99 ms | errors |\n|---|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rs {
		if r.Err != "" {
			fmt.Fprintf(&b, "| %s | %d | failed: %s | | | | |\n", r.Name, r.Conns, cell(r.Err))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.1f | %.1f | %d |\n", r.Name, r.Conns, r.RPS(), r.P50/1000, r.P95/1000, r.P99/1000, r.SocketErrors+r.StatusErrors)
	}
	fmt.Fprintf(&b, "\nServer peak memory (VmHWM) over the whole run: %.1f MiB.\n", float64(peakKiB)/1024)
	return b.String()
}

func cell(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	if len(l) > 80 {
		l = l[:80]
	}
	return strings.ReplaceAll(l, "|", "/")
}

const (
	docBegin = "<!-- bench:begin -->"
	docEnd   = "<!-- bench:end -->"
)

// writeDoc replaces the generated block of the performance document
// (docs/performance.md, "Load tables of the last `make bench`").
func writeDoc(path, table string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(raw)
	block := docBegin + "\n" + table + "\n_Generated by `make bench` on " + time.Now().UTC().Format("2006-01-02") + "._\n" + docEnd
	i, j := strings.Index(s, docBegin), strings.Index(s, docEnd)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s markers", path, docBegin, docEnd)
	}
	s = s[:i] + block + s[j+len(docEnd):]
	return os.WriteFile(path, []byte(s), 0o644)
}

// peakMemory samples the server's peak resident memory (VmHWM).
type peakMemory struct {
	stop chan struct{}
	done chan int
}

func watchPeak(pid int) *peakMemory {
	p := &peakMemory{stop: make(chan struct{}), done: make(chan int, 1)}
	go func() {
		kib := 0
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
				if m := vmHWM.FindSubmatch(b); m != nil {
					var n int
					fmt.Sscan(string(m[1]), &n)
					kib = max(kib, n)
				}
			}
			select {
			case <-p.stop:
				p.done <- kib
				return
			case <-t.C:
			}
		}
	}()
	return p
}

func (p *peakMemory) max() int { close(p.stop); return <-p.done }

var vmHWM = regexp.MustCompile(`VmHWM:\s+(\d+) kB`)
