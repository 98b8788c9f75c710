package jobs

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"

	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fleet"
)

// The drivers list takes an unfiltered total from driver_counts, to which
// every write of drivers adds a row (docs/performance.md, "The drivers
// list's total"), and the vehicles and trailers lists from fleet_counts
// ("The vehicles list"). A daily job, also at start, folds each company's
// rows into one per status (and holder type and type), so that the sums
// stay a few rows.

// CompactDriverCountsInterval is how often the counts are compacted.
const CompactDriverCountsInterval = 24 * time.Hour

// CompactDriverCountsArgs is the periodic compaction.
type CompactDriverCountsArgs struct{}

// Kind names the job in the queue.
func (CompactDriverCountsArgs) Kind() string { return "compact_driver_counts" }

// CompactDriverCountsWorker compacts every company's counts, on the
// system pool.
type CompactDriverCountsWorker struct {
	river.WorkerDefaults[CompactDriverCountsArgs]
	DB *pgxpool.Pool
}

// Work compacts the drivers' counts and the fleet's.
func (w *CompactDriverCountsWorker) Work(ctx context.Context, _ *river.Job[CompactDriverCountsArgs]) error {
	if err := drivers.CompactCounts(ctx, w.DB); err != nil {
		return err
	}
	return fleet.CompactCounts(ctx, w.DB)
}
