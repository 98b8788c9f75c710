package audit_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/tenants"
)

// TestRecordAndList: an update's audit row holds the actor, the action and
// only the fields that changed (equal values in another form count as
// unchanged); the log lists only the caller's company, newest
// first, filtered by entity, and is refused to a role without the right.
func TestRecordAndList(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := pgtest.New(t)
	company, other := fixtures.Company(t, db), fixtures.Company(t, db)
	principal := func(company uuid.UUID, role auth.Role, email string) auth.Principal {
		p, err := tenants.NewService(db).Principal(ctx, auth.Identity{Subject: uuid.NewString(), Email: email,
			CompanyID: company.String(), Role: role})
		if err != nil {
			t.Fatal(err)
		}
		p.Name, p.IPAddress, p.UserAgent = "Hana HR", "192.0.2.7", "curl/8"
		return p
	}
	hr := principal(company, auth.RoleHRManager, "hr@example.test")
	stranger := principal(other, auth.RoleAdmin, "admin@example.test")
	driver := fixtures.Driver(t, db, company)

	// Equal values of different forms (a pointer and its value, two
	// amounts parsed apart) are unchanged.
	jan := "Jan"
	salary := func(s string) money.Amount {
		a, err := money.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	before := map[string]any{"first_name": "Jan", "salary": salary("1000.5"), "city": "Brno", "note": nil}
	after := map[string]any{"first_name": &jan, "salary": salary("1000.50"), "city": "Praha", "note": "new"}
	oldValues, newValues := audit.Diff(before, after)
	if len(newValues) != 2 || newValues["city"] != "Praha" || oldValues["city"] != "Brno" || newValues["note"] != "new" {
		t.Fatalf("diff old %v new %v, want city and note only", oldValues, newValues)
	}
	if err := audit.Record(ctx, db, hr, audit.Entry{EntityType: "driver", EntityID: driver, Action: "updated",
		OldValues: oldValues, NewValues: newValues}); err != nil {
		t.Fatal(err)
	}
	if err := audit.Record(ctx, db, hr, audit.Entry{EntityType: "driver", EntityID: uuid.New(), Action: "deleted"}); err != nil {
		t.Fatal(err)
	}
	if err := audit.Record(ctx, db, stranger, audit.Entry{EntityType: "driver", EntityID: driver, Action: "updated",
		NewValues: map[string]any{"x": 1}}); err != nil {
		t.Fatal(err)
	}

	filter := func(f audit.Filter) func(*audit.Filter) error {
		return func(in *audit.Filter) error { *in = f; return nil }
	}
	all, err := audit.NewService(db).List(ctx, hr, filter(audit.Filter{Page: paging.Request{Number: 1, Size: 10}}))
	if err != nil || all.Total != 2 || len(all.Items) != 2 || all.Items[0].Action != "deleted" {
		t.Fatalf("company log: %d rows, total %d, %v", len(all.Items), all.Total, err)
	}
	rows, err := audit.NewService(db).List(ctx, hr, filter(audit.Filter{EntityIDs: []uuid.UUID{driver}, Page: paging.Request{Number: 1, Size: 10}}))
	if err != nil || rows.Total != 1 || len(rows.Items) != 1 {
		t.Fatalf("driver's log: %d rows, total %d, %v (another company's row must not show)", len(rows.Items), rows.Total, err)
	}
	l := rows.Items[0]
	var gotNew, gotOld map[string]any
	if err := json.Unmarshal(l.NewValues, &gotNew); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(l.OldValues, &gotOld); err != nil {
		t.Fatal(err)
	}
	if l.UserID == nil || *l.UserID != hr.UserID || l.User == nil || *l.User != "Hana HR" || l.Action != "updated" ||
		l.IPAddress == nil || *l.IPAddress != "192.0.2.7" || l.Subject.DriverID == nil || *l.Subject.DriverID != driver ||
		len(gotNew) != 2 || gotNew["city"] != "Praha" || gotOld["city"] != "Brno" || gotOld["note"] != nil {
		t.Fatalf("audit row %+v old %v new %v", l, gotOld, gotNew)
	}

	if _, err := audit.NewService(db).List(ctx, hr, filter(audit.Filter{EntityTypes: []string{"nope"}, Page: paging.Request{Number: 1, Size: 10}})); apperr.KindOf(err) != apperr.KindValidation {
		t.Fatalf("unknown entity type: %v", err)
	}
	acc := principal(company, auth.RoleAccountant, "acc@example.test")
	read := false
	if _, err := audit.NewService(db).List(ctx, acc, func(*audit.Filter) error { read = true; return nil }); apperr.KindOf(err) != apperr.KindForbidden || read {
		t.Fatalf("accountant reads the audit log: %v (filter read: %v)", err, read)
	}
	// Another company's admin sees its own company's log only.
	if rows, err := audit.NewService(db).List(ctx, stranger, filter(audit.Filter{Page: paging.Request{Number: 1, Size: 10}})); err != nil || rows.Total != 1 || len(rows.Items) != 1 {
		t.Fatalf("another company's admin: %d rows, total %d, %v", len(rows.Items), rows.Total, err)
	}
}
