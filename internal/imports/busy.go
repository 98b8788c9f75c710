package imports

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
)

// MaxRunning is how many imports of one company a server reads or runs at
// once: uploads and checks in requests (Receive, Again, Preview) and the jobs
// of large files alike. With the limits of one file (MaxCells, maxText,
// UPLOAD_MAX_BYTES) it bounds what a company's imports hold in the
// server's memory (docs/import-export.md).
const MaxRunning = 2

// BusyRetry is how long a job that found its company's imports busy waits
// before it is tried again.
const BusyRetry = 5 * time.Second

// ErrBusy refuses an import while the company has MaxRunning of them in
// progress on this server: 409 Conflict, since it is the company's state
// (imports in progress), not the caller's request rate, that refuses, and
// no request of the caller's alone can change it.
var ErrBusy = apperr.Conflict("msg.imports.busy", "max", MaxRunning)

// busy counts the imports each company has in progress in this process. It
// is the process's, not a service's: the requests' imports service and the
// jobs' (on the system pool) share it, since memory is the process's.
var busy = struct {
	sync.Mutex
	n map[uuid.UUID]int
}{n: map[uuid.UUID]int{}}

// begin takes one of the company's MaxRunning places; ErrBusy when none is
// free. end gives it back.
func begin(company uuid.UUID) (end func(), err error) {
	busy.Lock()
	defer busy.Unlock()
	if busy.n[company] >= MaxRunning {
		return nil, ErrBusy
	}
	busy.n[company]++
	var once sync.Once
	return func() {
		once.Do(func() {
			busy.Lock()
			defer busy.Unlock()
			if busy.n[company]--; busy.n[company] == 0 {
				delete(busy.n, company)
			}
		})
	}, nil
}
