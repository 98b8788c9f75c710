package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/internal/tenants"
)

func tenantCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "create" {
		return usageError{errors.New("usage: konvoj tenant create --name NAME [--tier TIER] [--currency CZK] [--country CZ] [--timezone Europe/Prague] [--language cs]")}
	}
	fs := flag.NewFlagSet("tenant create", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var n tenants.NewCompany
	fs.StringVar(&n.Name, "name", "", "company name (required)")
	fs.StringVar(&n.Tier, "tier", "free", "subscription tier: free, starter, professional, business, enterprise")
	fs.StringVar(&n.Currency, "currency", "CZK", "ISO 4217 currency")
	fs.StringVar(&n.Country, "country", "CZ", "ISO 3166-1 alpha-2 country")
	fs.StringVar(&n.Timezone, "timezone", "Europe/Prague", "IANA time zone")
	fs.StringVar(&n.Language, "language", "cs", "default language (cs, en)")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	// Validate before touching the database, so a bad value is exit 2 even
	// with no database around.
	if err := n.Validate(); err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) {
			msg := ""
			for field, msgs := range ae.Fields {
				for _, m := range msgs {
					msg += fmt.Sprintf("\n  --%s: %s", field, m)
				}
			}
			return usageError{fmt.Errorf("invalid company:%s", msg)}
		}
		return usageError{err}
	}
	pool, err := openDatabase(ctx, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	c, err := tenants.NewService(pool).Create(ctx, n)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, c.ID)
	return nil
}

func migrateCmd(ctx context.Context, args []string, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("migrate takes no arguments")}
	}
	pool, err := openDatabase(ctx, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	applied, err := postgres.Migrate(ctx, pool)
	if err != nil {
		return err
	}
	if len(applied) == 0 {
		fmt.Fprintln(stderr, "konvoj: database is up to date")
	}
	for _, a := range applied {
		fmt.Fprintf(stderr, "konvoj: applied %s\n", a)
	}
	return nil
}
