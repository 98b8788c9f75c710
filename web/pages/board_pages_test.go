package pages_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// The readiness board on the dispatcher's home page: the units with the
// part live.js refreshes, the free drivers, the part alone with a search,
// the assignment form's check with and without htmx, a refused assignment
// in the user's language with nothing written, and an unassignment.
func TestBoardPages(t *testing.T) {
	env := devEnv(t)
	w := env.World()
	home := w.Home
	free := env.Driver(home.Company, fixtures.Name("Jana", "Volná"))
	dana := signIn(t, env, home.Company, auth.RoleDispatcher, "dana@home.test", "en")

	dana.get("/").expect(t, http.StatusOK).contains(t, `data-testid="board"`, "Readiness board", "Active units: 2",
		`hx-get="/units/board"`, `hx-trigger="live"`,
		`data-live-on="transport_unit.readiness_changed transport_unit.assigned transport_unit.updated transport_unit.unassigned document.file_uploaded document.updated document.review_completed"`,
		"Free drivers", "Jana Volná", `href="/units/new?driver_id=`+free.String()+`"`,
		`id="unit-`+home.Drivers[0].Unit.String()+`"`, `href="/units/`+home.Drivers[0].Unit.String()+`/unassign"`,
		`data-testid="home-documents"`)
	dana.htmx("board-units").get("/units/board?search="+url.QueryEscape(home.Drivers[1].LastName)).expect(t, http.StatusOK).
		lacks(t, "<html", home.Drivers[0].Unit.String()).contains(t, `id="board-units"`, "Active units: 1", home.Drivers[1].Unit.String())
	dana.plain()

	dana.get("/units/new?driver_id="+free.String()).expect(t, http.StatusOK).
		contains(t, `<option value="`+free.String()+`" selected>`, "Choose a driver and a vehicle")
	// A new form each time: a post adds its browser's CSRF token to it.
	form := func() url.Values {
		return url.Values{"driver_id": {free.String()}, "vehicle_id": {home.Drivers[0].Vehicle.String()}, "on": {"2026-12-07"}, "through": {"2026-12-11"}}
	}
	check := form()
	check.Set("check", "1")
	dana.post("/units/new", check).expect(t, http.StatusOK).contains(t, `data-testid="preview-now"`, `data-testid="preview-trip"`, "Mon 7")
	dana.Header.Set("X-Unit-Check", "1")
	dana.htmx("unit-preview").post("/units/new", form()).expect(t, http.StatusOK).
		lacks(t, "<html").contains(t, `id="unit-preview"`, `data-testid="preview-trip"`)
	dana.Header.Del("X-Unit-Check")
	dana.plain()
	cz := signIn(t, env, home.Company, auth.RoleDispatcher, "dusan@home.test", "cs")
	cz.get("/units/new").expect(t, http.StatusOK).contains(t, "Sestavit přepravní jednotku")
	before := env.Checksum()
	cz.post("/units/new", form()).expect(t, http.StatusConflict).contains(t, "Vozidlo už je v přepravní jednotce", `data-testid="form-error"`)
	if env.Checksum() != before {
		t.Error("a refused assignment wrote something")
	}

	res := dana.post("/units/"+home.Drivers[0].Unit.String()+"/unassign", url.Values{}).expect(t, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Errorf("unassigned: Location %q", loc)
	}
	dana.get("/").expect(t, http.StatusOK).contains(t, "Active units: 1").lacks(t, `id="unit-`+home.Drivers[0].Unit.String()+`"`)
}
