package pages_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// The drivers page filters by readiness (any, ready, not ready), names each
// driver's next document coming due and its expired documents apart; the
// home page counts and lists the active drivers only (an inactive driver's
// expired document is neither counted nor listed), and its counts link to
// the lists that agree with them.
func TestDriversListReadyFilterAndHomeOfActiveDrivers(t *testing.T) {
	w := newHomeWorld(t)
	hr := w.env.As(w.company, auth.RoleHRManager)
	ready := w.env.Driver(w.company, fixtures.Name("Rita", "Hotová"), fixtures.Citizenship("CZ"))
	for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		w.document(t, hr, ready, typ, w.today.AddDays(200))
	}
	gone := w.env.Driver(w.company, fixtures.Name("Ota", "Odešlý"), fixtures.Status("inactive"))
	gonePassport := w.document(t, hr, gone, "passport", w.today.AddDays(-20))

	b := signIn(t, w.env, w.company, auth.RoleHRManager, "hr@acme.test", "en")
	page := b.get("/drivers?is_ready=true").expect(t, http.StatusOK).
		contains(t, `id="filter-is_ready"`, "Readiness", `<option value="true" selected>Ready</option>`, `data-testid="clear-filters"`)
	if got := names(page.Body); !slices.Equal(got, []string{"Rita Hotová"}) {
		t.Errorf("ready: %v", got)
	}
	page = b.get("/drivers?is_ready=false").expect(t, http.StatusOK).contains(t, `<option value="false" selected>Not ready</option>`)
	if got := names(page.Body); !slices.Equal(got, []string{"Jan Novák", "Petr Malý", "Ota Odešlý"}) {
		t.Errorf("not ready: %v", got)
	}
	// A hand-edited value says what is wrong and lists everybody.
	page = b.get("/drivers?is_ready=maybe").expect(t, http.StatusOK).
		contains(t, "The readiness filter (is_ready) must be true or false.")
	if got := names(page.Body); len(got) != 4 {
		t.Errorf("after a bad readiness: %v", got)
	}

	// Jan's row: the next document coming due is his passport (60 days);
	// his licence, expired 3 days ago, is shown apart, not as next.
	page = b.get("/drivers?search=novak").expect(t, http.StatusOK)
	row := page.Body[strings.Index(page.Body, `data-testid="driver-table"`):]
	for _, want := range []string{
		`data-testid="next-expiry" data-status="valid"`, `href="` + docPath(w.jan, w.janPassport) + `"`, "60 days left",
		`data-testid="expired-docs" data-count="1"`, "Expired:", `href="` + docPath(w.jan, w.janLicence) + `"`, "Driving licence",
	} {
		if !strings.Contains(row, want) {
			t.Errorf("Jan's row lacks %q", want)
		}
	}
	if strings.Contains(row, "3 days ago") {
		t.Error("Jan's row names the expired licence as its next expiry")
	}
	// Sorting by the column sorts by the next document due.
	page.contains(t, `href="/drivers?search=novak&amp;sort_by=next_due"`)
	// Expiring within 30 days: the next due first; Jan's expired licence
	// does not make him due (his passport is 60 days away).
	page = b.get("/drivers?document_due_within=30").expect(t, http.StatusOK)
	if got := names(page.Body); !slices.Equal(got, []string{"Petr Malý"}) {
		t.Errorf("due within 30 days: %v", got)
	}

	// The home page: the inactive driver's expired passport is not there,
	// and the count links to the list of active drivers it counts.
	countOf := regexp.MustCompile(`href="/drivers\?document_status=expired&amp;status=active%2Con_leave"[^>]*>\s*<span[^>]*>(\d+)</span>`)
	for _, role := range []auth.Role{auth.RoleHRManager, auth.RoleAdmin, auth.RoleDispatcher} {
		home := signIn(t, w.env, w.company, role, string(role)+"@acme.test", "en").get("/").expect(t, http.StatusOK).
			lacks(t, "Ota Odešlý", gone.String(), gonePassport.String())
		m := countOf.FindStringSubmatch(home.Body)
		if m == nil || m[1] != "1" {
			t.Errorf("%s: expired count %v, want 1 (Jan)", role, m)
		}
	}
	list := b.get("/drivers?document_status=expired&status=active,on_leave").expect(t, http.StatusOK)
	if got := names(list.Body); !slices.Equal(got, []string{"Jan Novák"}) {
		t.Errorf("the count's list: %v", got)
	}
	// The accountant's home has no documents section at all.
	signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en").get("/").expect(t, http.StatusOK).
		lacks(t, `data-testid="home-documents"`, "Ota Odešlý")

	// Czech: the same words in the filter and its choices.
	b.post("/language", map[string][]string{"lang": {"cs"}}).expect(t, http.StatusSeeOther)
	b.get("/drivers?is_ready=false&search=novak").expect(t, http.StatusOK).
		contains(t, "Připravenost", `<option value="false" selected>Nepřipravení</option>`, "Prošlé:", "Řidičský průkaz")
}
