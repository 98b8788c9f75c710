// Package services builds the domain services together, once: the server,
// the commands, the browser tests and the tests that need several services
// all get their instances from New, so they run the same wiring.
package services

import (
	"crypto/sha256"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/sessions"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/tenants"
	"github.com/konvoj/konvoj/internal/units"
	"github.com/konvoj/konvoj/internal/webhooks"
)

// Set is every domain service, sharing one database pool.
type Set struct {
	Tenants   *tenants.Service
	Audit     *audit.Service
	Drivers   *drivers.Service
	Documents *documents.Service
	// Fleet are the company's vehicles and trailers.
	Fleet *fleet.Service
	// Units are the company's transport units and their readiness.
	Units   *units.Service
	Finance *finance.Service
	Rating  *rating.Service
	// Notifications are the caller's own alerts and e-mail settings.
	Notifications *alerts.Service
	Forms         *forms.Service
	Imports       *imports.Service
	// Webhooks are the company's webhook endpoints (admins).
	Webhooks *webhooks.Service
	// Sessions are the web pages' sign-in sessions.
	Sessions *sessions.Service
}

// Options are what the services need besides the database.
type Options struct {
	// Files is where document files and penalty evidence files are stored (nil: no file can be
	// stored or read, for callers that never touch files).
	Files storage.Store
	// UploadMaxBytes is the largest file (document, penalty evidence) an
	// upload may carry.
	UploadMaxBytes int64
	// CursorKey signs list cursors; it must be secret and the same on every
	// instance.
	CursorKey []byte
	// System is the owner's pool when db is the server's request pool
	// (row-level security): the tenants service needs it for the steps that
	// span companies. Nil means db, for commands and tests that run as the
	// owner.
	System *pgxpool.Pool
	// PublicURL is the external base URL, for the links in e-mails (a
	// review's outcome to the driver).
	PublicURL string
	// Webhooks is the guard of webhook URLs (WEBHOOK_ALLOW_PRIVATE).
	Webhooks webhooks.Guard
	// ImportQueue queues the jobs of large imports (nil: every import runs
	// in its request).
	ImportQueue imports.Enqueuer
}

// FromConfig returns the options of a configuration, with the given file
// store.
func FromConfig(cfg config.Config, files storage.Store) Options {
	return Options{Files: files, UploadMaxBytes: cfg.UploadMaxBytes, CursorKey: cursorKey(cfg), PublicURL: cfg.PublicURL,
		Webhooks: webhooks.Guard{AllowPrivate: cfg.WebhookAllowPrivate}}
}

// cursorKey derives the key that signs list cursors from secrets every
// instance shares, so a cursor from one instance works on another.
func cursorKey(cfg config.Config) []byte {
	k := sha256.Sum256([]byte("konvoj-cursor\x00" + cfg.JWTSecret + "\x00" + cfg.DatabaseURL))
	return k[:]
}

// New builds every domain service on db.
func New(db *pgxpool.Pool, o Options) Set {
	system := o.System
	if system == nil {
		system = db
	}
	drv := drivers.NewService(db, o.CursorKey)
	flt := fleet.NewService(db, o.CursorKey)
	return Set{
		Tenants: tenants.NewRequestService(db, system),
		Audit:   audit.NewService(db),
		Drivers: drv,
		Imports: imports.NewService(db, drv, flt, o.UploadMaxBytes, o.ImportQueue),
		Documents: documents.NewService(db, documents.Options{Files: o.Files, MaxBytes: o.UploadMaxBytes, CursorKey: o.CursorKey,
			// A review's outcome is told to the driver like an alert.
			ReviewNotifier: alerts.ReviewNotifier(o.PublicURL)}),
		Fleet: flt,
		Units: units.NewService(db),
		Finance: finance.NewService(db, o.Files, o.UploadMaxBytes, o.CursorKey,
			// Disputes call HR to act, and their resolution the driver.
			alerts.DisputeNotifier()),
		Rating:        rating.NewService(db),
		Notifications: alerts.NewService(db),
		Forms:         forms.NewService(db),
		Webhooks:      webhooks.NewService(db, o.Webhooks),
		Sessions:      sessions.NewService(db),
	}
}
