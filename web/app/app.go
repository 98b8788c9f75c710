// Package app wires the services, the API and the pages onto one server. The
// binary and the tests both build the product through New, so tests run
// exactly what production runs.
package app

import (
	"context"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/api"
)

// Options are the dependencies that differ between production and tests.
type Options struct {
	Server web.Options
}

// Services are the domain services, exposed for tests and commands.
type Services struct {
	Audit *audit.Service
}

// App is the running product.
type App struct {
	*web.Server
	Services Services
	closers  []func()
}

// New builds every service and mounts every route.
func New(ctx context.Context, o Options) (*App, error) {
	s := web.NewServer(o.Server)
	db := o.Server.DB
	a := &App{Server: s}
	a.Services = Services{
		Audit: audit.NewService(db),
	}
	api.Mount(s, &api.Handlers{
		Audit: a.Services.Audit,
	})
	return a, nil
}

// Close stops background work started by New.
func (a *App) Close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}
