package main

import (
	"os"
	"testing"
	"time"
)

// TestProcessorTimes checks the /proc readings: spinning adds to this
// process's time about what it spins, never more than the time that passed,
// and the machine's busy time grows at least as much. It spins until /proc
// has counted 200 ms (in 10 ms ticks) rather than for a fixed time: with
// the other test packages running beside it, a 300 ms spin was once given
// only 140 ms of a core.
func TestProcessorTimes(t *testing.T) {
	m0, p0 := machineBusy(), processCPU(os.Getpid())
	start := time.Now()
	var p time.Duration
	for p < 200*time.Millisecond {
		if time.Since(start) > time.Minute {
			t.Fatalf("this process's time grew by only %s in a minute of spinning", p)
		}
		for spin := time.Now(); time.Since(spin) < 10*time.Millisecond; {
		}
		p = processCPU(os.Getpid()) - p0
	}
	wall, m := time.Since(start), machineBusy()-m0
	// The garbage collector's workers may add a little beside the spin.
	if p > 2*wall+20*time.Millisecond {
		t.Errorf("this process's time %s exceeds the %s that passed", p, wall)
	}
	if m < p-20*time.Millisecond {
		t.Errorf("the machine's busy time %s is less than this process's %s", m, p)
	}
}

// TestPerOp checks the division by requests and the rest.
func TestPerOp(t *testing.T) {
	u := cpuUse{Machine: 3 * time.Second, Server: time.Second, Load: 500 * time.Millisecond, Count: 1000}
	if got := u.perOp(u.Machine); got != 3000 {
		t.Errorf("machine per op = %v µs, want 3000", got)
	}
	if got := u.rest(); got != 1500*time.Millisecond {
		t.Errorf("rest = %s, want 1.5s", got)
	}
	if got := (cpuUse{}).perOp(time.Second); got != 0 {
		t.Errorf("no requests: %v, want 0", got)
	}
}
