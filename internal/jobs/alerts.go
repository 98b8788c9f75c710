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

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/units"
)

// The expiry alerts (docs/alerts.md): a periodic job asks every few minutes
// (and at start) which companies' daily scans are due and enqueues one
// scan_company_alerts job per company and local day, unique by its
// arguments; the scan itself runs once per company and day (its run row),
// so instances, reruns and restarts never send twice. Each e-mail the scan
// writes to the outbox gets a deliver_email job in the scan's transaction.

// AlertScanInterval is how often the scheduler looks for due scans.
const AlertScanInterval = 10 * time.Minute

// ScanCompanyAlertsArgs scans one company's day.
type ScanCompanyAlertsArgs struct {
	CompanyID uuid.UUID `json:"company_id"`
	Date      string    `json:"date"` // YYYY-MM-DD, company-local
}

// Kind names the job in the queue.
func (ScanCompanyAlertsArgs) Kind() string { return "scan_company_alerts" }

// InsertOpts makes the job unique per company and day.
func (ScanCompanyAlertsArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// ScanCompanyAlertsWorker runs a company's scan.
type ScanCompanyAlertsWorker struct {
	river.WorkerDefaults[ScanCompanyAlertsArgs]
	Scanner *alerts.Scanner
	Mailer  *alerts.Mailer
	Log     *slog.Logger
}

// Work scans; an error makes River retry the job (the scan is one
// transaction, so a failed one left nothing behind).
func (w *ScanCompanyAlertsWorker) Work(ctx context.Context, job *river.Job[ScanCompanyAlertsArgs]) error {
	date, err := civil.Parse(job.Args.Date)
	if err != nil {
		return river.JobCancel(fmt.Errorf("scan alerts of %s: %w", job.Args.CompanyID, err))
	}
	res, err := w.Scanner.Scan(ctx, job.Args.CompanyID, date, func(tx pgx.Tx, mails []alerts.Email) error {
		return EnqueueDeliveries(ctx, river.ClientFromContext[pgx.Tx](ctx), tx, w.Mailer, w.Log, mails)
	})
	if errors.Is(err, apperr.ErrNotFound) {
		return river.JobCancel(err)
	}
	if err != nil {
		return err
	}
	w.Log.InfoContext(ctx, "alert scan", slog.String("company_id", job.Args.CompanyID.String()), slog.String("date", job.Args.Date),
		slog.Bool("already_run", res.AlreadyRun), slog.Bool("empty", res.Empty), slog.Int("alerts", len(res.Alerts)), slog.Int("emails", len(res.Emails)))
	return nil
}

// EnqueueDeliveries queues the delivery of the e-mails on tx (the
// transaction that wrote them), or, without SMTP_URL, logs that they stay
// in the outbox.
func EnqueueDeliveries(ctx context.Context, client *river.Client[pgx.Tx], tx pgx.Tx, mailer *alerts.Mailer, log *slog.Logger, mails []alerts.Email) error {
	if len(mails) == 0 {
		return nil
	}
	if mailer == nil || !mailer.Configured() {
		for _, m := range mails {
			log.InfoContext(ctx, "e-mail kept in the outbox (SMTP_URL not set)", slog.String("outbox_id", m.ID.String()), slog.String("kind", m.Kind))
		}
		return nil
	}
	params := make([]river.InsertManyParams, len(mails))
	for i, m := range mails {
		params[i] = river.InsertManyParams{Args: DeliverEmailArgs{OutboxID: m.ID}}
	}
	if _, err := client.InsertManyTx(ctx, tx, params); err != nil {
		return fmt.Errorf("enqueue e-mail deliveries: %w", err)
	}
	return nil
}

// DeliverEmailArgs sends one outbox e-mail.
type DeliverEmailArgs struct {
	OutboxID uuid.UUID `json:"outbox_id"`
}

// Kind names the job in the queue.
func (DeliverEmailArgs) Kind() string { return "deliver_email" }

// InsertOpts makes the job unique per e-mail.
func (DeliverEmailArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// DeliverEmailWorker sends an outbox e-mail; a refused or timed-out send
// is retried with River's exponential backoff.
type DeliverEmailWorker struct {
	river.WorkerDefaults[DeliverEmailArgs]
	Mailer *alerts.Mailer
}

// Work delivers the e-mail.
func (w *DeliverEmailWorker) Work(ctx context.Context, job *river.Job[DeliverEmailArgs]) error {
	return w.Mailer.Deliver(ctx, job.Args.OutboxID)
}

// EnqueueAlertScansArgs is the periodic scheduler job.
type EnqueueAlertScansArgs struct{}

// Kind names the job in the queue.
func (EnqueueAlertScansArgs) Kind() string { return "enqueue_alert_scans" }

// EnqueueAlertScansWorker enqueues the due scans and, with SMTP_URL, the
// delivery of e-mails still in the outbox (written while SMTP_URL was not
// set, or whose delivery job gave up).
type EnqueueAlertScansWorker struct {
	river.WorkerDefaults[EnqueueAlertScansArgs]
	Scanner *alerts.Scanner
	Mailer  *alerts.Mailer
	// Now is the clock (tests); nil is time.Now.
	Now func() time.Time
}

// Work enqueues the due jobs.
func (w *EnqueueAlertScansWorker) Work(ctx context.Context, _ *river.Job[EnqueueAlertScansArgs]) error {
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	due, err := alerts.DueScans(ctx, w.Scanner.DB(), now())
	if err != nil {
		return err
	}
	var params []river.InsertManyParams
	for _, d := range due {
		params = append(params, river.InsertManyParams{Args: ScanCompanyAlertsArgs{CompanyID: d.CompanyID, Date: d.Date.String()}})
	}
	// The start of each company day works its transport units' readiness
	// out again (docs/dispatch.md), on the same clock.
	days, err := units.DueDays(ctx, w.Scanner.DB(), now())
	if err != nil {
		return err
	}
	for _, d := range days {
		params = append(params, river.InsertManyParams{Args: StartUnitDayArgs{CompanyID: d.CompanyID, Date: d.Date.String()}})
	}
	if w.Mailer != nil && w.Mailer.Configured() {
		unsent, err := alerts.Unsent(ctx, w.Scanner.DB(), 1000)
		if err != nil {
			return err
		}
		for _, id := range unsent {
			params = append(params, river.InsertManyParams{Args: DeliverEmailArgs{OutboxID: id}})
		}
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := river.ClientFromContext[pgx.Tx](ctx).InsertMany(ctx, params); err != nil {
		return fmt.Errorf("enqueue alert scans: %w", err)
	}
	return nil
}

// StartUnitDayArgs starts one company's day for its transport units:
// their readiness worked out for the local day date, and the changes told.
type StartUnitDayArgs struct {
	CompanyID uuid.UUID `json:"company_id"`
	Date      string    `json:"date"` // YYYY-MM-DD, company-local
}

// Kind names the job in the queue.
func (StartUnitDayArgs) Kind() string { return "start_unit_day" }

// InsertOpts makes the job unique per company and day.
func (StartUnitDayArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// StartUnitDayWorker runs a company's day start (units.StartDay: once per
// company and day, one transaction).
type StartUnitDayWorker struct {
	river.WorkerDefaults[StartUnitDayArgs]
	DB  *pgxpool.Pool
	Log *slog.Logger
}

// Work starts the day; an error makes River retry the job.
func (w *StartUnitDayWorker) Work(ctx context.Context, job *river.Job[StartUnitDayArgs]) error {
	date, err := civil.Parse(job.Args.Date)
	if err != nil {
		return river.JobCancel(fmt.Errorf("start the unit day of %s: %w", job.Args.CompanyID, err))
	}
	n, err := units.StartDay(ctx, w.DB, job.Args.CompanyID, date)
	if err != nil {
		return err
	}
	w.Log.InfoContext(ctx, "unit day started", slog.String("company_id", job.Args.CompanyID.String()),
		slog.String("date", job.Args.Date), slog.Int("changed", n))
	return nil
}
