package api_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/web/webtest"
)

// scanToday runs the company's alert scan for today (Europe/Prague).
func scanToday(t *testing.T, env *webtest.Env, company uuid.UUID) alerts.Result {
	t.Helper()
	loc, _ := time.LoadLocation("Europe/Prague")
	res, err := alerts.NewScanner(env.DB, "http://localhost:8080").Scan(context.Background(), company, civil.DateOf(time.Now().In(loc)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestNotificationsAPI(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	admin := env.As(company, auth.RoleAdmin)
	jan := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz", "citizenship": "CZ"})
	eva := drvCreate(t, hr, map[string]any{"first_name": "Eva", "last_name": "Nová", "email": "eva@example.cz", "citizenship": "CZ"})
	driver := env.As(company, auth.RoleDriver, "jan@example.cz")
	for _, c := range []*webtest.Caller{hr, admin, driver} { // their user rows
		c.Get("/api/v0/notifications").Expect(http.StatusOK)
	}
	for _, id := range []uuid.UUID{jan.ID, eva.ID} {
		for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95"} {
			drvSetDocument(t, env, id, typ, nil)
		}
	}
	drvSetDocument(t, env, jan.ID, "medical_examination", drvDays(-2)) // expired
	// Eva's medical examination is missing.
	res := scanToday(t, env, company)
	if len(res.Alerts) != 2 {
		t.Fatalf("%d alerts, want 2", len(res.Alerts))
	}

	var page struct {
		Total int `json:"total"`
		Data  []struct {
			ID           uuid.UUID  `json:"id"`
			Kind         string     `json:"kind"`
			Stage        string     `json:"stage"`
			DriverID     uuid.UUID  `json:"driver_id"`
			DocumentType string     `json:"document_type"`
			Title        string     `json:"title"`
			Body         string     `json:"body"`
			ReadAt       *time.Time `json:"read_at"`
		} `json:"data"`
	}
	hr.Get("/api/v0/notifications").Expect(http.StatusOK).Decode(&page)
	if page.Total != 2 || len(page.Data) != 2 {
		t.Fatalf("HR notifications: %+v", page)
	}
	for _, n := range page.Data {
		if n.Kind != "document_alert" || n.DocumentType != "medical_examination" || n.ReadAt != nil || n.Title == "" || n.Body == "" {
			t.Errorf("notification %+v", n)
		}
	}
	// The driver sees its own only.
	driver.Get("/api/v0/notifications").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].DriverID != jan.ID || page.Data[0].Stage != "expired" || page.Data[0].Title != "Jan Novák: Medical examination, Expired" {
		t.Errorf("driver notifications: %+v", page)
	}
	driverNote := page.Data[0].ID

	// Mark one read; the unread filter and the other user's id.
	hr.Get("/api/v0/notifications?per_page=1").Expect(http.StatusOK).Decode(&page)
	first := page.Data[0].ID
	hr.Post("/api/v0/notifications/"+first.String()+"/read", nil).Expect(http.StatusNoContent)
	hr.Post("/api/v0/notifications/"+first.String()+"/read", nil).Expect(http.StatusNoContent)
	hr.Get("/api/v0/notifications?unread=true").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID == first {
		t.Errorf("unread after marking one: %+v", page)
	}
	hr.Get("/api/v0/notifications?unread=false").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID != first || page.Data[0].ReadAt == nil {
		t.Errorf("read ones: %+v", page)
	}
	hr.Get("/api/v0/notifications?unread=maybe").ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Post("/api/v0/notifications/"+driverNote.String()+"/read", nil).ExpectError(http.StatusNotFound, "NotFound")
	hr.Post("/api/v0/notifications/not-a-uuid/read", nil).ExpectError(http.StatusNotFound, "NotFound")
	other := env.Company("Other", "free")
	env.As(other, auth.RoleAdmin).Post("/api/v0/notifications/"+driverNote.String()+"/read", nil).ExpectError(http.StatusForbidden, "AccessDenied")
	driver.Get("/api/v0/notifications?unread=true").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 {
		t.Errorf("others' attempts marked the driver's notification read")
	}

	// Read all.
	if got := admin.Post("/api/v0/notifications/read-all", nil).Expect(http.StatusOK).JSON(); got["marked"] != float64(2) {
		t.Errorf("read-all: %v", got)
	}
	admin.Get("/api/v0/notifications?unread=true").Expect(http.StatusOK).Decode(&page)
	if page.Total != 0 {
		t.Errorf("unread after read-all: %d", page.Total)
	}

	// A second scan the same day adds nothing.
	if res := scanToday(t, env, company); !res.AlreadyRun {
		t.Error("the day's scan ran twice")
	}
}

func TestNotificationSettingsAPI(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	got := hr.Get("/api/v0/me/notification-settings").Expect(http.StatusOK).JSON()["email"].(map[string]any)
	if got["document_alert"] != true || got["document_reminder"] != true {
		t.Errorf("defaults: %v", got)
	}
	got = hr.Put("/api/v0/me/notification-settings", map[string]any{"email": map[string]any{"document_reminder": false}}).Expect(http.StatusOK).JSON()["email"].(map[string]any)
	if got["document_alert"] != true || got["document_reminder"] != false {
		t.Errorf("after opting out of reminders: %v", got)
	}
	for body, field := range map[string]string{
		`{}`:                                  "email",
		`{"email": {"birthday": false}}`:      "email.birthday",
		`{"email": {"document_alert": "no"}}`: "email.document_alert",
		`{"email": {"document_alert": null}}`: "email.document_alert",
	} {
		errs, _ := hr.Put("/api/v0/me/notification-settings", body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")["errors"].(map[string]any)
		if _, ok := errs[field]; !ok {
			t.Errorf("%s: no message for %s: %v", body, field, errs)
		}
	}
	// Each user's own: the admin still has every e-mail on.
	if got := env.As(company, auth.RoleAdmin).Get("/api/v0/me/notification-settings").Expect(http.StatusOK).JSON()["email"].(map[string]any); got["document_reminder"] != true {
		t.Errorf("another user's settings changed: %v", got)
	}
}
