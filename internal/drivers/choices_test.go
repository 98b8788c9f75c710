package drivers

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// Offices lists the caller's company's live offices only, headquarters
// first; a role without driver access is refused.
func TestOffices(t *testing.T) {
	db := pgtest.New(t)
	ctx := context.Background()
	var acme, other uuid.UUID
	for _, c := range []struct {
		name string
		id   *uuid.UUID
	}{{"Acme", &acme}, {"Other", &other}} {
		if err := db.QueryRow(ctx, `INSERT INTO companies (name) VALUES ($1) RETURNING id`, c.name).Scan(c.id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(ctx, `
		INSERT INTO offices (company_id, name, city, is_headquarters, deleted_at) VALUES
			($1, 'Ostrava', 'Ostrava', false, NULL), ($1, 'Praha', 'Praha', true, NULL),
			($1, 'Brno', NULL, false, now()), ($2, 'Elsewhere', NULL, false, NULL)`, acme, other); err != nil {
		t.Fatal(err)
	}
	s := NewService(db, []byte("k"))
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
	var acme, other uuid.UUID
	if err := db.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('Acme') RETURNING id`).Scan(&acme); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `INSERT INTO companies (name) VALUES ('Other') RETURNING id`).Scan(&other); err != nil {
		t.Fatal(err)
	}
	var own uuid.UUID
	if err := db.QueryRow(ctx, `
		INSERT INTO drivers (company_id, internal_number, internal_seq, first_name, last_name, email, citizenship, deleted_at)
		VALUES ($1, 'DRV-0001', 1, 'A', 'B', 'a@x.cz', 'SK', NULL), ($1, 'DRV-0002', 2, 'A', 'B', 'b@x.cz', 'CZ', NULL),
			($1, 'DRV-0003', 3, 'A', 'B', 'c@x.cz', 'CZ', NULL), ($1, 'DRV-0004', 4, 'A', 'B', 'd@x.cz', NULL, NULL),
			($1, 'DRV-0005', 5, 'A', 'B', 'e@x.cz', 'UA', now()), ($2, 'DRV-0001', 1, 'A', 'B', 'a@x.cz', 'PL', NULL)
		RETURNING id`, acme, other).Scan(&own); err != nil {
		t.Fatal(err)
	}
	s := NewService(db, []byte("k"))
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
