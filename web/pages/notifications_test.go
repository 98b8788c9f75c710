package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/alerts"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

var markReadForm = regexp.MustCompile(`action="(/notifications/[0-9a-f-]+/read)"`)

// TestNotificationsPageAndBell: the bell shows the unread count on every
// page, the page lists the notifications in the reader's language, marking
// read lowers the count, and the e-mail choices are saved.
func TestNotificationsPageAndBell(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "cs")
	hr.get("/").expect(t, http.StatusOK).contains(t, `data-testid="bell"`, "Upozornění: nic nepřečteného")

	// The driver has no documents: its five required ones are missing.
	loc, _ := time.LoadLocation("Europe/Prague")
	if _, err := alerts.NewScanner(env.DB, "http://localhost").Scan(context.Background(), company, civil.DateOf(time.Now().In(loc)), nil); err != nil {
		t.Fatal(err)
	}
	hr.get("/drivers").expect(t, http.StatusOK).contains(t, `data-testid="bell-count">5<`, "Upozornění: nepřečtená 5")
	// What static/live.js fetches again when a notification arrives: the
	// bell alone, and the page's list alone.
	hr.get("/notifications/bell").expect(t, http.StatusOK).
		contains(t, `data-testid="bell-count">5<`, `hx-get="/notifications/bell"`, `data-live-on="notification.created"`).lacks(t, "<html", "<nav")
	hr.htmx("notification-list").get("/notifications").expect(t, http.StatusOK).
		contains(t, `id="notification-list"`, "Jan Novák: Cestovní pas, Chybí").lacks(t, "<html", `data-testid="notification-settings"`)
	hr.plain()
	page := hr.get("/notifications").expect(t, http.StatusOK).
		contains(t, "Jan Novák: Cestovní pas, Chybí", "Žádný soubor nebyl nahrán.", `href="/drivers/`+driver.String()+`/documents/`)
	m := markReadForm.FindStringSubmatch(page.Body)
	if m == nil {
		t.Fatal("no mark-read form")
	}
	hr.post(m[1], url.Values{}).expect(t, http.StatusSeeOther)
	hr.get("/").expect(t, http.StatusOK).contains(t, `data-testid="bell-count">4<`)
	hr.post("/notifications/read-all", url.Values{}).expect(t, http.StatusSeeOther)
	hr.get("/").expect(t, http.StatusOK).contains(t, "Upozornění: nic nepřečteného")

	hr.post("/notifications/settings", url.Values{"email.document_alert": {"false"}, "email.document_reminder": {"false", "true"}}).
		expect(t, http.StatusSeeOther)
	hr.get("/notifications").expect(t, http.StatusOK).
		contains(t, "Nastavení e-mailů uloženo.", `name="email.document_reminder" value="true" checked`)
	if page := hr.get("/notifications").Body; regexp.MustCompile(`name="email.document_alert" value="true" checked`).MatchString(page) {
		t.Error("document_alert e-mail still on")
	}
}

// TestNotificationsLinkWhereToAct: each notification links to what it is
// about: an upload waiting for review to the review queue, a dispute to
// the penalty, a stage to the document; every e-mail choice has its words.
func TestNotificationsLinkWhereToAct(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"))
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	user := webtest.Value[uuid.UUID](t, env, `SELECT id FROM users WHERE email = 'hana@acme.test'`)
	doc := webtest.Value[uuid.UUID](t, env, `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, driver)
	penalty := uuid.New()
	for _, stage := range []string{"requested", "expired"} {
		kind := map[string]string{"requested": "document_review", "expired": "document_alert"}[stage]
		if _, err := env.DB.Exec(context.Background(), `
			WITH a AS (INSERT INTO document_alerts (company_id, driver_id, document_id, document_type, stage, alert_date)
				VALUES ($1, $2, $3, 'passport', $4, current_date) RETURNING id)
			INSERT INTO notifications (company_id, user_id, alert_id, kind) SELECT $1, $5, a.id, $6 FROM a`,
			company, driver, doc, stage, user, kind); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO notifications (company_id, user_id, kind, stage, driver_id, penalty_id)
		VALUES ($1, $2, 'penalty_dispute', 'filed', $3, $4)`, company, user, driver, penalty); err != nil {
		t.Fatal(err)
	}
	hr.get("/notifications").expect(t, http.StatusOK).
		contains(t, `href="/document-reviews"`, `href="/drivers/`+driver.String()+`/penalties/`+penalty.String()+`"`,
			`href="/drivers/`+driver.String()+`/documents/`+doc.String()+`"`, "Penalty disputes and their outcome").
		lacks(t, "notifications.kind.")
}
