package tenants_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"

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
