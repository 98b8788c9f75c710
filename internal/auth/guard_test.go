package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
)

// The guard answers in the documented order, and a service's own check of
// a Ref re-runs the role and tenancy checks for its action.
func TestGuard(t *testing.T) {
	ctx := context.Background()
	company, other := uuid.New(), uuid.New()
	own, someone := uuid.New(), uuid.New()
	hr := Principal{CompanyID: company, Role: RoleHRManager}
	dispatcher := Principal{CompanyID: company, Role: RoleDispatcher}
	driver := Principal{CompanyID: company, Role: RoleDriver, DriverID: &own}
	loads := 0
	owner := func(c, d uuid.UUID) Loader {
		return func(context.Context, uuid.UUID) (Owner, error) { loads++; return Owner{CompanyID: c, DriverID: d}, nil }
	}
	missing := func(context.Context, uuid.UUID) (Owner, error) {
		loads++
		return Owner{}, apperr.NotFound("msg.common.not_found.driver")
	}

	for _, tt := range []struct {
		name   string
		p      Principal
		a      Action
		load   Loader
		want   apperr.Kind // KindInternal: no error
		loaded bool
	}{
		{"role first: no lookup", dispatcher, DriversDelete, missing, apperr.KindForbidden, false},
		{"then existence", hr, DriversDelete, missing, apperr.KindNotFound, true},
		{"then the company", hr, DriversRead, owner(other, someone), apperr.KindAccessDenied, true},
		{"a driver: another driver", driver, DriversRead, owner(company, someone), apperr.KindAccessDenied, true},
		{"a driver: its own", driver, DriversRead, owner(company, own), apperr.KindInternal, true},
		{"a company record: company only", driver, RatingRead, owner(company, uuid.Nil), apperr.KindInternal, true},
		{"a company record of another company", hr, RatingRead, owner(other, uuid.Nil), apperr.KindAccessDenied, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			loads = 0
			_, err := Authorize(ctx, tt.p, tt.a, uuid.New(), tt.load)
			if got := apperr.KindOf(err); (err == nil) != (tt.want == apperr.KindInternal) || (err != nil && got != tt.want) {
				t.Fatalf("error %v (kind %d), want kind %d", err, got, tt.want)
			}
			if (loads > 0) != tt.loaded {
				t.Fatalf("loaded %d times, want loaded: %v", loads, tt.loaded)
			}
		})
	}

	// A service checks the Ref for its own action.
	read, err := Authorize(ctx, dispatcher, DriversRead, own, owner(company, own))
	if err != nil {
		t.Fatal(err)
	}
	if err := read.Check(dispatcher, DriversDelete); apperr.KindOf(err) != apperr.KindForbidden {
		t.Errorf("a read Ref let a dispatcher delete: %v", err)
	}
	if err := read.Check(Principal{CompanyID: other, Role: RoleAdmin}, DriversRead); apperr.KindOf(err) != apperr.KindAccessDenied {
		t.Errorf("a Ref of one company served another: %v", err)
	}
	if err := (Ref{}).Check(hr, DriversRead); !errors.Is(err, errNoGuard) {
		t.Errorf("a zero Ref passed: %v", err)
	}

	// Collections: the company, narrowed to the own driver for a driver.
	all, err := hr.Scope(DriversRead)
	if err != nil || all.Only() != nil || all.CompanyID() != company {
		t.Fatalf("hr scope: %+v, %v", all, err)
	}
	mine, err := driver.Scope(DriversRead)
	if err != nil || mine.Only() == nil || *mine.Only() != own {
		t.Fatalf("driver scope: %+v, %v", mine, err)
	}
	unlinked, err := Principal{CompanyID: company, Role: RoleDriver}.Scope(DriversRead)
	if err != nil || unlinked.Only() == nil || *unlinked.Only() != uuid.Nil {
		t.Fatalf("an unlinked driver's scope must match nothing: %+v, %v", unlinked, err)
	}
	if err := all.Check(driver, DriversRead); apperr.KindOf(err) != apperr.KindAccessDenied {
		t.Errorf("a company-wide scope served a driver: %v", err)
	}
	if _, err := dispatcher.Scope(AuditRead); apperr.KindOf(err) != apperr.KindForbidden {
		t.Errorf("dispatcher audit scope: %v", err)
	}
}
