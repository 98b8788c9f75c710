package holders

import (
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
)

// Reach answers in the documented order: the role, then the company, then
// a caller limited to its own record its own driver; a company's record is
// checked by company only.
func TestReach(t *testing.T) {
	company, other := uuid.New(), uuid.New()
	own, someone := uuid.New(), uuid.New()
	hr := auth.Principal{CompanyID: company, Role: auth.RoleHRManager}
	dispatcher := auth.Principal{CompanyID: company, Role: auth.RoleDispatcher}
	driver := auth.Principal{CompanyID: company, Role: auth.RoleDriver, DriverID: &own}
	for _, tt := range []struct {
		name            string
		p               auth.Principal
		a               auth.Action
		company, driver uuid.UUID
		want            apperr.Kind // KindInternal: no error
	}{
		{"the role first, even for another company's record", dispatcher, auth.DriversDelete, other, someone, apperr.KindForbidden},
		{"then the company", hr, auth.DriversRead, other, someone, apperr.KindAccessDenied},
		{"a driver: another driver", driver, auth.DriversRead, company, someone, apperr.KindAccessDenied},
		{"a driver: its own", driver, auth.DriversRead, company, own, apperr.KindInternal},
		{"staff: any driver of the company", hr, auth.DriversRead, company, someone, apperr.KindInternal},
		{"a company record: company only", driver, auth.RatingRead, company, uuid.Nil, apperr.KindInternal},
		{"a company record of another company", hr, auth.RatingRead, other, uuid.Nil, apperr.KindAccessDenied},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := Reach(tt.p, tt.a, tt.company, tt.driver)
			if got := apperr.KindOf(err); (err == nil) != (tt.want == apperr.KindInternal) || (err != nil && got != tt.want) {
				t.Fatalf("error %v (kind %d), want kind %d", err, got, tt.want)
			}
		})
	}
}

// A collection is the company's, narrowed to the own driver for a caller
// limited to its own, and to nothing for one linked to no driver.
func TestCollection(t *testing.T) {
	company, own := uuid.New(), uuid.New()
	if only, err := Collection(auth.Principal{CompanyID: company, Role: auth.RoleHRManager}, auth.DriversRead); err != nil || only != nil {
		t.Fatalf("hr: %v, %v", only, err)
	}
	if only, err := Collection(auth.Principal{CompanyID: company, Role: auth.RoleDriver, DriverID: &own}, auth.DriversRead); err != nil || only == nil || *only != own {
		t.Fatalf("driver: %v, %v", only, err)
	}
	if only, err := Collection(auth.Principal{CompanyID: company, Role: auth.RoleDriver}, auth.DriversRead); err != nil || only == nil || *only != uuid.Nil {
		t.Fatalf("an unlinked driver's collection must match nothing: %v, %v", only, err)
	}
	if _, err := Collection(auth.Principal{CompanyID: company, Role: auth.RoleDispatcher}, auth.AuditRead); apperr.KindOf(err) != apperr.KindForbidden {
		t.Fatalf("dispatcher audit: %v", err)
	}
}
