package tenants_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/postgres"
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

// A resolved principal is reused for a few seconds (tenants.PrincipalTTL),
// yet what changes through this process is seen on the next lookup: the
// user's language, the company's settings once announced
// (tenants.CompanyChanged, after the commit), and a user moved to another
// company and back.
func TestPrincipalCacheInvalidation(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	s := tenants.NewRequestService(pgtest.Requests(t, url, nil), system)
	first, err := s.Create(ctx, tenants.NewCompany{Name: "First", Language: "cs", Timezone: "Europe/Prague"})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.Create(ctx, tenants.NewCompany{Name: "Second", Tier: "business"})
	if err != nil {
		t.Fatal(err)
	}
	id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: first.ID.String(), Role: auth.RoleHRManager}
	p, err := s.Principal(ctx, id)
	if err != nil || p.Language != "cs" || p.PreferredLanguage != "" {
		t.Fatalf("first lookup: %+v %v", p, err)
	}

	// As a request does: the request pool's statements run for the caller's company.
	if err := s.SetLanguage(postgres.WithCompany(ctx, first.ID), p, "en"); err != nil {
		t.Fatal(err)
	}
	if p, err = s.Principal(ctx, id); err != nil || p.Language != "en" || p.PreferredLanguage != "en" {
		t.Fatalf("after the language change: %+v %v", p, err)
	}

	if _, err := system.Exec(ctx, `UPDATE companies SET timezone = 'America/New_York', currency = 'USD', subscription_tier = 'enterprise' WHERE id = $1`, first.ID); err != nil {
		t.Fatal(err)
	}
	tenants.CompanyChanged(first.ID)
	if p, err = s.Principal(ctx, id); err != nil || p.CompanyTimezone != "America/New_York" || p.CompanyCurrency != "USD" || p.CompanyTier != "enterprise" {
		t.Fatalf("after the company's settings changed: %+v %v", p, err)
	}

	// Moved to the second company and back: the user row follows both
	// moves, although the first company's principal was cached.
	moved := id
	moved.CompanyID = second.ID.String()
	if p, err = s.Principal(ctx, moved); err != nil || p.CompanyID != second.ID {
		t.Fatalf("moved: %+v %v", p, err)
	}
	if p, err = s.Principal(ctx, id); err != nil || p.CompanyID != first.ID {
		t.Fatalf("moved back: %+v %v", p, err)
	}
	var company uuid.UUID
	if err := system.QueryRow(ctx, `SELECT company_id FROM users WHERE id = $1`, p.UserID).Scan(&company); err != nil || company != first.ID {
		t.Fatalf("user row in company %s (%v), want %s", company, err, first.ID)
	}
}
