package main

import (
	"os"
	"testing"
	"time"
)

// TestProcessorTimes checks the /proc readings: spinning for 300 ms adds
// about that much to this process's time and to the machine's busy time.
func TestProcessorTimes(t *testing.T) {
	m0, p0 := machineBusy(), processCPU(os.Getpid())
	for start := time.Now(); time.Since(start) < 300*time.Millisecond; {
	}
	m, p := machineBusy()-m0, processCPU(os.Getpid())-p0
	// /proc counts in 10 ms ticks, and another process may take the core.
	if p < 150*time.Millisecond || p > 2*time.Second {
		t.Errorf("this process's time over a 300 ms spin: %s", p)
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
