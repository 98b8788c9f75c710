// Package jobs runs background work on River, a job queue kept in the same
// PostgreSQL database: it survives restarts, retries failed jobs, and runs
// each periodic job once across several server instances (only the elected
// leader schedules them).
//
// The monthly rating: an hourly periodic job looks for companies whose month
// just ended (in each company's own time zone) has not been rated yet, and
// enqueues one rate_company_month job per company and month, unique by its
// arguments so instances and reruns never queue it twice. Rating a month is
// one database transaction and idempotent, so a job cut off part-way (a
// crash, a deploy) leaves nothing half done and its retry completes it.
//
// The current month's stored snapshots (docs/rating.md): every change to a
// rating input marks its company in rating_refresh_due, in the change's own
// transaction (database triggers), due 30 s after the first change. Every
// ClaimInterval a periodic job claims the due marks and enqueues one
// refresh_current_ratings job per company in the same transaction, so a
// burst of changes causes one refresh. An hourly job marks every company
// with active drivers, so snapshots are never more than an hour old.
//
// The upload sweeper: an hourly job deletes the stored objects of uploads
// that a crash cut off before their row committed (docs/security.md,
// "Uploads and crashes").
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/uploads"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// EnqueueInterval is how often the scheduler looks for months to rate. Hourly
// picks up each company's month within an hour of its local midnight, and
// catches up after downtime.
const EnqueueInterval = time.Hour

// ClaimInterval is how often due refreshes of the current month are claimed:
// with the 30 s debounce a change is in the stored snapshots within about
// 40 s plus the refresh's own time.
const ClaimInterval = 10 * time.Second

// RefreshAllInterval is how often every company's current month is
// refreshed whatever changed.
const RefreshAllInterval = time.Hour

// RateCompanyMonthArgs rates one company's month.
type RateCompanyMonthArgs struct {
	CompanyID uuid.UUID `json:"company_id"`
	Period    string    `json:"period"` // YYYY-MM
}

// Kind names the job in the queue.
func (RateCompanyMonthArgs) Kind() string { return "rate_company_month" }

// InsertOpts makes the job unique per company and month.
func (RateCompanyMonthArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// RateCompanyMonthWorker rates a company's month.
type RateCompanyMonthWorker struct {
	river.WorkerDefaults[RateCompanyMonthArgs]
	Rating *rating.Service
	Log    *slog.Logger
}

// Timeout leaves a large company's month plenty of time (the default is a
// minute).
func (w *RateCompanyMonthWorker) Timeout(*river.Job[RateCompanyMonthArgs]) time.Duration {
	return 15 * time.Minute
}

// Work rates the month; an error makes River retry the job later.
func (w *RateCompanyMonthWorker) Work(ctx context.Context, job *river.Job[RateCompanyMonthArgs]) error {
	period, err := rating.ParsePeriod(job.Args.Period)
	if err != nil {
		return river.JobCancel(fmt.Errorf("rate company %s: %w", job.Args.CompanyID, err))
	}
	start := time.Now()
	n, err := w.Rating.RateCompany(ctx, job.Args.CompanyID, period)
	if errors.Is(err, apperr.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("rate company %s %s: %w", job.Args.CompanyID, period, err)) // no retry helps
	}
	if err != nil {
		return fmt.Errorf("rate company %s %s: %w", job.Args.CompanyID, period, err)
	}
	w.Log.InfoContext(ctx, "company month rated", slog.String("company_id", job.Args.CompanyID.String()),
		slog.String("period", period.String()), slog.Int("drivers", n), slog.Duration("took", time.Since(start)))
	return nil
}

// EnqueueMonthlyRatingsArgs is the periodic scheduler job.
type EnqueueMonthlyRatingsArgs struct{}

// Kind names the job in the queue.
func (EnqueueMonthlyRatingsArgs) Kind() string { return "enqueue_monthly_ratings" }

// EnqueueMonthlyRatingsWorker enqueues a rate_company_month job for every
// company whose month just ended has not been rated.
type EnqueueMonthlyRatingsWorker struct {
	river.WorkerDefaults[EnqueueMonthlyRatingsArgs]
	Rating *rating.Service
}

// Work enqueues the due months.
func (w *EnqueueMonthlyRatingsWorker) Work(ctx context.Context, _ *river.Job[EnqueueMonthlyRatingsArgs]) error {
	due, err := w.Rating.DueMonths(ctx)
	if err != nil {
		return err
	}
	if len(due) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(due))
	for i, d := range due {
		params[i] = river.InsertManyParams{Args: RateCompanyMonthArgs{CompanyID: d.CompanyID, Period: d.Period.String()}}
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue monthly ratings: %w", err)
	}
	return nil
}

// RefreshCurrentRatingsArgs refreshes one company's stored snapshots of its
// current month.
type RefreshCurrentRatingsArgs struct {
	CompanyID uuid.UUID `json:"company_id"`
}

// Kind names the job in the queue.
func (RefreshCurrentRatingsArgs) Kind() string { return "refresh_current_ratings" }

// RefreshCurrentRatingsWorker refreshes a company's current month.
type RefreshCurrentRatingsWorker struct {
	river.WorkerDefaults[RefreshCurrentRatingsArgs]
	Rating *rating.Service
	Log    *slog.Logger
}

// Timeout is the monthly run's: a refresh rates the whole company.
func (w *RefreshCurrentRatingsWorker) Timeout(*river.Job[RefreshCurrentRatingsArgs]) time.Duration {
	return 15 * time.Minute
}

// Work refreshes the month; an error makes River retry the job later.
func (w *RefreshCurrentRatingsWorker) Work(ctx context.Context, job *river.Job[RefreshCurrentRatingsArgs]) error {
	start := time.Now()
	period, n, err := w.Rating.RefreshCurrentMonth(ctx, job.Args.CompanyID)
	if errors.Is(err, apperr.ErrNotFound) {
		return river.JobCancel(fmt.Errorf("refresh ratings of company %s: %w", job.Args.CompanyID, err)) // deleted since
	}
	if err != nil {
		return fmt.Errorf("refresh ratings of company %s: %w", job.Args.CompanyID, err)
	}
	w.Log.DebugContext(ctx, "current ratings refreshed", slog.String("company_id", job.Args.CompanyID.String()),
		slog.String("period", period.String()), slog.Int("drivers", n), slog.Duration("took", time.Since(start)))
	return nil
}

// ClaimRatingRefreshesArgs is the periodic job that turns due refresh marks
// into refresh jobs.
type ClaimRatingRefreshesArgs struct{}

// Kind names the job in the queue.
func (ClaimRatingRefreshesArgs) Kind() string { return "claim_rating_refreshes" }

// ClaimRatingRefreshesWorker claims the due marks and enqueues their
// refreshes in one transaction: a mark is never lost nor enqueued twice.
type ClaimRatingRefreshesWorker struct {
	river.WorkerDefaults[ClaimRatingRefreshesArgs]
	DB     *pgxpool.Pool
	Rating *rating.Service
}

// Work claims and enqueues.
func (w *ClaimRatingRefreshesWorker) Work(ctx context.Context, _ *river.Job[ClaimRatingRefreshesArgs]) error {
	client := river.ClientFromContext[pgx.Tx](ctx)
	tx, err := w.DB.Begin(ctx)
	if err != nil {
		return fmt.Errorf("claim rating refreshes: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // after Commit it is a no-op
	ids, err := w.Rating.ClaimRefreshes(ctx, tx)
	if err != nil {
		return err
	}
	if len(ids) > 0 {
		params := make([]river.InsertManyParams, len(ids))
		for i, id := range ids {
			params[i] = river.InsertManyParams{Args: RefreshCurrentRatingsArgs{CompanyID: id}}
		}
		if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
			return fmt.Errorf("enqueue rating refreshes: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("claim rating refreshes: %w", err)
	}
	return nil
}

// RefreshAllRatingsArgs is the hourly job that makes every company's
// refresh due.
type RefreshAllRatingsArgs struct{}

// Kind names the job in the queue.
func (RefreshAllRatingsArgs) Kind() string { return "refresh_all_ratings" }

// RefreshAllRatingsWorker marks every company with active drivers for a
// refresh now; the next claim enqueues them.
type RefreshAllRatingsWorker struct {
	river.WorkerDefaults[RefreshAllRatingsArgs]
	Rating *rating.Service
}

// Work marks the companies.
func (w *RefreshAllRatingsWorker) Work(ctx context.Context, _ *river.Job[RefreshAllRatingsArgs]) error {
	_, err := w.Rating.MarkAllForRefresh(ctx)
	return err
}

// ImportArgs runs one driver import (docs/import-export.md).
type ImportArgs struct {
	ImportID  uuid.UUID `json:"import_id"`
	CompanyID uuid.UUID `json:"company_id"`
}

// Kind names the job in the queue.
func (ImportArgs) Kind() string { return imports.JobKind }

// InsertOpts: an import is run once; a failure is recorded on the import,
// not retried (the user uploads again).
func (ImportArgs) InsertOpts() river.InsertOpts { return river.InsertOpts{MaxAttempts: 1} }

// ImportWorker runs imports.
type ImportWorker struct {
	river.WorkerDefaults[ImportArgs]
	Imports *imports.Service
}

// Timeout leaves a file of 20,000 rows plenty of time.
func (w *ImportWorker) Timeout(*river.Job[ImportArgs]) time.Duration { return 15 * time.Minute }

// Work runs the import; its failure is already recorded on it. While the
// company has as many imports in progress as it may, the job is snoozed
// (which spends none of its one attempt).
func (w *ImportWorker) Work(ctx context.Context, job *river.Job[ImportArgs]) error {
	err := w.Imports.Run(ctx, job.Args.CompanyID, job.Args.ImportID)
	if errors.Is(err, imports.ErrBusy) {
		return river.JobSnooze(imports.BusyRetry)
	}
	if err != nil {
		return river.JobCancel(fmt.Errorf("import %s: %w", job.Args.ImportID, err))
	}
	return nil
}

// FailInterruptedImportsInterval is how often the imports a crash cut off
// are marked failed (imports.FailInterrupted). Each instance also does it
// once at start (konvoj serve).
const FailInterruptedImportsInterval = time.Minute

// FailInterruptedImportsArgs is the periodic job that marks failed the
// imports a crash cut off.
type FailInterruptedImportsArgs struct{}

// Kind names the job in the queue.
func (FailInterruptedImportsArgs) Kind() string { return "fail_interrupted_imports" }

// FailInterruptedImportsWorker marks them, on the system pool.
type FailInterruptedImportsWorker struct {
	river.WorkerDefaults[FailInterruptedImportsArgs]
	DB  *pgxpool.Pool
	Log *slog.Logger
}

// Work marks them; the next run retries a failure.
func (w *FailInterruptedImportsWorker) Work(ctx context.Context, _ *river.Job[FailInterruptedImportsArgs]) error {
	n, err := imports.FailInterrupted(ctx, w.DB)
	if n > 0 {
		w.Log.InfoContext(ctx, "interrupted imports failed", slog.Int64("imports", n))
	}
	return err
}

// SweepUploadsInterval is how often the stored objects of uploads whose
// row never committed are swept (uploads.SweepOrphans). Each instance
// also sweeps once at start (konvoj serve).
const SweepUploadsInterval = time.Hour

// SweepUploadsArgs is the periodic job that deletes the stored objects of
// uploads a crash cut off before their row committed.
type SweepUploadsArgs struct{}

// Kind names the job in the queue.
func (SweepUploadsArgs) Kind() string { return "sweep_orphaned_uploads" }

// SweepUploadsWorker sweeps the orphaned objects of the file store in use.
type SweepUploadsWorker struct {
	river.WorkerDefaults[SweepUploadsArgs]
	DB    *pgxpool.Pool
	Files storage.Store
	Log   *slog.Logger
}

// Timeout leaves a slow object store time for a large backlog.
func (w *SweepUploadsWorker) Timeout(*river.Job[SweepUploadsArgs]) time.Duration {
	return 15 * time.Minute
}

// Work sweeps; what failed stays for the next run.
func (w *SweepUploadsWorker) Work(ctx context.Context, _ *river.Job[SweepUploadsArgs]) error {
	n, err := uploads.SweepOrphans(ctx, w.DB, w.Files, uploads.OrphanAge)
	if n > 0 {
		w.Log.InfoContext(ctx, "orphaned upload objects swept", slog.Int("removed", n))
	}
	return err
}

// Options configure the client.
type Options struct {
	// Workers is the number of jobs worked at once by this instance.
	Workers int
	// Periodic turns the periodic jobs on: the monthly scheduler, the claim
	// of due refreshes and the hourly refresh (off in tests that insert jobs
	// themselves).
	Periodic bool
	// PollInterval overrides River's fetch poll interval (tests).
	PollInterval time.Duration
	// Scanner and Mailer run the expiry alerts (nil: no alert jobs).
	Scanner *alerts.Scanner
	Mailer  *alerts.Mailer
	// Now is the clock of the alert scheduler and of the outbox prune
	// (tests); nil is time.Now.
	Now func() time.Time
	// Imports runs driver imports (nil: no import jobs).
	Imports *imports.Service
	// Webhooks delivers webhook events (nil: no delivery jobs).
	Webhooks *webhooks.Sender
	// Sessions purges expired web sessions (nil: no purge jobs).
	Sessions *sessions.Service
	// Files is the file store whose orphaned upload objects the hourly
	// sweep deletes (nil: no sweep).
	Files storage.Store
}

// NewClient builds the River client with every worker; Start it to work.
func NewClient(db *pgxpool.Pool, ratings *rating.Service, log *slog.Logger, o Options) (*river.Client[pgx.Tx], error) {
	if log == nil {
		log = slog.Default()
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &RateCompanyMonthWorker{Rating: ratings, Log: log})
	river.AddWorker(workers, &EnqueueMonthlyRatingsWorker{Rating: ratings})
	river.AddWorker(workers, &RefreshCurrentRatingsWorker{Rating: ratings, Log: log})
	river.AddWorker(workers, &ClaimRatingRefreshesWorker{DB: db, Rating: ratings})
	river.AddWorker(workers, &RefreshAllRatingsWorker{Rating: ratings})
	river.AddWorker(workers, &PurgeIdempotencyKeysWorker{DB: db})
	river.AddWorker(workers, &PurgeFormTokensWorker{DB: db})
	river.AddWorker(workers, &PruneOutboxWorker{DB: db, Log: log, Now: o.Now})
	river.AddWorker(workers, &CompactDriverCountsWorker{DB: db})
	if o.Imports != nil {
		river.AddWorker(workers, &ImportWorker{Imports: o.Imports})
		river.AddWorker(workers, &FailInterruptedImportsWorker{DB: db, Log: log})
	}
	if o.Webhooks != nil {
		river.AddWorker(workers, &DeliverWebhooksWorker{Sender: o.Webhooks})
		river.AddWorker(workers, &SweepWebhooksWorker{Sender: o.Webhooks})
	}
	if o.Sessions != nil {
		river.AddWorker(workers, &PurgeSessionsWorker{Sessions: o.Sessions, Log: log})
	}
	if o.Files != nil {
		river.AddWorker(workers, &SweepUploadsWorker{DB: db, Files: o.Files, Log: log})
	}
	if o.Scanner != nil {
		river.AddWorker(workers, &ScanCompanyAlertsWorker{Scanner: o.Scanner, Mailer: o.Mailer, Log: log})
		river.AddWorker(workers, &StartUnitDayWorker{DB: o.Scanner.DB(), Log: log})
		river.AddWorker(workers, &DeliverEmailWorker{Mailer: o.Mailer})
		river.AddWorker(workers, &EnqueueAlertScansWorker{Scanner: o.Scanner, Mailer: o.Mailer, Now: o.Now})
	}
	cfg := &river.Config{
		Logger:            log,
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}},
		Workers:           workers,
		FetchPollInterval: o.PollInterval,
	}
	if o.PollInterval > 0 && o.PollInterval < river.FetchCooldownDefault {
		cfg.FetchCooldown = o.PollInterval
	}
	if o.Periodic {
		cfg.PeriodicJobs = []*river.PeriodicJob{
			river.NewPeriodicJob(river.PeriodicInterval(EnqueueInterval),
				func() (river.JobArgs, *river.InsertOpts) { return EnqueueMonthlyRatingsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "enqueue_monthly_ratings", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(ClaimInterval),
				func() (river.JobArgs, *river.InsertOpts) { return ClaimRatingRefreshesArgs{}, nil },
				&river.PeriodicJobOpts{ID: "claim_rating_refreshes"}),
			river.NewPeriodicJob(river.PeriodicInterval(RefreshAllInterval),
				func() (river.JobArgs, *river.InsertOpts) { return RefreshAllRatingsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "refresh_all_ratings", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(PurgeIdempotencyInterval),
				func() (river.JobArgs, *river.InsertOpts) { return PurgeIdempotencyKeysArgs{}, nil },
				&river.PeriodicJobOpts{ID: "purge_idempotency_keys", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(PurgeFormTokensInterval),
				func() (river.JobArgs, *river.InsertOpts) { return PurgeFormTokensArgs{}, nil },
				&river.PeriodicJobOpts{ID: "purge_form_tokens", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(PruneOutboxInterval),
				func() (river.JobArgs, *river.InsertOpts) { return PruneOutboxArgs{}, nil },
				&river.PeriodicJobOpts{ID: "prune_outbox", RunOnStart: true}),
			river.NewPeriodicJob(river.PeriodicInterval(CompactDriverCountsInterval),
				func() (river.JobArgs, *river.InsertOpts) { return CompactDriverCountsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "compact_driver_counts", RunOnStart: true}),
		}
		if o.Sessions != nil {
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(PurgeSessionsInterval),
				func() (river.JobArgs, *river.InsertOpts) { return PurgeSessionsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "purge_web_sessions", RunOnStart: true}))
		}
		if o.Webhooks != nil {
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(WebhookSweepInterval),
				func() (river.JobArgs, *river.InsertOpts) { return SweepWebhooksArgs{}, nil },
				&river.PeriodicJobOpts{ID: "sweep_webhooks", RunOnStart: true}))
		}
		if o.Imports != nil {
			// Not on start: konvoj serve does it at start itself.
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(FailInterruptedImportsInterval),
				func() (river.JobArgs, *river.InsertOpts) { return FailInterruptedImportsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "fail_interrupted_imports"}))
		}
		if o.Files != nil {
			// Not on start: konvoj serve sweeps at start itself, without
			// waiting for an instance to be elected leader.
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(SweepUploadsInterval),
				func() (river.JobArgs, *river.InsertOpts) { return SweepUploadsArgs{}, nil },
				&river.PeriodicJobOpts{ID: "sweep_orphaned_uploads"}))
		}
		if o.Scanner != nil {
			cfg.PeriodicJobs = append(cfg.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(AlertScanInterval),
				func() (river.JobArgs, *river.InsertOpts) { return EnqueueAlertScansArgs{}, nil },
				&river.PeriodicJobOpts{ID: "enqueue_alert_scans", RunOnStart: true}))
		}
	}
	client, err := river.NewClient(riverpgxv5.New(db), cfg)
	if err != nil {
		return nil, fmt.Errorf("job queue client: %w", err)
	}
	return client, nil
}
