package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/pprof"
	"os"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/imports"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/uploads"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/app"
)

// shutdownGrace is how long in-flight requests may take after SIGTERM.
const shutdownGrace = 25 * time.Second

func serveCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	noMigrate := fs.Bool("no-migrate", false, "do not apply pending migrations at start")
	fs.Usage = func() {
		fmt.Fprintln(stdout, "Usage: konvoj serve [--no-migrate]\n\nEnvironment:")
		for _, v := range config.Vars {
			def := v.Default
			if def == "" {
				def = "(none)"
			}
			fmt.Fprintf(stdout, "  %-22s %s [default: %s]\n", v.Name, v.Help, def)
		}
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return usageError{err}
	}
	if cfg.DatabaseURL == "" {
		return usageError{errors.New("DATABASE_URL is not set (make run starts a local PostgreSQL and sets it)")}
	}
	log := newLogger(cfg, stderr)
	slog.SetDefault(log)
	for _, w := range cfg.Warnings {
		log.Warn(w)
	}

	// Two pools on one DATABASE_URL: the system pool (the owner) migrates
	// and runs the background jobs; the request pool runs every request as
	// the request role, under row-level security (docs/security.md).
	system, err := postgres.OpenSystem(ctx, cfg.DatabaseURL, nil)
	if err != nil {
		return err
	}
	defer system.Close()
	if !*noMigrate {
		applied, err := postgres.Migrate(ctx, system)
		if err != nil {
			return err
		}
		for _, a := range applied {
			log.Info("migration applied", slog.String("file", a))
		}
	}
	requests, err := postgres.OpenRequests(ctx, cfg.DatabaseURL, nil, cfg.DatabaseMaxConns)
	if err != nil {
		return err
	}
	defer requests.Close()

	verifier, err := newVerifier(ctx, cfg)
	if err != nil {
		return err
	}
	var limiter ratelimit.Store = ratelimit.NewMemory()
	switch cfg.RateLimitStore {
	case "none":
		limiter = nil
		log.Warn("rate limiting is off (RATE_LIMIT_STORE=none): use this for load benchmarks only")
	case "redis":
		opt, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return usageError{fmt.Errorf("REDIS_URL: %w", err)}
		}
		// Short timeouts and no retries: while Redis is down the limiter
		// falls back to memory (ratelimit.Fallback) and tries again once
		// a second.
		opt.DialTimeout, opt.ReadTimeout, opt.WriteTimeout, opt.MaxRetries = 250*time.Millisecond, 250*time.Millisecond, 250*time.Millisecond, -1
		client := redis.NewClient(opt)
		defer client.Close()
		limiter = ratelimit.NewFallback(ratelimit.NewRedis(client, "konvoj:ratelimit:"), log)
	}

	// One set of deadlines for the HTTP server and the idempotency keys,
	// which must not be taken over while a request may still run.
	deadlines := web.DefaultDeadlines
	srv, err := app.New(ctx, app.Options{Server: web.Options{
		Config: cfg, DB: requests, System: system, Verifier: verifier, Limiter: limiter, Logger: log,
		Deadlines: deadlines,
	}, Jobs: true})
	if err != nil {
		return err
	}
	// What a crash during an upload left behind: swept at start, then
	// hourly (docs/security.md, "Uploads and crashes").
	go sweepUploads(ctx, log, cfg, system, srv.Files)
	// Imports a crash cut off: failed at start, then every minute by a
	// River job (docs/import-export.md).
	if n, err := imports.FailInterrupted(ctx, system); err != nil {
		log.Warn("interrupted imports", slog.Any("error", err))
	} else if n > 0 {
		log.Info("interrupted imports failed", slog.Int64("imports", n))
	}
	httpSrv := web.HTTPServer(cfg.HTTPAddr, srv.Echo, deadlines)
	// Open live-update streams never finish on their own: the shutdown
	// ends them first, and their clients reconnect to another instance.
	httpSrv.RegisterOnShutdown(srv.CloseStreams)
	errc := make(chan error, 2)
	go func() {
		log.Info("konvoj listening", slog.String("addr", cfg.HTTPAddr), slog.String("public_url", cfg.PublicURL))
		errc <- httpSrv.ListenAndServe()
	}()
	var metricsSrv *http.Server
	if cfg.MetricsAddr != "" {
		// /metrics on its own listener only (docs/operations.md).
		metricsSrv = &http.Server{Addr: cfg.MetricsAddr, Handler: srv.MetricsHandler(),
			ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
		go func() {
			log.Info("metrics listening", slog.String("addr", cfg.MetricsAddr))
			errc <- metricsSrv.ListenAndServe()
		}()
	}
	var pprofSrv *http.Server
	if cfg.PprofAddr != "" {
		// Profiles on their own loopback listener only (config refuses
		// any other address; docs/operations.md).
		pprofSrv = &http.Server{Addr: cfg.PprofAddr, Handler: pprofHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() {
			log.Info("pprof listening", slog.String("addr", cfg.PprofAddr))
			errc <- pprofSrv.ListenAndServe()
		}()
	}
	select {
	case err := <-errc:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing in-flight requests")
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if metricsSrv != nil {
		_ = metricsSrv.Shutdown(shutCtx)
	}
	if pprofSrv != nil {
		_ = pprofSrv.Close() // a running CPU profile need not finish
	}
	if err := httpSrv.Shutdown(shutCtx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	srv.Close()
	log.Info("stopped")
	return nil
}

// newVerifier builds the token verifier; for RS256/ES256 with only an OIDC
// issuer configured, the key set is the issuer's discovered jwks_uri.
func newVerifier(ctx context.Context, cfg config.Config) (*auth.Verifier, error) {
	vc := auth.VerifierConfig{
		Alg: cfg.JWTAlg, Secret: cfg.JWTSecret, PublicKeyFile: cfg.JWTPublicKeyFile,
		JWKSURL: cfg.JWTJWKSURL, Issuer: cfg.JWTIssuer, Audience: cfg.JWTAudience,
	}
	if cfg.JWTAlg != "HS256" && vc.JWKSURL == "" && vc.PublicKeyFile == "" && cfg.OIDCIssuerURL != "" {
		provider, err := oidc.NewProvider(ctx, cfg.OIDCIssuerURL)
		if err != nil {
			return nil, fmt.Errorf("discover OIDC issuer %s: %w", cfg.OIDCIssuerURL, err)
		}
		var meta struct {
			JWKSURI string `json:"jwks_uri"`
		}
		if err := provider.Claims(&meta); err != nil || meta.JWKSURI == "" {
			return nil, fmt.Errorf("OIDC issuer %s has no jwks_uri", cfg.OIDCIssuerURL)
		}
		vc.JWKSURL = meta.JWKSURI
	}
	return auth.NewVerifier(ctx, vc)
}

// pprofHandler serves Go's runtime profiles (net/http/pprof) under
// /debug/pprof/, on a mux of its own: nothing else is on that listener.
func pprofHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// sweepUploads removes what a crash during an upload left behind: at start
// the stored objects whose row never committed (uploads.SweepOrphans;
// after that the hourly River job sweeps them, once across instances) and
// this instance's temporary files; then, every hour until ctx ends, the
// temporary files again (they are on this machine, so each instance sweeps
// its own).
func sweepUploads(ctx context.Context, log *slog.Logger, cfg config.Config, system *pgxpool.Pool, files storage.Store) {
	temp := func() int {
		n, err := storage.SweepTemp(os.TempDir(), uploads.SpoolPattern, storage.StaleAge, false)
		if cfg.StorageDisk == "local" {
			m, lerr := storage.SweepTemp(cfg.StorageLocalDir, storage.TempPattern, storage.StaleAge, true)
			n, err = n+m, errors.Join(err, lerr)
		}
		if err != nil {
			log.Warn("temporary file sweep", slog.Any("error", err))
		}
		return n
	}
	objects, err := uploads.SweepOrphans(ctx, system, files, uploads.OrphanAge)
	if err != nil {
		log.Warn("orphaned upload object sweep", slog.Any("error", err))
	}
	log.Info("uploads swept", slog.Int("temporary_files", temp()), slog.Int("objects", objects))
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n := temp(); n > 0 {
				log.Info("uploads swept", slog.Int("temporary_files", n))
			}
		}
	}
}
