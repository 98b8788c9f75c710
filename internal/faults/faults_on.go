//go:build faultinject

package faults

import (
	"io"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
)

// Env names the environment variable that selects the point at which the
// process kills itself: "point" (the first time an upload reaches it) or
// "point:n" (the n-th time, so that earlier uploads complete).
const Env = "KONVOJ_FAULT"

// Enabled is true in a binary built with the faultinject tag.
const Enabled = true

var selected, nth = parse(os.Getenv(Env))

// reached counts how often the selected point was reached.
var reached atomic.Int64

func parse(v string) (Point, int64) {
	name, n, ok := strings.Cut(v, ":")
	if !ok {
		return Point(name), 1
	}
	count, err := strconv.ParseInt(n, 10, 64)
	if err != nil || count < 1 {
		panic(Env + ": want point or point:n with n >= 1, got " + v)
	}
	return Point(name), count
}

// hit reports whether this pass of p is the one to die at.
func hit(p Point) bool {
	return p == selected && reached.Add(1) == nth
}

// At kills the process (SIGKILL: no deferred function, no clean-up runs)
// when p is the selected point, reached for the selected time.
func At(p Point) {
	if hit(p) {
		kill()
	}
}

// Reader returns a reader that kills the process at the first read after
// after bytes were read through it, when p is the selected point, reached
// (a reader made) for the selected time.
func Reader(p Point, r io.Reader, after int64) io.Reader {
	if !hit(p) {
		return r
	}
	return &killReader{r: r, left: after}
}

type killReader struct {
	r    io.Reader
	left int64
}

func (k *killReader) Read(b []byte) (int, error) {
	if k.left <= 0 {
		kill()
	}
	if int64(len(b)) > k.left {
		b = b[:k.left]
	}
	n, err := k.r.Read(b)
	k.left -= int64(n)
	return n, err
}

func kill() {
	_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way
}
