//go:build faultinject

package faults

import (
	"io"
	"os"
	"syscall"
)

// Env names the environment variable that selects the point at which the
// process kills itself.
const Env = "KONVOJ_FAULT"

// Enabled is true in a binary built with the faultinject tag.
const Enabled = true

var selected = Point(os.Getenv(Env))

// At kills the process (SIGKILL: no deferred function, no clean-up runs)
// when p is the selected point.
func At(p Point) {
	if p == selected {
		kill()
	}
}

// Reader returns a reader that kills the process at the first read after
// after bytes were read through it, when p is the selected point.
func Reader(p Point, r io.Reader, after int64) io.Reader {
	if p != selected {
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
