package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/paging"
	"github.com/konvoj/konvoj/internal/postgres"
	"github.com/konvoj/konvoj/web/webtest"
)

// actionJSON is a notification with the fields of a call to act.
type actionJSON struct {
	Kind      string     `json:"kind"`
	Stage     string     `json:"stage"`
	DriverID  *uuid.UUID `json:"driver_id"`
	PenaltyID *uuid.UUID `json:"penalty_id"`
	Title     string     `json:"title"`
	Body      string     `json:"body"`
}

func actionsOf(t *testing.T, c *webtest.Caller) []actionJSON {
	t.Helper()
	var page struct{ Data []actionJSON }
	c.Get("/api/v0/notifications").Expect(http.StatusOK).Decode(&page)
	return page.Data
}

// seen makes the callers' user rows (their first request), so the
// notifications have someone to go to.
func seen(callers ...*webtest.Caller) {
	for _, c := range callers {
		c.Get("/api/v0/notifications").Expect(http.StatusOK)
	}
}

// TestUploadForReviewCallsStaff: a driver's upload of a type under review
// gives every admin and HR manager of the company a document_review
// notification of stage requested naming the driver and the document type;
// the dispatcher, the driver and another company's HR get none.
func TestUploadForReviewCallsStaff(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	admin := w.env.As(w.company, auth.RoleAdmin)
	dispatcher := w.env.As(w.company, auth.RoleDispatcher)
	otherHR := w.env.As(w.env.Company("Other", "free"), auth.RoleHRManager)
	seen(admin, dispatcher, otherHR)

	f := w.driverUpload(t)
	for _, c := range []*webtest.Caller{w.hr, admin} {
		n := actionsOf(t, c)
		if len(n) != 1 || n[0].Kind != "document_review" || n[0].Stage != "requested" || n[0].DriverID == nil || *n[0].DriverID != w.jan ||
			!strings.Contains(n[0].Title, "Jan Novák") || !strings.Contains(n[0].Title, "Medical examination") ||
			!strings.Contains(n[0].Title, "Waiting for review") || n[0].PenaltyID != nil {
			t.Errorf("%s's notifications: %+v", c.Role, n)
		}
	}
	for _, c := range []*webtest.Caller{dispatcher, otherHR, w.driver} {
		if n := actionsOf(t, c); len(n) != 0 {
			t.Errorf("%s got %+v", c.Role, n)
		}
	}

	// The decision tells the driver, not HR again.
	w.hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "reject", "reason": "Blurred."}).Expect(http.StatusOK)
	if n := actionsOf(t, w.driver); len(n) != 1 || n[0].Kind != "document_review" || n[0].Stage != "rejected" || n[0].Body != "Reason: Blurred." {
		t.Errorf("the driver's notifications: %+v", n)
	}
	if n := actionsOf(t, w.hr); len(n) != 1 {
		t.Errorf("HR has %d notifications after its decision, want the one request", len(n))
	}

	// An upload refused (an invalid date) calls nobody.
	upload(t, w.driver, w.medical, filePart("medical.png", samplePNG()), field("valid_until", "2020-13-45")).Expect(http.StatusUnprocessableEntity)
	if n := actionsOf(t, admin); len(n) != 1 {
		t.Errorf("admin has %d notifications after a refused upload, want 1", len(n))
	}
}

// TestDisputeCallsStaffAndTellsTheDriver: a driver's dispute gives every
// admin and HR manager a penalty_dispute notification of stage filed with
// the penalty's id (not the dispatcher, not another company); resolving it
// tells the driver (stage resolved), in the driver's language on the page.
func TestDisputeCallsStaffAndTellsTheDriver(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	admin := env.As(company, auth.RoleAdmin)
	dispatcher := env.As(company, auth.RoleDispatcher)
	otherHR := env.As(env.Company("Other", "free"), auth.RoleHRManager)
	jan := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz", "language": "pl"})
	me := env.As(company, auth.RoleDriver, "jan@example.cz")
	seen(hr, admin, dispatcher, otherHR, me)

	drv := "/api/v0/drivers/" + jan.ID.String()
	pen := hr.Post(drv+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "1500", "incident_date": pragueDay(0), "description": "72 km/h in a 50 zone"}).Expect(http.StatusCreated).JSON()
	penID := uuid.MustParse(pen["id"].(string))
	me.Put(drv+"/penalties/"+penID.String()+"/dispute", map[string]any{"dispute_reason": "The radar was not calibrated."}).Expect(http.StatusOK)

	for _, c := range []*webtest.Caller{hr, admin} {
		n := actionsOf(t, c)
		if len(n) != 1 || n[0].Kind != "penalty_dispute" || n[0].Stage != "filed" || n[0].PenaltyID == nil || *n[0].PenaltyID != penID ||
			n[0].DriverID == nil || *n[0].DriverID != jan.ID || !strings.Contains(n[0].Title, "Jan Novák") || !strings.Contains(n[0].Title, "Speeding") ||
			n[0].Body != "Reason: The radar was not calibrated." {
			t.Errorf("%s's notifications: %+v", c.Role, n)
		}
	}
	for _, c := range []*webtest.Caller{dispatcher, otherHR, me} {
		if n := actionsOf(t, c); len(n) != 0 {
			t.Errorf("%s got %+v", c.Role, n)
		}
	}

	hr.Put(drv+"/penalties/"+penID.String()+"/resolve", map[string]any{"resolution_action": "cancel", "resolution": "The radar was out of date."}).
		Expect(http.StatusOK)
	n := actionsOf(t, me)
	if len(n) != 1 || n[0].Kind != "penalty_dispute" || n[0].Stage != "resolved" || n[0].PenaltyID == nil || *n[0].PenaltyID != penID ||
		!strings.Contains(n[0].Title, "Speeding") || n[0].Body != "The penalty is cancelled. The radar was out of date." {
		t.Errorf("the driver's notifications: %+v", n)
	}
	if n := actionsOf(t, hr); len(n) != 1 {
		t.Errorf("HR has %d notifications after resolving, want 1", len(n))
	}

	// The driver reads it in Polish.
	var userID uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM users WHERE company_id = $1 AND email = 'jan@example.cz'`, company).Scan(&userID); err != nil {
		t.Fatal(err)
	}
	ctx := postgres.WithCompany(i18n.WithLang(context.Background(), i18n.PL), company)
	page, err := env.App.Services.Notifications.List(ctx, auth.Principal{UserID: userID, CompanyID: company, Role: auth.RoleDriver},
		alerts.ListFilter{Page: paging.Request{Number: 1, Size: 10}})
	list := page.Items
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || !strings.Contains(list[0].Title, "Przekroczenie prędkości") || !strings.HasPrefix(list[0].Body, "Kara: ") {
		t.Errorf("the driver's notification in Polish: %+v", list)
	}
}

// TestDigestRepeatsCallsToAct: the day's e-mails repeat the calls to act
// since the previous scan, each once, in the recipient's language, linked
// to where to act: HR's digest the upload waiting for review (the review
// queue) and the dispute filed (the penalty); the driver's e-mail the
// rejected upload (the document) and the dispute's outcome. A call settled
// before the scan (an upload approved meanwhile) is not repeated.
func TestDigestRepeatsCallsToAct(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	ctx := context.Background()
	const base = "https://konvoj.example"
	scanner := alerts.NewScanner(w.env.DB, base)
	if _, err := w.env.DB.Exec(ctx, `UPDATE users SET preferred_language = 'en' WHERE id = $1`, w.hr.UserID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.env.DB.Exec(ctx, `UPDATE drivers SET language = 'pl' WHERE id = $1`, w.jan); err != nil {
		t.Fatal(err)
	}
	mails := func(day string) map[string]alerts.Email {
		t.Helper()
		d, _ := civil.Parse(day)
		res, err := scanner.Scan(ctx, w.company, d, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]alerts.Email{}
		for _, e := range res.Emails {
			out[e.Recipient] = e
		}
		return out
	}
	drv := "/api/v0/drivers/" + w.jan.String()
	penaltyLink := func(id string) string { return base + drv[len("/api/v0"):] + "/penalties/" + id }

	f := w.driverUpload(t)
	pen := w.hr.Post(drv+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "1500", "incident_date": pragueDay(0), "description": "72 km/h in a 50 zone"}).Expect(http.StatusCreated).JSON()
	penID := pen["id"].(string)
	w.driver.Put(drv+"/penalties/"+penID+"/dispute", map[string]any{"dispute_reason": "The radar was not calibrated."}).Expect(http.StatusOK)

	day1 := mails(pragueDay(0))
	hr := day1[w.hr.Email]
	for _, want := range []string{"Waiting for you since the previous digest:", "Waiting for review", "Medical examination", base + "/document-reviews",
		"Dispute filed", "Penalty “Speeding”", "Reason: The radar was not calibrated.", penaltyLink(penID)} {
		if !strings.Contains(hr.Text, want) {
			t.Errorf("HR's digest lacks %q:\n%s", want, hr.Text)
		}
	}
	if !strings.Contains(hr.HTML, `href="`+base+`/document-reviews"`) || hr.Language != "en" {
		t.Errorf("HR's digest in %s, HTML:\n%s", hr.Language, hr.HTML)
	}
	if jan := day1["jan@example.cz"]; strings.Contains(jan.Text, "Dispute") || strings.Contains(jan.Text, "Sprzeciw") {
		t.Errorf("the driver's e-mail has the office's calls:\n%s", jan.Text)
	}

	// HR decides both; the driver's next e-mail says so, in Polish.
	w.hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "reject", "reason": "Blurred."}).Expect(http.StatusOK)
	w.hr.Put(drv+"/penalties/"+penID+"/resolve", map[string]any{"resolution_action": "cancel", "resolution": "The radar was out of date."}).
		Expect(http.StatusOK)
	day2 := mails(pragueDay(1))
	jan := day2["jan@example.cz"]
	for _, want := range []string{"Wiadomości o Twoich przesłanych dokumentach i karach:", "Przesłany dokument odrzucony", "Blurred.",
		"Sprzeciw rozpatrzony", "The radar was out of date.", penaltyLink(penID), base + drv[len("/api/v0"):] + "/documents/" + w.medical.String()} {
		if !strings.Contains(jan.Text, want) {
			t.Errorf("the driver's e-mail lacks %q:\n%s", want, jan.Text)
		}
	}
	if jan.Language != "pl" {
		t.Errorf("the driver's e-mail is in %s", jan.Language)
	}
	if strings.Contains(day2[w.hr.Email].Text, "Waiting for you") {
		t.Errorf("HR's calls came twice:\n%s", day2[w.hr.Email].Text)
	}

	// An upload approved before the scan is not repeated; nothing twice.
	f2 := w.driverUpload(t)
	w.hr.Post(reviewPath(w.medical, f2.ID), map[string]any{"decision": "approve"}).Expect(http.StatusOK)
	for _, e := range mails(pragueDay(2)) {
		if strings.Contains(e.Text, "Waiting for you") || strings.Contains(e.Text, "Wiadomości o Twoich") {
			t.Errorf("a call came again or after it was settled, to %s:\n%s", e.Recipient, e.Text)
		}
	}
}
