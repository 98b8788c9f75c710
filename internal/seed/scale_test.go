package seed_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/seed"
)

// TestScaleCompanyHasItsDerivedRows: the scale seed loads its rows with
// the per-row triggers off (session_replication_role), but the company's
// own triggers must still have run: without its document facts row every
// drivers list came back empty and every driver read answered 404, and
// `make bench` failed on a fresh machine.
func TestScaleCompanyHasItsDerivedRows(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 2, DriversPerCompany: 3, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		var facts, configs int
		var required []string
		err := db.QueryRow(ctx, `SELECT (SELECT count(*) FROM company_document_facts WHERE company_id = $1),
				(SELECT count(*) FROM rating_configs WHERE company_id = $1),
				(SELECT required FROM company_document_facts WHERE company_id = $1)`, id).Scan(&facts, &configs, &required)
		if err != nil {
			t.Fatal(err)
		}
		if facts != 1 || len(required) == 0 {
			t.Errorf("company %s: %d document facts rows, required %v; want 1 row naming the required types", id, facts, required)
		}
		if configs == 0 {
			t.Errorf("company %s has no rating configuration", id)
		}
	}
}

// TestScaleSnapshotsCarryComponents: the benchmark reads a past month's
// stored rating, so every seeded snapshot must carry what the monthly job
// stores, not an empty object: the six metrics, each a component of the
// API's shape, whose contributions add up to the total.
func TestScaleSnapshotsCarryComponents(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 1, DriversPerCompany: 3, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(ctx, `SELECT total_score::text, components FROM rating_snapshots WHERE company_id = $1`, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	snapshots, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (snapshot, error) {
		var s snapshot
		return s, r.Scan(&s.total, &s.components)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(snapshots) == 0 {
		t.Fatal("no snapshots seeded")
	}
	for _, s := range snapshots {
		if len(s.components) != len(rating.Metrics) {
			t.Fatalf("total %s: %d components, want the %d metrics: %v", s.total, len(s.components), len(rating.Metrics), s.components)
		}
		sum := decimal.Zero
		for _, m := range rating.Metrics {
			c, ok := s.components[m]
			if !ok || !c.Applicable || c.Details == "" || c.RawValue == nil {
				t.Fatalf("total %s: component %s is %+v", s.total, m, c)
			}
			sum = sum.Add(decimal.RequireFromString(c.Contribution.String()))
		}
		if total := decimal.RequireFromString(s.total); !sum.Round(2).Equal(total) {
			t.Errorf("contributions add up to %s, total %s", sum, total)
		}
	}
}

type snapshot struct {
	total      string
	components map[string]rating.ComponentView
}

// TestScaleFleet: the scale set's vehicles and trailers are what the fleet
// service lists: a vehicle per driver (one in five a light vehicle with
// its assignment mode), nine trailers to ten drivers (the refrigerated
// ones tagged frigo), every record with the documents of its holder type,
// the plates and VINs taken in the company's keys, and trucks in
// transport units.
func TestScaleFleet(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	ids, err := seed.Scale(ctx, db, seed.ScaleOptions{Companies: 1, DriversPerCompany: 20, TransactionsPerDrv: 1, OrdersPerMonth: 1, Months: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := auth.Principal{UserID: uuid.New(), CompanyID: ids[0], Role: auth.RoleAdmin, CompanyTimezone: "Europe/Prague"}
	svc := fleet.NewService(db, []byte("scale-test-cursor-key"))
	all := func(params *fleet.ListParams) error { params.Page = paging.Request{Number: 1, Size: 100}; return nil }
	vs, err := svc.ListVehicles(ctx, p, all)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := svc.ListTrailers(ctx, p, all)
	if err != nil {
		t.Fatal(err)
	}
	if vs.Total != 20 || ts.Total != 18 {
		t.Fatalf("%d vehicles and %d trailers, want 20 and 18", vs.Total, ts.Total)
	}
	var pkv, units, ready int
	for _, v := range vs.Items {
		if v.Type == "pkv" {
			pkv++
			if v.AssignmentMode == nil {
				t.Errorf("light vehicle %s has no assignment mode", v.InternalNumber)
			}
		}
		if v.DocumentsSummary.Total < 4 {
			t.Errorf("vehicle %s has %d documents", v.InternalNumber, v.DocumentsSummary.Total)
		}
		if v.CurrentUnit != nil {
			units++
		}
		if v.IsReady {
			ready++
		}
	}
	if pkv != 4 || units == 0 || ready == 0 {
		t.Errorf("%d light vehicles (want 4), %d in units, %d ready (want some of each)", pkv, units, ready)
	}
	for _, tr := range ts.Items {
		if tr.HasRefrigeration != slices.Contains(tr.Tags, "frigo") || tr.DocumentsSummary.Total != 5 {
			t.Errorf("trailer %s: refrigeration %v, tags %v, %d documents", tr.InternalNumber, tr.HasRefrigeration, tr.Tags, tr.DocumentsSummary.Total)
		}
	}
	var keys int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM fleet_identifiers WHERE company_id = $1`, ids[0]).Scan(&keys); err != nil {
		t.Fatal(err)
	}
	if keys != 2*(20+18) {
		t.Errorf("%d plate and VIN keys, want %d", keys, 2*(20+18))
	}
	// The next created vehicle takes the next number and a seeded plate is taken.
	in := func(plate string) func(*fleet.Input) error {
		return func(in *fleet.Input) error {
			_ = in.Set("type", "lkv")
			return in.Set("plate_number", plate)
		}
	}
	v, err := svc.CreateVehicle(ctx, p, in("9XY 0001"))
	if err != nil || v.InternalNumber != "VEH-0021" {
		t.Errorf("create after the seed: %s, %v; want VEH-0021", v.InternalNumber, err)
	}
	if _, err := svc.CreateVehicle(ctx, p, in("1pb-0000")); err == nil {
		t.Error("a seeded trailer's plate was taken again")
	}
}
