package drivers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// Offices lists the caller's company's live offices only, headquarters
// first; a role without driver access is refused.
func TestOffices(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	acme, other := fixtures.Company(t, db, fixtures.CompanyName("Acme")), fixtures.Company(t, db, fixtures.CompanyName("Other"))
	fixtures.Office(t, db, acme, "Ostrava", fixtures.City("Ostrava", ""))
	fixtures.Office(t, db, acme, "Praha", fixtures.City("Praha", ""), fixtures.Headquarters())
	fixtures.Office(t, db, acme, "Brno", fixtures.Closed())
	fixtures.Office(t, db, other, "Elsewhere")
	s := drivers.NewService(db, []byte("k"))
	got, err := s.Offices(ctx, auth.Principal{CompanyID: acme, Role: auth.RoleDispatcher})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range got {
		names = append(names, o.Name)
	}
	if len(names) != 2 || names[0] != "Praha" || names[1] != "Ostrava" || !got[0].IsHeadquarters {
		t.Errorf("offices = %v", names)
	}
	if _, err := s.Offices(ctx, auth.Principal{CompanyID: acme, Role: "janitor"}); apperr.KindOf(err) != apperr.KindForbidden {
		t.Errorf("unknown role: %v", err)
	}
}

// Citizenships are the distinct codes of the company's live drivers; a
// driver caller gets its own only.
func TestCitizenships(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	acme, other := fixtures.Company(t, db, fixtures.CompanyName("Acme")), fixtures.Company(t, db, fixtures.CompanyName("Other"))
	own := fixtures.Driver(t, db, acme, fixtures.Citizenship("SK"))
	fixtures.Driver(t, db, acme, fixtures.Citizenship("CZ"))
	fixtures.Driver(t, db, acme, fixtures.Citizenship("CZ"))
	fixtures.Driver(t, db, acme)
	fixtures.Driver(t, db, acme, fixtures.Citizenship("UA"), fixtures.Deleted())
	fixtures.Driver(t, db, other, fixtures.Citizenship("PL"))
	s := drivers.NewService(db, []byte("k"))
	got, err := s.Citizenships(ctx, auth.Principal{CompanyID: acme, Role: auth.RoleAccountant})
	if err != nil || strings.Join(got, ",") != "CZ,SK" {
		t.Errorf("citizenships = %v, %v", got, err)
	}
	got, err = s.Citizenships(ctx, auth.Principal{CompanyID: acme, Role: auth.RoleDriver, DriverID: &own})
	if err != nil || strings.Join(got, ",") != "SK" {
		t.Errorf("own citizenship = %v, %v", got, err)
	}
	got, err = s.Citizenships(ctx, auth.Principal{CompanyID: acme, Role: auth.RoleDriver})
	if err != nil || len(got) != 0 {
		t.Errorf("unlinked driver = %v, %v", got, err)
	}
}
