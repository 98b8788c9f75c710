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
	"github.com/konvoj/konvoj/internal/rating"
)

// EnqueueInterval is how often the scheduler looks for months to rate. Hourly
// picks up each company's month within an hour of its local midnight, and
// catches up after downtime.
const EnqueueInterval = time.Hour

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

// Options configure the client.
type Options struct {
	// Workers is the number of jobs worked at once by this instance.
	Workers int
	// Periodic turns the monthly scheduler on (off in tests that insert jobs
	// themselves).
	Periodic bool
	// PollInterval overrides River's fetch poll interval (tests).
	PollInterval time.Duration
	// Scanner and Mailer run the expiry alerts (nil: no alert jobs).
	Scanner *alerts.Scanner
	Mailer  *alerts.Mailer
	// Now is the alert scheduler's clock (tests); nil is time.Now.
	Now func() time.Time
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
	if o.Scanner != nil {
		river.AddWorker(workers, &ScanCompanyAlertsWorker{Scanner: o.Scanner, Mailer: o.Mailer, Log: log})
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
