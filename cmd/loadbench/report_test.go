package main

import (
	"testing"
	"time"
)

// TestSharedPageSize reads the main shared memory segment's page size from
// a PostgreSQL session's memory map, in 4 kB and in huge pages, and not
// from the dynamic shared memory segments or private mappings beside it.
func TestSharedPageSize(t *testing.T) {
	const private = `563df9ba3000-563df9c81000 rw-p 00000000 00:00 0                          [heap]
Size:                888 kB
KernelPageSize:        4 kB
`
	const dsm = `7f329ce86000-7f329cf86000 rw-s 00000000 00:1a 43                         /dev/shm/PostgreSQL.3856332108
Size:               1024 kB
KernelPageSize:        4 kB
`
	for _, c := range []struct{ name, smaps, want string }{
		{"huge pages", private + "7f3293e00000-7f329ce00000 rw-s 00000000 00:11 36819                      /anon_hugepage (deleted)\nSize:             147456 kB\nKernelPageSize:     2048 kB\n" + dsm, "2048 kB"},
		{"4 kB pages", private + dsm + "7f3293e00000-7f329ce00000 rw-s 00000000 00:01 2051                       /dev/zero (deleted)\nSize:             147456 kB\nKernelPageSize:        4 kB\n", "4 kB"},
		{"System V", "7f3293e00000-7f329ce00000 rw-s 00000000 00:01 0                          /SYSV00000000 (deleted)\nSize: 147456 kB\nKernelPageSize:     2048 kB\n", "2048 kB"},
		{"no segment", private + dsm, ""},
	} {
		if got := sharedPageSize(c.smaps); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

func TestBestRatio(t *testing.T) {
	use := func(us, n int) cpuUse { return cpuUse{Machine: time.Duration(us*n) * time.Microsecond, Count: n} }
	for _, c := range []struct {
		replay, floor cpuUse
		want          string
	}{
		{use(140, 1000), use(120, 5000), "0.54"}, // 140 ÷ (140 + 120)
		{use(1000, 10), use(100, 5000), "0.91"},
		{use(140, 1000), cpuUse{}, ""}, // no floor run
		{cpuUse{}, use(120, 5000), ""}, // no replay
	} {
		if got := bestRatio(c.replay, c.floor); got != c.want {
			t.Errorf("bestRatio(%v, %v) = %q, want %q", c.replay, c.floor, got, c.want)
		}
	}
}
