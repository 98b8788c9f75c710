package auth

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
)

// matrixTable is the matrix of docs/permissions.md transcribed as text,
// column order admin, hr_manager, accountant, dispatcher, driver; the test
// checks every cell of Matrix against it.
var matrixTable = map[Action]string{
	DriversRead:      "yes yes yes yes own",
	DriversCreate:    "yes yes no no no",
	DriversDelete:    "yes yes no no no",
	DriversImport:    "yes yes no no no",
	DriversUpdate:    "yes yes no no own",
	DriversPersonal:  "yes yes yes no own",
	DocumentsList:    "yes yes no status-only own",
	DocumentsExpiry:  "yes yes no status-only no",
	DocumentsWrite:   "yes yes no no own",
	FilesRead:        "yes yes no no own",
	DocumentsReview:  "yes yes no no no",
	RatingRead:       "yes yes yes yes own",
	RatingManage:     "yes yes no no no",
	FinanceRead:      "yes yes yes no own",
	FinanceWrite:     "yes yes yes no no",
	FinanceDelete:    "yes yes no no no",
	PeriodsManage:    "yes no yes no no",
	PeriodsReopen:    "yes no yes no no",
	PayrollRead:      "yes yes yes no no",
	PenaltiesRead:    "yes yes yes no own",
	PenaltiesManage:  "yes yes no no no",
	PenaltiesRespond: "yes yes no no own",
	AuditRead:        "yes yes no no no",
	DocumentRules:    "yes yes no no no",
	OutboxRead:       "yes yes no no no",
	WebhooksManage:   "yes no no no no",
	SessionsOwn:      "yes yes yes yes yes",
	NotificationsOwn: "yes yes yes yes yes",
	UsersManage:      "yes no no no no",
	FleetRead:        "yes yes yes yes own",
	FleetWrite:       "yes no no yes no",
	FleetDocuments:   "yes no no yes no",
	UnitsRead:        "yes yes no yes own",
	UnitsWrite:       "yes no no yes no",
}

func TestMatrixMatchesDecisions(t *testing.T) {
	if len(matrixTable) != len(Matrix) {
		t.Fatalf("matrix has %d actions, the documented table %d", len(Matrix), len(matrixTable))
	}
	want := map[string]Grant{"yes": All, "no": Deny, "own": Own, "status-only": NoFiles}
	for action, row := range matrixTable {
		cells := strings.Fields(row)
		for i, role := range Roles {
			t.Run(string(action)+"/"+string(role), func(t *testing.T) {
				if got := Allowed(role, action); got != want[cells[i]] {
					t.Errorf("Allowed(%s, %s) = %v, want %v", role, action, got, want[cells[i]])
				}
			})
		}
	}
}

func TestPrincipalChecks(t *testing.T) {
	company, other := uuid.New(), uuid.New()
	own, someone := uuid.New(), uuid.New()
	driver := Principal{CompanyID: company, Role: RoleDriver, DriverID: &own}
	unlinked := Principal{CompanyID: company, Role: RoleDriver}
	hr := Principal{CompanyID: company, Role: RoleHRManager}
	accountant := Principal{CompanyID: company, Role: RoleAccountant}

	cases := []struct {
		name string
		err  error
		want apperr.Kind
	}{
		{"accountant may not create drivers", accountant.Require(DriversCreate), apperr.KindForbidden},
		{"hr may create drivers", hr.Require(DriversCreate), -1},
		{"driver reads own record", driver.CheckDriver(DriversRead, company, own), -1},
		{"driver reads another driver", driver.CheckDriver(DriversRead, company, someone), apperr.KindAccessDenied},
		{"unlinked driver reads anyone", unlinked.CheckDriver(DriversRead, company, own), apperr.KindAccessDenied},
		{"hr reads another company", hr.CheckDriver(DriversRead, other, own), apperr.KindAccessDenied},
		{"hr reads any driver of the company", hr.CheckDriver(DriversRead, company, someone), -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == -1 {
				if c.err != nil {
					t.Fatalf("unexpected error %v", c.err)
				}
				return
			}
			if apperr.KindOf(c.err) != c.want {
				t.Fatalf("got %v (kind %v), want kind %v", c.err, apperr.KindOf(c.err), c.want)
			}
		})
	}
}

func TestIdentityFromClaims(t *testing.T) {
	company := uuid.NewString()
	cases := []struct {
		name    string
		claims  map[string]any
		role    Role
		wantErr bool
	}{
		{"current layout", map[string]any{"sub": "u1", "email": "a@b.c",
			"app_metadata": map[string]any{"company_id": company}, "user_metadata": map[string]any{"role": "accountant"}}, RoleAccountant, false},
		{"earlier layout picks the highest known role", map[string]any{"sub": "u1", "company_id": company,
			"roles": []any{"driver", "dispatcher", "hr_manager", "janitor"}}, RoleHRManager, false},
		{"missing role is driver", map[string]any{"sub": "u1", "company_id": company}, RoleDriver, false},
		{"unknown role is driver", map[string]any{"sub": "u1", "app_metadata": map[string]any{"company_id": company},
			"user_metadata": map[string]any{"role": "superuser"}}, RoleDriver, false},
		{"unknown current role with a roles array is driver, no fallback", map[string]any{"sub": "u1",
			"app_metadata": map[string]any{"company_id": company}, "user_metadata": map[string]any{"role": "superadmin"},
			"roles": []any{"admin"}}, RoleDriver, false},
		{"earlier layout with only unknown roles", map[string]any{"sub": "u1", "company_id": company, "roles": []any{"boss"}}, RoleDriver, false},
		{"no company", map[string]any{"sub": "u1", "user_metadata": map[string]any{"role": "admin"}}, "", true},
		{"no subject", map[string]any{"company_id": company}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := IdentityFromClaims(c.claims)
			if c.wantErr {
				if err == nil {
					t.Fatalf("want an error, got %+v", id)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if id.Role != c.role || id.CompanyID != company {
				t.Fatalf("got role %s company %s", id.Role, id.CompanyID)
			}
		})
	}
}

func TestUserIDFromSubject(t *testing.T) {
	u := uuid.New()
	if got := (Identity{Subject: u.String()}).UserID(); got != u {
		t.Fatalf("a UUID subject must be the user id, got %s", got)
	}
	a := (Identity{Subject: "google-oauth2|123"}).UserID()
	b := (Identity{Subject: "google-oauth2|123"}).UserID()
	c := (Identity{Subject: "google-oauth2|124"}).UserID()
	if a != b || a == c {
		t.Fatalf("derived ids must be stable and distinct: %s %s %s", a, b, c)
	}
}
