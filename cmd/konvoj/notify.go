package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/civil"
)

// notifyCmd runs a company's expiry alert scan for one day by hand
// (docs/alerts.md) and prints what it sends; --dry-run keeps nothing. The
// e-mails it writes wait in the outbox for a running server, whose
// scheduler queues their delivery.
func notifyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("notify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	company := fs.String("company", "", "company id (required)")
	date := fs.String("date", "", "the company-local day to scan, YYYY-MM-DD (required)")
	dryRun := fs.Bool("dry-run", false, "show what the scan would record and send, keep nothing")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Errorf("unexpected argument %q", fs.Arg(0))}
	}
	id, err := uuid.Parse(*company)
	if err != nil {
		return usageError{errors.New("--company must be a company id (UUID)")}
	}
	day, err := civil.Parse(*date)
	if err != nil {
		return usageError{errors.New("--date must be a date (YYYY-MM-DD)")}
	}
	cfg, err := operatorConfig()
	if err != nil {
		return err
	}
	pool, err := openDatabase(ctx, false)
	if err != nil {
		return err
	}
	defer pool.Close()
	s := alerts.NewScanner(pool, cfg.PublicURL)
	var res alerts.Result
	if *dryRun {
		res, err = s.Preview(ctx, id, day)
	} else {
		res, err = s.Scan(ctx, id, day, nil)
	}
	if err != nil {
		return err
	}
	printScan(stdout, res, *dryRun)
	return nil
}

func printScan(w io.Writer, res alerts.Result, dryRun bool) {
	if res.AlreadyRun {
		fmt.Fprintln(w, "This company's scan of that day has run already: nothing to send.")
		return
	}
	if res.Empty {
		fmt.Fprintln(w, "This company has no active driver: nothing to scan, the day is left to the scheduler.")
		return
	}
	verb := "Recorded"
	if dryRun {
		verb = "Would record"
	}
	fmt.Fprintf(w, "%s %d alert(s):\n", verb, len(res.Alerts))
	for _, a := range res.Alerts {
		until := ""
		if a.ValidUntil != nil {
			until = ", valid until " + a.ValidUntil.String()
		}
		fmt.Fprintf(w, "  %s %s: %s %s%s\n", a.InternalNumber, a.DriverName, a.DocumentType, a.Stage, until)
	}
	verb = "Wrote to the outbox"
	if dryRun {
		verb = "Would send"
	}
	fmt.Fprintf(w, "%s %d e-mail(s):\n", verb, len(res.Emails))
	for _, e := range res.Emails {
		fmt.Fprintf(w, "\n--- to %s (%s, %s): %s\n%s", e.Recipient, e.Kind, e.Language, e.Subject, e.Text)
	}
}
