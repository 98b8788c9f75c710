package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/seed"
	"github.com/konvoj/konvoj/internal/services"
	"github.com/konvoj/konvoj/web/app"
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
	pool, err := openDatabase(ctx, true)
	if err != nil {
		return err
	}
	defer pool.Close()
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

// operatorConfig is the configuration of an operator command: the same
// environment as serve (storage, PUBLIC_URL), where a missing JWT secret
// is no error (cfg.JWTSecret stays empty: the command mints no tokens).
func operatorConfig() (config.Config, error) {
	cfg, err := config.Load(os.Getenv)
	if err == nil {
		return cfg, nil
	}
	lenient := func(k string) string {
		if k == "JWT_SECRET" && os.Getenv(k) == "" {
			return strings.Repeat("x", 32)
		}
		if k == "JWT_ALG" {
			return "HS256"
		}
		return os.Getenv(k)
	}
	if cfg, err = config.Load(lenient); err != nil {
		return cfg, usageError{err}
	}
	cfg.JWTSecret = os.Getenv("JWT_SECRET")
	return cfg, nil
}

// seedDemoCmd creates the demo company (once) and prints how to sign in.
func seedDemoCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("seed-demo takes no arguments")}
	}
	if _, err := databaseURL(); err != nil {
		return err
	}
	// Without a JWT secret the demo is still created, only without tokens.
	cfg, err := operatorConfig()
	if err != nil {
		return err
	}
	pool, err := openDatabase(ctx, true)
	if err != nil {
		return err
	}
	defer pool.Close()
	files, err := app.NewFileStore(ctx, cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := seed.Demo(ctx, seed.DemoServices{DB: pool, Set: services.New(pool, services.FromConfig(cfg, files))}, time.Now())
	if err != nil {
		return err
	}
	if res.Created {
		fmt.Fprintf(stderr, "seed-demo: created %q with %d drivers in %s\n", seed.DemoCompanyName, res.Drivers, time.Since(start).Round(time.Millisecond))
	} else {
		fmt.Fprintf(stderr, "seed-demo: %q already exists (%d drivers); nothing changed\n", seed.DemoCompanyName, res.Drivers)
	}
	// The first line is the company id alone, like `tenant create`, so
	// scripts can read it; the hints follow.
	fmt.Fprintf(stdout, "%s\n\nDemo company %q (company_id above)\n\nDemo users (one per role):\n", res.CompanyID, seed.DemoCompanyName)
	for _, u := range res.Users {
		fmt.Fprintf(stdout, "  %-11s %-30s %s\n", u.Role, u.Email, u.Name)
	}
	fmt.Fprintf(stdout, "\nWeb: %s/auth/dev (AUTH_DEV_LOGIN=true, as `make run` sets) signs in as any of them.\n", cfg.PublicURL)
	if cfg.JWTAlg == "HS256" && cfg.JWTSecret != "" {
		fmt.Fprintln(stdout, "\nAPI tokens (HS256, valid 12 hours):")
		for _, u := range res.Users {
			tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
				"sub": u.ID.String(), "email": u.Email, "aud": "authenticated", "role": "authenticated",
				"iat": time.Now().Unix(), "exp": time.Now().Add(12 * time.Hour).Unix(),
				"app_metadata": map[string]any{"company_id": res.CompanyID.String()}, "user_metadata": map[string]any{"role": string(u.Role)},
			}).SignedString([]byte(cfg.JWTSecret))
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "  %-11s %s\n", u.Role, tok)
		}
		fmt.Fprintf(stdout, "\nTry: curl -H \"Authorization: Bearer <token>\" %s/api/v0/drivers\n", cfg.PublicURL)
	} else {
		fmt.Fprintln(stdout, "\nAPI: sign in as one of these users at your identity provider to get a token.")
	}
	return nil
}
