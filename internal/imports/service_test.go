package imports

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// queuedImport records a dry run of SyncRows+1 rows, queued for its job
// (which the test runs itself).
func queuedImport(t *testing.T) (*Service, uuid.UUID, uuid.UUID) {
	t.Helper()
	db := pgtest.New(t)
	company := fixtures.Company(t, db)
	svc := NewService(db, drivers.NewService(db, nil), fleet.NewService(db, nil), 0, func(context.Context, uuid.UUID, uuid.UUID) error { return nil })
	p := auth.Principal{CompanyID: company, Role: auth.RoleHRManager, Name: "HR"}
	var file strings.Builder
	file.WriteString("first_name,last_name,email\n")
	for i := range SyncRows + 1 {
		fmt.Fprintf(&file, "Jan,Novák%d,jan%d@example.test\n", i, i)
	}
	im, err := svc.start(context.Background(), p, Upload{Filename: "a.csv", Data: []byte(file.String()), DryRun: true})
	if err != nil || im.Status != "queued" {
		t.Fatalf("start: %+v %v", im, err)
	}
	return svc, company, im.ID
}

// The job of a large import takes one of its company's places too: while
// they are taken it is refused with ErrBusy (its worker snoozes it) and the
// import stays queued; once one is free it runs.
func TestImportJobWaitsForAPlace(t *testing.T) {
	t.Parallel()
	svc, company, id := queuedImport(t)
	ctx := context.Background()
	status := func() string {
		var s string
		if err := svc.db.QueryRow(ctx, `SELECT status FROM imports WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	var ends []func()
	for range MaxRunning {
		end, err := begin(company)
		if err != nil {
			t.Fatal(err)
		}
		ends = append(ends, end)
	}
	if _, err := begin(company); !errors.Is(err, ErrBusy) {
		t.Fatalf("a place beyond %d: %v", MaxRunning, err)
	}
	if err := svc.Run(ctx, company, id); !errors.Is(err, ErrBusy) || status() != "queued" {
		t.Fatalf("run with no place free: %v, status %s", err, status())
	}
	ends[0]()
	ends[0]() // ending twice gives back one place
	if err := svc.Run(ctx, company, id); err != nil || status() != "done" {
		t.Fatalf("run with a place free: %v, status %s", err, status())
	}
	ends[1]()
	busy.Lock()
	n := busy.n[company]
	busy.Unlock()
	if n != 0 {
		t.Errorf("%d places still taken", n)
	}
}
