package pages_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
)

// The "Documents expiring" page: linked from the home page's stages, 30
// days by default, a status over any date, the results alone for htmx, a
// hand-edited address told and still listed, numbers only for who may
// read them, the export of the same filter; never another company's.
func TestDocumentsExpiringPage(t *testing.T) {
	w := newHomeWorld(t)
	hr := signIn(t, w.env, w.company, auth.RoleHRManager, "hr@acme.test", "en")
	hr.get("/").expect(t, http.StatusOK).contains(t, `href="/documents?status=expired"`, `href="/documents?status=expiring_soon"`)

	hr.get("/documents").expect(t, http.StatusOK).
		contains(t, docPath(w.petr, w.petrTacho), "Documents 1–1 of 1", ">Number<", "5 days left", `href="/documents/export?format=csv"`).
		lacks(t, docPath(w.jan, w.janLicence), docPath(w.jan, w.janPassport), "Cizí")
	hr.get("/documents?status=expired").expect(t, http.StatusOK).
		contains(t, docPath(w.jan, w.janLicence), "3 days ago").lacks(t, docPath(w.petr, w.petrTacho))

	res := hr.htmx("expiring-results").get("/documents?expiring_within=90&type=&sort_by=&sort_order=").expect(t, http.StatusOK).
		lacks(t, "<html", `id="expiring-filters"`).contains(t, `id="expiring-results"`, docPath(w.jan, w.janPassport), docPath(w.petr, w.petrTacho))
	if got := res.Header.Get("HX-Push-Url"); got != "/documents?expiring_within=90" {
		t.Errorf("HX-Push-Url = %q", got)
	}
	hr.plain()
	hr.get("/documents?expiring_within=400&status=late").expect(t, http.StatusOK).
		contains(t, `data-testid="filter-problem"`, "The selected document status is invalid.", "366 days", docPath(w.jan, w.janLicence))

	csv := hr.get("/documents/export?format=csv&expiring_within=90").expect(t, http.StatusOK)
	if lines := strings.Count(strings.TrimSpace(csv.Body), "\n"); lines != 2 || !strings.Contains(csv.Body, "Tachograph card") {
		t.Errorf("export of 90 days: %d rows: %s", lines, csv.Body)
	}

	signIn(t, w.env, w.company, auth.RoleDispatcher, "dispatch@acme.test", "en").get("/documents").expect(t, http.StatusOK).
		contains(t, docPath(w.petr, w.petrTacho)).lacks(t, ">Number<")
	signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en").get("/documents").expect(t, http.StatusForbidden)
}
