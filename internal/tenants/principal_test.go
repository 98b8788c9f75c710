package tenants_test

import (
	"context"
	"errors"
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
// its token names, and a token naming an unknown company is 403.
func TestPrincipalOnTheRequestPool(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	s := tenants.NewRequestService(pgtest.Requests(t, url, nil), system)
	first, err := s.Create(ctx, tenants.NewCompany{Name: "First", Tier: "starter"})
	if err != nil {
		t.Fatal(err)
	}
	id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: first.ID.String(), Role: auth.RoleHRManager}
	p, err := s.Principal(ctx, id)
	if err != nil || p.CompanyID != first.ID || p.CompanyTier != "starter" {
		t.Fatalf("first company: %+v %v", p, err)
	}
	id.CompanyID = uuid.NewString()
	if _, err := s.Principal(ctx, id); apperr.KindOf(err) != apperr.KindAccessDenied {
		t.Fatalf("unknown company: %v, want AccessDenied", err)
	}
}

// A resolved principal is reused for a few seconds (tenants.PrincipalTTL),
// yet what changes through this process is seen on the next lookup: the
// user's language, the company's settings once announced
// (tenants.CompanyChanged, after the commit).
func TestPrincipalCacheInvalidation(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	s := tenants.NewRequestService(pgtest.Requests(t, url, nil), system)
	first, err := s.Create(ctx, tenants.NewCompany{Name: "First", Language: "cs", Timezone: "Europe/Prague"})
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
}

// messageKey is the catalogue key of an apperr error's message.
func messageKey(err error) string {
	var e *apperr.Error
	if errors.As(err, &e) {
		return e.Text.Key
	}
	return ""
}

// A token whose subject is a user of another company is refused (403
// AccessDenied): the user row stays in its company, unchanged, and the user
// is still resolved there. Whether the row is hidden by row-level security
// (the server's request pool) or not (the owner's pool of commands and
// tests), it is never moved.
func TestPrincipalRefusesAnotherCompanysUser(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	pools := map[string]*tenants.Service{
		"request pool": tenants.NewRequestService(pgtest.Requests(t, url, nil), system),
		"owner's pool": tenants.NewService(system),
	}
	for name, s := range pools {
		t.Run(name, func(t *testing.T) {
			first, err := s.Create(ctx, tenants.NewCompany{Name: "First", Tier: "starter"})
			if err != nil {
				t.Fatal(err)
			}
			second, err := s.Create(ctx, tenants.NewCompany{Name: "Second", Tier: "business"})
			if err != nil {
				t.Fatal(err)
			}
			id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: first.ID.String(),
				Role: auth.RoleHRManager, FirstName: "Hana", LastName: "Horáková"}
			if _, err := s.Principal(ctx, id); err != nil {
				t.Fatal(err)
			}
			other := id
			other.CompanyID, other.Email, other.Role, other.FirstName = second.ID.String(), "boss@second.test", auth.RoleAdmin, "Mallory"
			for range 2 { // the refusal is not cached as anything else either
				_, err := s.Principal(ctx, other)
				if apperr.KindOf(err) != apperr.KindAccessDenied || messageKey(err) != "msg.auth.other_company" {
					t.Fatalf("token of the second company: %v, want AccessDenied msg.auth.other_company", err)
				}
			}
			var (
				company           uuid.UUID
				email, role, name string
			)
			if err := system.QueryRow(ctx, `SELECT company_id, email, role, first_name FROM users WHERE id = $1`, id.UserID()).
				Scan(&company, &email, &role, &name); err != nil {
				t.Fatal(err)
			}
			if company != first.ID || email != id.Email || role != string(id.Role) || name != "Hana" {
				t.Fatalf("user row now %s %s %s %s, want it unchanged in %s", company, email, role, name, first.ID)
			}
			tenants.CompanyChanged(first.ID) // not from the cache: the row itself
			if p, err := s.Principal(ctx, id); err != nil || p.CompanyID != first.ID || p.Role != auth.RoleHRManager {
				t.Fatalf("the user in its own company: %+v %v", p, err)
			}
		})
	}
}

// A deactivated user is refused (403 Forbidden, msg.auth.deactivated),
// whether its principal was never resolved or was cached before the
// deactivation was announced, and however its token differs from the row:
// the just-in-time upsert never makes it active again.
func TestPrincipalRefusesDeactivatedUser(t *testing.T) {
	ctx := context.Background()
	system, url := pgtest.NewWithURL(t, nil)
	s := tenants.NewRequestService(pgtest.Requests(t, url, nil), system)
	company, err := s.Create(ctx, tenants.NewCompany{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	refused := func(t *testing.T, id auth.Identity) {
		t.Helper()
		_, err := s.Principal(ctx, id)
		if apperr.KindOf(err) != apperr.KindForbidden || messageKey(err) != "msg.auth.deactivated" {
			t.Fatalf("deactivated user: %v, want Forbidden msg.auth.deactivated", err)
		}
		var active bool
		if err := system.QueryRow(ctx, `SELECT is_active FROM users WHERE id = $1`, id.UserID()).Scan(&active); err != nil || active {
			t.Fatalf("user active again (%v): %v", active, err)
		}
	}

	// Resolved and cached, then deactivated and announced (as a change
	// through this process is).
	id := auth.Identity{Subject: uuid.NewString(), Email: "hr@example.test", CompanyID: company.ID.String(), Role: auth.RoleHRManager}
	if _, err := s.Principal(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := system.Exec(ctx, `UPDATE users SET is_active = false WHERE id = $1`, id.UserID()); err != nil {
		t.Fatal(err)
	}
	tenants.CompanyChanged(company.ID)
	refused(t, id)

	// A token that would refresh the row (another e-mail, role and name,
	// the last sign-in long ago) changes nothing.
	if _, err := system.Exec(ctx, `UPDATE users SET last_login_at = now() - interval '1 day' WHERE id = $1`, id.UserID()); err != nil {
		t.Fatal(err)
	}
	changed := id
	changed.Email, changed.Role, changed.FirstName = "new@example.test", auth.RoleAdmin, "New"
	refused(t, changed)

	// Never resolved in this process: refused on its first request.
	fresh := auth.Identity{Subject: uuid.NewString(), Email: "dan@example.test", CompanyID: company.ID.String(), Role: auth.RoleDispatcher}
	if _, err := system.Exec(ctx, `INSERT INTO users (id, company_id, external_id, email, role, is_active) VALUES ($1, $2, $3, $4, $5, false)`,
		fresh.UserID(), company.ID, fresh.Subject, fresh.Email, string(fresh.Role)); err != nil {
		t.Fatal(err)
	}
	refused(t, fresh)
}
