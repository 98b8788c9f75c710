package tenants_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/tenants"
)

// TestPrincipalConcurrentFirstRequests: a new user's first requests often
// come in parallel (an app loading a screen); each must resolve, none may
// fail on the just-in-time insert of the user row.
func TestPrincipalConcurrentFirstRequests(t *testing.T) {
	ctx := context.Background()
	s := tenants.NewService(pgtest.New(t))
	company, err := s.Create(ctx, tenants.NewCompany{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: company.ID.String(), Role: auth.RoleHRManager}
		var wg sync.WaitGroup
		errs := make(chan error, 10)
		for range 10 {
			wg.Go(func() {
				if _, err := s.Principal(ctx, id); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("concurrent first request: %v", err)
		}
	}
}

// Under row-level security the caller is resolved seeing only the company
// its token names; a user whom the identity provider moved to another
// company is moved with it (the one step that needs the owner's pool), and
// a token naming an unknown company is still 403.
func TestPrincipalOnTheRequestPool(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	s := tenants.NewRequestService(pgtest.Requests(t, url, nil), system)
	first, err := s.Create(ctx, tenants.NewCompany{Name: "First", Tier: "starter"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Create(ctx, tenants.NewCompany{Name: "Second", Tier: "business"})
	if err != nil {
		t.Fatal(err)
	}
	id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: first.ID.String(), Role: auth.RoleHRManager}
	p, err := s.Principal(ctx, id)
	if err != nil || p.CompanyID != first.ID || p.CompanyTier != "starter" {
		t.Fatalf("first company: %+v %v", p, err)
	}
	id.CompanyID = second.ID.String()
	p, err = s.Principal(ctx, id)
	if err != nil || p.CompanyID != second.ID || p.CompanyTier != "business" {
		t.Fatalf("after the move: %+v %v", p, err)
	}
	var company uuid.UUID
	if err := system.QueryRow(ctx, `SELECT company_id FROM users WHERE id = $1`, p.UserID).Scan(&company); err != nil || company != second.ID {
		t.Fatalf("user row in company %s (%v), want %s", company, err, second.ID)
	}
	id.CompanyID = uuid.NewString()
	if _, err := s.Principal(ctx, id); apperr.KindOf(err) != apperr.KindAccessDenied {
		t.Fatalf("unknown company: %v, want AccessDenied", err)
	}
}
