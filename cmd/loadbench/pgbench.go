package main

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/postgres"
)

// pgbenchResult is one replay's numbers.
type pgbenchResult struct {
	TPS     float64 // replays of one request's statements per second
	Latency float64 // ms, average
	// P99 is the 99th percentile of a replay's latency, ms, from pgbench's
	// log of a sample of its transactions (replayLogSample); 0 when the
	// log held none.
	P99   float64
	Err   string
	Count int           // replays in the run
	CPU   time.Duration // pgbench's own processor time
}

// replayPlans is how a replay has its statements planned: as the server
// planned the captured requests' statements (postgres.WithReusedPlans).
type replayPlans string

const (
	// customPlans: every execution planned with its values
	// (plan_cache_mode = force_custom_plan), as the server's connections
	// are but for reads of one record. The replay prepares each statement
	// once per client and executes it with the captured values (script):
	// parsed once, planned at every run, as the server's.
	customPlans replayPlans = "custom"
	// reusedPlans: plan_cache_mode = auto, as the server's connection is
	// for a read of one record, so PostgreSQL chooses between custom and
	// generic plans for the replay's prepared statements as it does for
	// the server's.
	reusedPlans replayPlans = "reused"
)

// replayURL is the database URL as the server's request pool connects:
// the request role and the request's company as session settings, UTC,
// the plan mode, no JIT, the same statement timeout (internal/postgres).
func replayURL(dbURL string, company uuid.UUID, plans replayPlans) (string, error) {
	mode := postgres.CustomPlans
	if plans == reusedPlans {
		mode = postgres.ReusedPlans
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	opts := strings.Join([]string{
		"-c role=" + postgres.RequestRole,
		"-c app.company_id=" + company.String(),
		"-c timezone=UTC",
		"-c plan_cache_mode=" + mode,
		"-c jit=off",
		"-c statement_timeout=" + postgres.RequestStatementTimeout,
	}, " ")
	// libpq decodes %20, not +, as a space.
	if u.RawQuery != "" {
		u.RawQuery += "&"
	}
	u.RawQuery += "options=" + strings.ReplaceAll(url.QueryEscape(opts), "+", "%20")
	return u.String(), nil
}

// writeScripts writes one pgbench script per captured request and returns
// their paths.
func writeScripts(dir string, scripts []string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	paths := make([]string, len(scripts))
	for i, s := range scripts {
		paths[i] = filepath.Join(dir, fmt.Sprintf("request-%02d.sql", i+1))
		if err := os.WriteFile(paths[i], []byte(s), 0o644); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// runPgbench replays the scripts (pgbench picks one at random for each
// transaction, so all K requests weigh the same) with conns clients for d,
// planned as plans says, in simple query mode: the scripts prepare their
// statements (whose flag variables start at 0 here) and send the rest
// (transaction control, the system pool's statements) as text.
func runPgbench(dbURL string, company uuid.UUID, plans replayPlans, prepared, scripts []string, conns int, d time.Duration) pgbenchResult {
	replay, err := replayURL(dbURL, company, plans)
	if err != nil {
		return pgbenchResult{Err: err.Error()}
	}
	logs, err := os.MkdirTemp("", "loadbench-pgbench-")
	if err != nil {
		return pgbenchResult{Err: err.Error()}
	}
	defer os.RemoveAll(logs)
	args := []string{"-n", "-M", "simple", "-c", fmt.Sprint(conns), "-j", fmt.Sprint(min(2, conns)), "-T", fmt.Sprint(max(1, int(d.Seconds()))),
		"-l", "--sampling-rate=" + fmt.Sprint(replayLogSample), "--log-prefix=" + filepath.Join(logs, "replay")}
	for _, n := range prepared {
		args = append(args, "-D", n+"=0")
	}
	for _, s := range scripts {
		args = append(args, "-f", s)
	}
	args = append(args, replay)
	cmd := exec.Command("pgbench", args...)
	out, err := cmd.CombinedOutput()
	r := pgbenchResult{CPU: exitedCPU(cmd)}
	if err != nil {
		r.Err = fmt.Sprintf("pgbench: %v: %s", err, lastLines(string(out), 5))
		return r
	}
	if m := tpsLine.FindSubmatch(out); m != nil {
		r.TPS, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if m := processedLine.FindSubmatch(out); m != nil {
		r.Count, _ = strconv.Atoi(string(m[1]))
	}
	if m := latencyLine.FindSubmatch(out); m != nil {
		r.Latency, _ = strconv.ParseFloat(string(m[1]), 64)
	}
	if r.P99, err = replayP99(logs); err != nil {
		r.Err = fmt.Sprintf("pgbench's transaction log: %v", err)
		return r
	}
	if r.TPS == 0 {
		r.Err = "pgbench printed no tps: " + lastLines(string(out), 5)
		if strings.Contains(string(out), "actually processed: 0") {
			// pgbench connects its clients inside the measured time; on
			// a loaded machine that can take all of a short run.
			r.Err = "no replay finished (connecting the clients took the whole run: use a longer -duration)"
		}
	}
	return r
}

// replayLogSample is the share of a replay's transactions pgbench logs,
// for its p99: enough for a percentile of the thousands a run makes, few
// enough that writing the log costs pgbench little.
const replayLogSample = 0.1

// replayP99 is the 99th percentile, ms, of the latencies in pgbench's
// transaction logs in dir (one file per thread; each line "client
// transaction latency_µs script epoch µs").
func replayP99(dir string) (float64, error) {
	files, err := filepath.Glob(filepath.Join(dir, "replay*"))
	if err != nil {
		return 0, err
	}
	var latencies []float64
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return 0, err
		}
		for line := range strings.Lines(string(data)) {
			fields := strings.Fields(line)
			if len(fields) < 3 {
				return 0, fmt.Errorf("%s: unexpected line %q", filepath.Base(f), line)
			}
			us, err := strconv.ParseFloat(fields[2], 64)
			if err != nil {
				return 0, fmt.Errorf("%s: latency of %q: %w", filepath.Base(f), line, err)
			}
			latencies = append(latencies, us/1000)
		}
	}
	if len(latencies) == 0 {
		return 0, nil
	}
	slices.Sort(latencies)
	return latencies[int(math.Ceil(0.99*float64(len(latencies))))-1], nil // nearest rank
}

var (
	tpsLine     = regexp.MustCompile(`tps = ([0-9.]+)`)
	latencyLine = regexp.MustCompile(`latency average = ([0-9.]+) ms`)
	// "number of transactions actually processed: 12345" (with -T, no "/N").
	processedLine = regexp.MustCompile(`actually processed: ([0-9]+)`)
)

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, " / ")
}
