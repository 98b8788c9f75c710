// Package app wires the services, the API and the pages onto one server. The
// binary and the tests both build the product through New, so tests run
// exactly what production runs.
package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/internal/jobs"
	"github.com/konvoj/konvoj/internal/live"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/api"
	"github.com/konvoj/konvoj/web/pages"
)

// Options are the dependencies that differ between production and tests.
type Options struct {
	Server web.Options
	// Files is where document files are stored; nil builds the store the
	// configuration names (STORAGE_DISK).
	Files storage.Store
	// Jobs starts the background job queue (the monthly rating); on in
	// `konvoj serve`, off in tests unless asked for.
	Jobs bool
	// WebhookTLS is the TLS configuration of webhook deliveries (tests:
	// their own certificate authority); nil is the system's roots.
	WebhookTLS *tls.Config
}

// App is the running product.
type App struct {
	*web.Server
	// Services are the domain services the server calls, exposed for tests.
	Services services.Set
	// Files is the document file store in use.
	Files   storage.Store
	closers []func()
}

// New builds every service and mounts every route. Each part is built with
// what it calls, in order (the import queue, the services, the pages, the
// server), so nothing is set on a part after it is built.
func New(ctx context.Context, o Options) (*App, error) {
	files := o.Files
	if files == nil {
		var err error
		if files, err = NewFileStore(ctx, o.Server.Config); err != nil {
			return nil, err
		}
	}
	so := services.FromConfig(o.Server.Config, files)
	so.System = o.Server.System
	queue, err := importQueue(o.Server.System)
	if err != nil {
		return nil, err
	}
	so.ImportQueue = queue
	svc := services.New(o.Server.DB, so)
	p, err := pages.New(o.Server.Config, svc, o.Server.Logger)
	if err != nil {
		return nil, fmt.Errorf("build pages: %w", err)
	}
	// The live updates' hub: one listening connection and a reader of the
	// events for this instance's streams (docs/live-updates.md).
	var hub *live.Hub
	if o.Server.System != nil {
		hub = live.NewHub(o.Server.System, live.HubOptions{Log: o.Server.Logger})
		hub.Start()
		o.Server.Hub = hub
	}
	s := web.NewServer(o.Server, svc.Tenants, p.RenderError)
	a := &App{Server: s, Services: svc, Files: files}
	if hub != nil {
		a.closers = append(a.closers, hub.Close)
	}
	api.Mount(s, &api.Handlers{Set: svc})
	p.Mount(s)
	if o.Jobs {
		if err := a.startJobs(ctx, o); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// startJobs starts the River client; Close stops it, letting running jobs
// finish for a while and then cancelling them (a cancelled rating run rolls
// back and is retried later).
func (a *App) startJobs(ctx context.Context, o Options) error {
	// Jobs work on every company: they run on the system pool, with a
	// rating service of their own on it.
	system := o.Server.System
	cfg := o.Server.Config
	mailer, err := alerts.NewMailer(system, o.Server.Logger, cfg.SMTPURL, cfg.MailFrom)
	if err != nil {
		return err
	}
	client, err := jobs.NewClient(system, rating.NewService(system), o.Server.Logger, jobs.Options{
		Periodic: true, Scanner: alerts.NewScanner(system, cfg.PublicURL), Mailer: mailer,
		Imports: imports.NewService(system, drivers.NewService(system, nil), fleet.NewService(system, nil), cfg.UploadMaxBytes, nil), Files: a.Files,
		Webhooks: webhooks.NewSender(system, webhooks.Guard{AllowPrivate: cfg.WebhookAllowPrivate}, o.WebhookTLS, o.Server.Logger),
		Sessions: sessions.NewService(system)})
	if err != nil {
		return err
	}
	// Stopping is Close's job, not the caller's context's.
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start job queue: %w", err)
	}
	a.closers = append(a.closers, func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := client.Stop(stopCtx); err != nil {
			hardCtx, cancelHard := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelHard()
			_ = client.StopAndCancel(hardCtx)
		}
	})
	return nil
}

// importQueue lets the imports service queue large files as River jobs
// (docs/import-export.md): an insert-only client on the system pool. The
// jobs are worked where the job queue runs (Jobs); without it, as in most
// tests, a large import stays queued. Without a system pool there is no
// queue (nil).
func importQueue(system *pgxpool.Pool) (imports.Enqueuer, error) {
	if system == nil {
		return nil, nil
	}
	client, err := river.NewClient(riverpgxv5.New(system), &river.Config{})
	if err != nil {
		return nil, fmt.Errorf("import queue client: %w", err)
	}
	return func(ctx context.Context, id, companyID uuid.UUID) error {
		if _, err := client.Insert(ctx, jobs.ImportArgs{ImportID: id, CompanyID: companyID}, nil); err != nil {
			return fmt.Errorf("queue import %s: %w", id, err)
		}
		return nil
	}, nil
}

// NewFileStore builds the file store of the configuration.
func NewFileStore(ctx context.Context, cfg config.Config) (storage.Store, error) {
	if cfg.StorageDisk == "s3" {
		s, err := storage.NewS3(ctx, storage.S3Config{
			Endpoint: cfg.S3Endpoint, Region: cfg.S3Region, Bucket: cfg.S3Bucket,
			AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey, UsePathStyle: cfg.S3UsePathStyle,
		})
		if err != nil {
			return nil, fmt.Errorf("s3 storage: %w", err)
		}
		return s, nil
	}
	s, err := storage.NewLocal(cfg.StorageLocalDir)
	if err != nil {
		return nil, fmt.Errorf("local storage: %w", err)
	}
	return s, nil
}

// Close stops background work started by New.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}
