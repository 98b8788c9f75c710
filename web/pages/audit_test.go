package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Every action the services record and every kind of record has words in
// both languages: the log never shows a raw code such as period.paid.
func TestAuditTextsExist(t *testing.T) {
	for _, l := range i18n.Complete {
		for _, a := range audit.Actions {
			if !l.Has("audit.action." + a) {
				t.Errorf("%s: no text for action %s", l, a)
			}
		}
		for _, et := range audit.EntityTypes {
			if !l.Has("audit.entity." + et) {
				t.Errorf("%s: no text for record kind %s", l, et)
			}
		}
	}
}

// The log's filters on the page: a driver found by name (one match is
// taken, several are offered, none is said), who, what kind and when, and
// what is wrong with a hand-edited address.
func TestAuditLogFilters(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	api := env.As(company, auth.RoleHRManager)
	mk := func(first, last, email string) string {
		return api.Post("/api/v0/drivers", map[string]any{"first_name": first, "last_name": last, "email": email}).
			Expect(http.StatusCreated).JSON()["id"].(string)
	}
	jan := mk("Jan", "Novák", "jan@acme.test")
	mk("Jana", "Nováková", "jana@acme.test")
	petr := mk("Petr", "Malý", "petr@acme.test")
	api.Put("/api/v0/drivers/"+petr, map[string]any{"status": "inactive"}).Expect(http.StatusOK)
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")

	// The form's empty fields are dropped from the address.
	res := hr.get("/audit?user_id=&entity_type=driver&driver=&entity_id=&from=&to=").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/audit?entity_type=driver" {
		t.Errorf("canonical address %q", loc)
	}
	hr.get("/audit?entity_type=driver").expect(t, http.StatusOK).contains(t, "Entries: 4")

	// One match: taken at once.
	res = hr.get("/audit?driver=maly").expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/audit?driver_id="+petr {
		t.Errorf("one match: redirect to %q", loc)
	}
	hr.get("/audit?driver_id="+petr).expect(t, http.StatusOK).
		contains(t, "Entries: 2", `data-testid="audit-picked-driver"`, "Petr Malý", "Active", "Inactive", `href="/drivers/`+petr+`"`).
		lacks(t, "Nováková")
	// Several: the person picks one; the log waits.
	hr.get("/audit?driver=novak").expect(t, http.StatusOK).
		contains(t, "Several drivers match", `href="/audit?driver_id=`+jan+`"`, "Jana Nováková").lacks(t, `data-testid="audit-table"`)
	// None: said so.
	hr.get("/audit?driver=nobody").expect(t, http.StatusOK).contains(t, "No driver matches “nobody”.")

	// Kind and driver together; a driver id that names nobody finds nothing.
	hr.get("/audit?entity_type=document&driver_id="+jan).expect(t, http.StatusOK).contains(t, "No change matches these filters.")
	hr.get("/audit?driver_id=x").expect(t, http.StatusOK).contains(t, "Entries: 0")

	// When: days in the company's time zone, both ends included.
	hr.get("/audit?from=2000-01-01&to=2000-01-02").expect(t, http.StatusOK).contains(t, "Entries: 0")
	hr.get("/audit?from=2000-01-01").expect(t, http.StatusOK).contains(t, "Entries: 4")
	hr.get("/audit?from=31.12.2000&entity_id=abc").expect(t, http.StatusOK).
		contains(t, "A date was not understood", "A record ID looks like", "Entries: 4")

	// Who: the people who changed something are the choices.
	var who string
	if err := env.DB.QueryRow(context.Background(), `SELECT user_id::text FROM audit_logs WHERE company_id = $1 LIMIT 1`, company).Scan(&who); err != nil {
		t.Fatal(err)
	}
	hr.get("/audit").expect(t, http.StatusOK).contains(t, `<option value="`+who+`"`)
	hr.get("/audit?user_id="+who).expect(t, http.StatusOK).contains(t, "Entries: 4", `<option value="`+who+`" selected`)
	hr.get("/audit?user_id="+url.QueryEscape("not-a-user")).expect(t, http.StatusOK).contains(t, "Entries: 4")

	// A driver's page leads to its history, for those who may read it.
	hr.get("/drivers/"+petr).expect(t, http.StatusOK).contains(t, `href="/audit?driver_id=`+petr+`"`, "History of changes")
	signIn(t, env, company, auth.RoleDispatcher, "dita@acme.test", "en").get("/drivers/"+petr).expect(t, http.StatusOK).
		lacks(t, "/audit?driver_id=")

	// In Czech.
	cs := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "cs")
	cs.get("/audit?driver_id="+petr).expect(t, http.StatusOK).contains(t, "Změněno", "Vytvořeno", "Řidič", "Aktivní", "Neaktivní").
		lacks(t, ">updated<", ">created<")
	// A language without the staff texts shows the English words, never
	// the codes.
	signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "pl").get("/audit?driver_id="+petr).expect(t, http.StatusOK).
		contains(t, "Changed", "Created").lacks(t, ">updated<", ">created<")
}
