package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// The processor time a run used, split by who used it: the whole machine's
// busy time (/proc/stat), the server's (/proc/<pid>/stat) and the load
// generator's (wrk or pgbench, from its exit status). What remains of the
// machine's is PostgreSQL's and the kernel's work for them. Divided by the
// requests (or replays) of the run, it says where a request's time goes
// when API ÷ SQL is low: a run is CPU-bound on these shared cores, so
// requests a second follow the processor time per request.

// userHZ is the unit of /proc's times: USER_HZ, 100 on Linux.
const userHZ = 100

// cpuUse is one run's processor time.
type cpuUse struct {
	Machine time.Duration // every core's busy time during the run
	Server  time.Duration // the konvoj server's (zero for a replay)
	Load    time.Duration // wrk's or pgbench's own
	Count   int           // requests or replays in the run
}

// perOp is d per request or replay, in µs.
func (u cpuUse) perOp(d time.Duration) float64 {
	if u.Count == 0 {
		return 0
	}
	return float64(d.Microseconds()) / float64(u.Count)
}

// rest is the machine's time used by neither the server nor the load
// generator: PostgreSQL's, and the kernel's on their behalf.
func (u cpuUse) rest() time.Duration { return max(0, u.Machine-u.Server-u.Load) }

// machineBusy is the time all cores have been busy since boot.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line)) // cpu user nice system idle iowait irq softirq steal ...
	var busy int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i > 7 { // guest time is already counted in user
			break
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return ticks(busy)
}

// processCPU is the process's user and system time so far.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count after it.
	_, after, ok := bytes.Cut(b, []byte(") "))
	if !ok {
		return 0
	}
	f := strings.Fields(string(after)) // state ppid ... utime (12th) stime (13th)
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return ticks(u + s)
}

func ticks(n int64) time.Duration { return time.Duration(n) * time.Second / userHZ }

// exitedCPU is a finished command's own user and system time.
func exitedCPU(c *exec.Cmd) time.Duration {
	if c.ProcessState == nil {
		return 0
	}
	return c.ProcessState.UserTime() + c.ProcessState.SystemTime()
}

// measure runs f and returns the machine's and the server's processor time
// during it.
func measure(serverPID int, f func()) (machine, server time.Duration) {
	m0, s0 := machineBusy(), processCPU(serverPID)
	f()
	return machineBusy() - m0, processCPU(serverPID) - s0
}
