package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/seed"
)

// seedScaleCmd generates the large synthetic data set for benchmarks.
func seedScaleCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed-scale", flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := seed.ScaleOptions{}
	fs.IntVar(&o.Companies, "companies", 10, "number of companies")
	fs.IntVar(&o.DriversPerCompany, "drivers-per-company", 2000, "drivers in each company")
	fs.IntVar(&o.TransactionsPerDrv, "transactions-per-driver", 500, "finance transactions per driver")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if o.Companies < 1 || o.DriversPerCompany < 1 || o.TransactionsPerDrv < 1 {
		return usageError{errors.New("--companies, --drivers-per-company and --transactions-per-driver must be at least 1")}
	}
	url, err := databaseURL()
	if err != nil {
		return err
	}
	pool, err := postgres.Open(ctx, url, nil)
	if err != nil {
		return err
	}
	defer pool.Close()
	if _, err := postgres.Migrate(ctx, pool); err != nil {
		return err
	}
	start := time.Now()
	o.Log = func(format string, a ...any) { fmt.Fprintf(stderr, "seed-scale: "+format+"\n", a...) }
	ids, err := seed.Scale(ctx, pool, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "seed-scale: %d companies × %d drivers ready in %s\n", len(ids), o.DriversPerCompany, time.Since(start).Round(time.Millisecond))
	for _, id := range ids {
		fmt.Fprintln(stdout, id)
	}
	return nil
}
