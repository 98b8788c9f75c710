package rating_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/rating"
	"github.com/konvoj/konvoj/internal/rating/ratingtest"
)

// TestStoredComponentsReadAsStored checks that a past month's read answers
// the components its snapshot stores, value for value, though it passes
// the stored object through without decoding it; that the pages' Views
// decodes the same; and that a scanned object is the reader's own copy, not
// a view of the connection's buffer, which the next row overwrites.
func TestStoredComponentsReadAsStored(t *testing.T) {
	db := pgtest.New(t)
	f := ratingtest.New(t, db)
	svc := rating.NewService(db)
	a := f.Driver()
	b := f.Driver(func(d *fixtures.DriverSpec) {
		d.Phone, d.HireDate = fixtures.Text("+420 123"), fixtures.Date("2020-01-01")
	})
	f.Document(a, "passport", "2026-01-20", at("2025-01-10 09:00"))
	f.Penalty(a, "2026-01-15", "1500.00", "pending", false)
	f.Orders(b, "2026-01-10", "completed", 9, false)
	if _, err := svc.RateCompany(ctx, f.Company, jan); err != nil {
		t.Fatal(err)
	}
	stored := readSnapshot(t, db, a, jan).Components
	if len(stored) != len(rating.Metrics) {
		t.Fatalf("stored %d components, want %d", len(stored), len(rating.Metrics))
	}

	r, err := svc.Read(ctx, hrOf(f.Company), a, &jan, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var answer struct {
		Components map[string]rating.ComponentView `json:"components"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	if !reflect.DeepEqual(answer.Components, stored) {
		t.Errorf("answered components\n%v\nstored\n%v", answer.Components, stored)
	}
	views, err := r.Components.Views()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(views, stored) {
		t.Errorf("Views\n%v\nstored\n%v", views, stored)
	}

	// Two rows on one connection: the first scanned object must survive
	// the second row's arrival.
	conn, err := db.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var first, second rating.Components
	const q = `SELECT components FROM rating_snapshots WHERE driver_id = $1 AND rating_period = $2`
	if err := conn.QueryRow(ctx, q, a, jan.First()).Scan(&first); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, q, b, jan.First()).Scan(&second); err != nil {
		t.Fatal(err)
	}
	if got, err := first.Views(); err != nil || !reflect.DeepEqual(got, stored) {
		t.Errorf("the first row's components after the second's were read: %v (%v), want %v", got, err, stored)
	}
}
