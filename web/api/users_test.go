package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

type userItem struct {
	ID             uuid.UUID `json:"id"`
	Email          string    `json:"email"`
	FirstName      *string   `json:"first_name"`
	LastName       *string   `json:"last_name"`
	Role           string    `json:"role"`
	IsActive       bool      `json:"is_active"`
	LastLoginAt    *string   `json:"last_login_at"`
	ActiveSessions int       `json:"active_sessions"`
}

type userPage struct {
	CurrentPage int        `json:"current_page"`
	Data        []userItem `json:"data"`
	LastPage    int        `json:"last_page"`
	NextPageURL *string    `json:"next_page_url"`
	PerPage     int        `json:"per_page"`
	Total       int        `json:"total"`
}

// TestUsersAPI: an admin lists the company's users (drivers' users too)
// with filters and pages, deactivates one (its next request is refused,
// whatever its token, and its web sessions are gone) and reactivates it;
// not itself, and not another company's user; both changes are audited.
func TestUsersAPI(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company, other := env.Company("Acme", "free"), env.Company("Other", "free")
	ada := env.As(company, auth.RoleAdmin)
	bob := env.As(company, auth.RoleAdmin)
	sarka := env.As(company, auth.RoleHRManager, "s.dvorakova@example.test")
	sarka.Token = env.Sign(jwt.MapClaims{"sub": sarka.UserID.String(), "email": sarka.Email, "aud": "authenticated",
		"role": "authenticated", "app_metadata": map[string]any{"company_id": company.String()},
		"user_metadata": map[string]any{"role": "hr_manager", "first_name": "Šárka", "last_name": "Dvořáková"}})
	dan := env.As(company, auth.RoleDispatcher)
	dora := env.As(company, auth.RoleDriver)
	olga := env.As(other, auth.RoleAdmin)
	for _, c := range []*webtest.Caller{ada, bob, sarka, dan, dora, olga} {
		c.Get("/api/v0/me/sessions").Expect(http.StatusOK) // the user row is written on the first request
	}
	startSession(t, env, sarka, "curl/8", "192.0.2.10")

	list := func(query string) userPage {
		t.Helper()
		var p userPage
		ada.Get("/api/v0/users" + query).Expect(http.StatusOK).Decode(&p)
		return p
	}
	all := list("")
	if all.Total != 5 || len(all.Data) != 5 {
		t.Fatalf("every user of the company, drivers too, none of another's: %+v", all)
	}
	for _, u := range all.Data {
		if u.ID == olga.UserID || !u.IsActive || u.LastLoginAt == nil {
			t.Errorf("user %+v", u)
		}
		if u.ID == sarka.UserID && (u.ActiveSessions != 1 || u.Email != sarka.Email || *u.FirstName != "Šárka") {
			t.Errorf("šárka %+v", u)
		}
	}
	if p := list("?per_page=2&page=3"); p.Total != 5 || len(p.Data) != 1 || p.LastPage != 3 || p.CurrentPage != 3 || p.NextPageURL != nil {
		t.Errorf("page 3 of 2: %+v", p)
	}
	if p := list("?per_page=2"); len(p.Data) != 2 || p.NextPageURL == nil || !strings.Contains(*p.NextPageURL, "page=2") {
		t.Errorf("page 1 of 2: %+v", p)
	}
	for _, q := range []string{"?search=sarka", "?search=DVORAK", "?search=dvořákov", "?search=s.dvorakova%40example"} {
		if p := list(q); p.Total != 1 || p.Data[0].ID != sarka.UserID {
			t.Errorf("%s: %+v", q, p)
		}
	}
	if p := list("?role=driver"); p.Total != 1 || p.Data[0].ID != dora.UserID {
		t.Errorf("role=driver: %+v", p)
	}
	if p := list("?role=admin&is_active=true"); p.Total != 2 {
		t.Errorf("active admins: %+v", p)
	}
	if p := list("?is_active=false"); p.Total != 0 {
		t.Errorf("deactivated: %+v", p)
	}
	ada.Get("/api/v0/users?role=boss").ExpectError(http.StatusBadRequest, "BadRequest")
	ada.Get("/api/v0/users?is_active=maybe").ExpectError(http.StatusBadRequest, "BadRequest")
	dan.Get("/api/v0/users").ExpectError(http.StatusForbidden, "Forbidden")

	// The refusals, in the order of docs/errors.md.
	base := "/api/v0/users/"
	ada.Post(base+olga.UserID.String()+"/deactivate", nil).ExpectError(http.StatusForbidden, "AccessDenied")
	ada.Post(base+uuid.NewString()+"/deactivate", nil).ExpectError(http.StatusNotFound, "NotFound")
	dan.Post(base+bob.UserID.String()+"/deactivate", nil).ExpectError(http.StatusForbidden, "Forbidden")
	dan.Post(base+olga.UserID.String()+"/deactivate", nil).ExpectError(http.StatusForbidden, "Forbidden")
	self := ada.Post(base+ada.UserID.String()+"/deactivate", nil).ExpectError(http.StatusConflict, "Conflict")
	if msg, _ := self["message"].(string); !strings.Contains(msg, "own account") {
		t.Errorf("self-deactivation message: %v", self)
	}
	ada.Post(base+ada.UserID.String()+"/reactivate", nil).ExpectError(http.StatusConflict, "Conflict")
	olga.Get("/api/v0/me/sessions").Expect(http.StatusOK)

	// Deactivated: šárka's next request is refused (her principal was
	// cached a moment ago) and her web session is gone.
	var u userItem
	ada.Post(base+sarka.UserID.String()+"/deactivate", nil).Expect(http.StatusOK).Decode(&u)
	if u.ID != sarka.UserID || u.IsActive || u.ActiveSessions != 0 {
		t.Errorf("deactivated: %+v", u)
	}
	refused := sarka.Get("/api/v0/me/sessions").ExpectError(http.StatusForbidden, "Forbidden")
	if msg, _ := refused["message"].(string); !strings.Contains(msg, "deactivated") {
		t.Errorf("a deactivated user's request: %v", refused)
	}
	ctx := context.Background()
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM web_sessions WHERE user_id = $1`, sarka.UserID); n != 0 {
		t.Errorf("%d web sessions left", n)
	}
	if p := list("?is_active=false"); p.Total != 1 || p.Data[0].ID != sarka.UserID {
		t.Errorf("deactivated: %+v", p)
	}
	// Again: unchanged, no second audit row.
	ada.Post(base+sarka.UserID.String()+"/deactivate", nil).Expect(http.StatusOK)

	ada.Post(base+sarka.UserID.String()+"/reactivate", nil).Expect(http.StatusOK).Decode(&u)
	if !u.IsActive {
		t.Errorf("reactivated: %+v", u)
	}
	sarka.Get("/api/v0/me/sessions").Expect(http.StatusOK)

	rows, err := env.DB.Query(ctx, `SELECT action, user_id, old_values->>'is_active', new_values->>'is_active' FROM audit_logs
		WHERE company_id = $1 AND entity_type = 'user' AND entity_id = $2 ORDER BY created_at, action`, company, sarka.UserID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var action, oldV, newV string
		var by uuid.UUID
		if err := rows.Scan(&action, &by, &oldV, &newV); err != nil {
			t.Fatal(err)
		}
		if by != ada.UserID {
			t.Errorf("%s by %s, want ada", action, by)
		}
		got = append(got, action+":"+oldV+"→"+newV)
	}
	if strings.Join(got, ",") != "deactivated:true→false,reactivated:false→true" {
		t.Errorf("audit rows: %v", got)
	}
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'user' AND company_id = $1`, other); n != 0 {
		t.Errorf("%d audit rows in the other company", n)
	}
}
