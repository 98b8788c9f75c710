package jobs

import (
	"context"
	"log/slog"
	"time"

	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/sessions"
)

// Expired web sessions (docs/security.md, "Web sign-in and sessions"): a
// session past its idle or absolute lifetime is refused on every request
// already; this periodic job deletes its row, so the table holds live
// sessions only (and the IP addresses and browsers of ended ones do not
// linger).

// PurgeSessionsInterval is how often expired sessions are deleted.
const PurgeSessionsInterval = 15 * time.Minute

// PurgeSessionsArgs is the periodic purge.
type PurgeSessionsArgs struct{}

// Kind names the job in the queue.
func (PurgeSessionsArgs) Kind() string { return "purge_web_sessions" }

// PurgeSessionsWorker deletes expired sessions of every company.
type PurgeSessionsWorker struct {
	river.WorkerDefaults[PurgeSessionsArgs]
	Sessions *sessions.Service
	Log      *slog.Logger
}

// Work purges.
func (w *PurgeSessionsWorker) Work(ctx context.Context, _ *river.Job[PurgeSessionsArgs]) error {
	n, err := w.Sessions.Purge(ctx)
	if err != nil {
		return err
	}
	if n > 0 {
		w.Log.InfoContext(ctx, "expired web sessions purged", slog.Int("sessions", n))
	}
	return nil
}
