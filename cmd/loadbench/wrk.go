package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// mixPart is one part of the realistic mix: a wrk script and its share of
// the connections.
type mixPart struct {
	Name  string
	Conns int
	Lua   string // body of request(); the helpers of luaPrelude come first
}

// realisticMix is every endpoint at once, one wrk process each.
var realisticMix = []mixPart{
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
  "document_status=expiring_soon&per_page=20",
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

// wrkResult is one wrk run's numbers.
type wrkResult struct {
	Name                       string
	Conns                      int
	Requests                   int
	DurationUS                 int64
	P50, P95, P99              float64 // microseconds
	SocketErrors, StatusErrors int
	Err                        string
	CPU                        time.Duration // wrk's own processor time
}

// RPS is requests per second.
func (r wrkResult) RPS() float64 {
	if r.DurationUS == 0 {
		return 0
	}
	return float64(r.Requests) / (float64(r.DurationUS) / 1e6)
}

// runWrkPaths drives one endpoint alone with its K fixed requests, in
// turn on each connection.
func runWrkPaths(work, base, token, name string, paths []string, conns int, d time.Duration) wrkResult {
	quoted := make([]string, len(paths))
	for i, p := range paths {
		quoted[i] = fmt.Sprintf("%q", p)
	}
	// The requests are formatted once, in init, as pgbench reads its
	// scripts once: formatting one per request in Lua cost wrk CPU that the
	// server then lacked on these shared cores.
	lua := `
local paths = {` + strings.Join(quoted, ",\n") + `}
local reqs = {}
local n = 0
function init(args)
  for i, p in ipairs(paths) do reqs[i] = get(p) end
  n = math.random(#reqs)
end
function request()
  n = n % #reqs + 1
  return reqs[n]
end`
	return runWrk(work, base, token, name, conns, d, lua)
}

// runWrkMix runs one part of the realistic mix.
func runWrkMix(work, base, token string, p mixPart, d time.Duration) wrkResult {
	return runWrk(work, base, token, p.Name, p.Conns, d, "function request()\n"+p.Lua+"\nend\n")
}

func runWrk(work, base, token, name string, conns int, d time.Duration, lua string) wrkResult {
	res := wrkResult{Name: name, Conns: conns}
	script := fmt.Sprintf("WORK = %q\nTOKEN = %q\n%s\n%s\n", work, token, luaPrelude, lua)
	path := filepath.Join(work, fmt.Sprintf("wrk-%x.lua", rand.Uint32()))
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		res.Err = err.Error()
		return res
	}
	secs := max(1, int(d.Seconds()))
	cmd := exec.Command("wrk", "-t1", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", secs), "--timeout", "10s", "-s", path, base)
	out, err := cmd.CombinedOutput()
	res.CPU = exitedCPU(cmd)
	if err != nil {
		res.Err = fmt.Sprintf("%v: %s", err, out)
		return res
	}
	m := resultLine.FindSubmatch(out)
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
	res.SocketErrors, res.StatusErrors = raw.SocketErrors, raw.StatusErrors
	return res
}

var resultLine = regexp.MustCompile(`RESULT (\{.*\})`)
