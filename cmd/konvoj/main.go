// Command konvoj is the Konvoj server and its operator commands (docs/operations.md):
// serve, migrate, tenant create, seed-demo.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/mattn/go-isatty"

	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/postgres"
)

// exitUsage is the status for bad arguments or values (docs/operations.md).
const exitUsage = 2

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	var err error
	switch args[0] {
	case "serve":
		err = serveCmd(ctx, args[1:], stdout, stderr)
	case "migrate":
		err = migrateCmd(ctx, args[1:], stderr)
	case "tenant":
		err = tenantCmd(ctx, args[1:], stdout, stderr)
	case "seed-demo":
		err = seedDemoCmd(ctx, args[1:], stdout, stderr)
	case "notify":
		err = notifyCmd(ctx, args[1:], stdout, stderr)
	case "seed-scale":
		err = seedScaleCmd(ctx, args[1:], stdout, stderr)
	case "-h", "--help", "help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "konvoj: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "konvoj: %v\n", err)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "konvoj: %v\n", err)
		return 1
	}
}

// usageError is a bad argument or value: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(w io.Writer) {
	fmt.Fprint(w, `konvoj: the Konvoj back office server

Usage:
  konvoj serve [--no-migrate]   serve the API and the web pages (konvoj serve --help lists the environment)
  konvoj migrate                apply pending database migrations and exit
  konvoj tenant create --name NAME [--tier free|starter|professional|business|enterprise]
                       [--currency CZK] [--country CZ] [--timezone Europe/Prague] [--language cs]
                                create a company and print its id
  konvoj seed-demo              create the demo company (once) and print how to sign in
  konvoj notify --company ID --date YYYY-MM-DD [--dry-run]
                                run a company's expiry alert scan for a day and print what it sends
  konvoj seed-scale [--companies 10] [--drivers-per-company 2000] [--transactions-per-driver 500]
                                generate the large synthetic data set the benchmarks use
`)
}

// newLogger builds the process logger from LOG_FORMAT and LOG_LEVEL.
func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	format := cfg.LogFormat
	if format == "" {
		format = "json"
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			format = "text"
		}
	}
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// openDatabase connects an operator command to DATABASE_URL on the system
// pool (the owner, past row-level security), applying pending migrations
// first when migrate is true. The caller closes the pool.
func openDatabase(ctx context.Context, migrate bool) (*pgxpool.Pool, error) {
	url, err := databaseURL()
	if err != nil {
		return nil, err
	}
	pool, err := postgres.OpenSystem(ctx, url, nil)
	if err != nil {
		return nil, err
	}
	if migrate {
		if _, err := postgres.Migrate(ctx, pool); err != nil {
			pool.Close()
			return nil, err
		}
	}
	return pool, nil
}

// databaseURL is the one setting the operator commands need.
func databaseURL() (string, error) {
	u := os.Getenv("DATABASE_URL")
	if u == "" {
		return "", usageError{errors.New("DATABASE_URL is not set (make run starts a local PostgreSQL and sets it)")}
	}
	return u, nil
}
