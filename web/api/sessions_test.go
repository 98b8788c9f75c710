package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// startSession signs the caller's user in to the pages as a browser would
// (the sessions service the sign-in uses) and returns the session's id.
func startSession(t *testing.T, env *webtest.Env, c *webtest.Caller, userAgent, ip string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	id := auth.Identity{Subject: c.UserID.String(), Email: c.Email, CompanyID: c.CompanyID.String(), Role: c.Role}
	p, err := env.App.Services.Tenants.Principal(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	_, s, err := env.App.Services.Sessions.Start(ctx, id, p, userAgent, ip)
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// TestMySessionsAPI: a token caller lists its user's web sessions (none is
// current: a token is not a session) and ends one; another user's session
// is 404 and another company's 403, and neither ends.
func TestMySessionsAPI(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company, other := env.Company("Acme", "free"), env.Company("Other", "free")
	hana := env.As(company, auth.RoleHRManager)
	dan := env.As(company, auth.RoleDispatcher)
	olga := env.As(other, auth.RoleAdmin)

	laptop := startSession(t, env, hana, "Mozilla/5.0 (X11; Linux x86_64) Chrome/140.0 Safari/537.36", "192.0.2.10")
	phone := startSession(t, env, hana, "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) Version/18.0 Mobile Safari/604.1", "198.51.100.7")
	dans := startSession(t, env, dan, "curl/8", "192.0.2.20")
	olgas := startSession(t, env, olga, "curl/8", "192.0.2.30")

	var list struct {
		Data []struct {
			ID         uuid.UUID `json:"id"`
			CreatedAt  time.Time `json:"created_at"`
			LastSeenAt time.Time `json:"last_seen_at"`
			UserAgent  string    `json:"user_agent"`
			IPAddress  string    `json:"ip_address"`
			Current    bool      `json:"current"`
		} `json:"data"`
	}
	hana.Get("/api/v0/me/sessions").Expect(http.StatusOK).Decode(&list)
	if len(list.Data) != 2 {
		t.Fatalf("hana's sessions: %+v", list.Data)
	}
	seen := map[uuid.UUID]bool{}
	for _, s := range list.Data {
		seen[s.ID] = true
		if s.Current || s.CreatedAt.IsZero() || s.LastSeenAt.Before(s.CreatedAt) || s.UserAgent == "" || s.IPAddress == "" {
			t.Errorf("session %+v", s)
		}
	}
	if !seen[laptop] || !seen[phone] {
		t.Errorf("listed %v, want %s and %s", seen, laptop, phone)
	}

	// Another user's session is 404, another company's 403; both live on.
	hana.Delete("/api/v0/me/sessions/"+dans.String()).ExpectError(http.StatusNotFound, "NotFound")
	hana.Delete("/api/v0/me/sessions/"+olgas.String()).ExpectError(http.StatusForbidden, "AccessDenied")
	hana.Delete("/api/v0/me/sessions/"+uuid.NewString()).ExpectError(http.StatusNotFound, "NotFound")
	hana.Delete("/api/v0/me/sessions/not-a-uuid").ExpectError(http.StatusNotFound, "NotFound")
	var left int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM web_sessions WHERE id = ANY($1)`,
		[]uuid.UUID{dans, olgas}).Scan(&left); err != nil || left != 2 {
		t.Fatalf("other users' sessions left: %d, %v", left, err)
	}
	dan.Get("/api/v0/me/sessions").Expect(http.StatusOK).Decode(&list)
	if len(list.Data) != 1 || list.Data[0].ID != dans {
		t.Errorf("dan's sessions: %+v", list.Data)
	}

	// Ending one of hana's own.
	hana.Delete("/api/v0/me/sessions/" + phone.String()).Expect(http.StatusNoContent)
	hana.Get("/api/v0/me/sessions").Expect(http.StatusOK).Decode(&list)
	if len(list.Data) != 1 || list.Data[0].ID != laptop {
		t.Errorf("after ending the phone's: %+v", list.Data)
	}
	hana.Delete("/api/v0/me/sessions/"+phone.String()).ExpectError(http.StatusNotFound, "NotFound")
}
