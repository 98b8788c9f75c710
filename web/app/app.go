// Package app wires the services, the API and the pages onto one server. The
// binary and the tests both build the product through New, so tests run
// exactly what production runs.
package app

import (
	"context"
	"crypto/sha256"
	"fmt"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/documents"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/storage"
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
}

// Services are the domain services, exposed for tests and commands.
type Services struct {
	Audit     *audit.Service
	Documents *documents.Service
	Drivers   *drivers.Service
}

// App is the running product.
type App struct {
	*web.Server
	Services Services
	// Files is the document file store in use.
	Files   storage.Store
	closers []func()
}

// New builds every service and mounts every route.
func New(ctx context.Context, o Options) (*App, error) {
	s := web.NewServer(o.Server)
	db := o.Server.DB
	a := &App{Server: s}
	files := o.Files
	if files == nil {
		var err error
		if files, err = NewFileStore(ctx, o.Server.Config); err != nil {
			return nil, err
		}
	}
	a.Files = files
	a.Services = Services{
		Audit:     audit.NewService(db),
		Documents: documents.NewService(db, files, o.Server.Config.UploadMaxBytes),
		Drivers:   drivers.NewService(db, cursorKey(o.Server.Config)),
	}
	api.Mount(s, &api.Handlers{
		Audit:     a.Services.Audit,
		Documents: a.Services.Documents,
		Drivers:   a.Services.Drivers,
	})
	if _, err := pages.Mount(s, o.Server.Config, pages.Services{
		Tenants:   s.Tenants(),
		Audit:     a.Services.Audit,
		Drivers:   a.Services.Drivers,
		Documents: a.Services.Documents,
	}, o.Server.Logger); err != nil {
		return nil, fmt.Errorf("mount pages: %w", err)
	}
	return a, nil
}

// cursorKey derives the key that signs list cursors from secrets every
// instance shares, so a cursor from one instance works on another.
func cursorKey(cfg config.Config) []byte {
	k := sha256.Sum256([]byte("konvoj-cursor\x00" + cfg.JWTSecret + "\x00" + cfg.DatabaseURL))
	return k[:]
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
