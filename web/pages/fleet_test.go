package pages_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
)

// TestFleetPages: a dispatcher creates a lorry and a refrigerated trailer
// from the forms and finds them in the lists (filters, search, readiness
// in words); a duplicate plate comes back at the plate field in the
// user's language with what was typed, and writes nothing; HR reads the
// records without edit buttons and is refused the forms.
func TestFleetPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	dana := signIn(t, env, company, auth.RoleDispatcher, "dana@acme.test", "en")

	dana.get("/vehicles/new").expect(t, http.StatusOK).
		contains(t, `id="fleet-form"`, `name="plate_number"`, `<option value="lkv" selected>Lorry</option>`, "fleet-pkv-only", "Light vehicle")
	res := dana.post("/vehicles/new", url.Values{"type": {"lkv"}, "status": {"active"}, "plate_number": {"1ab 2345"},
		"make": {"Volvo"}, "model": {"FH 500"}, "gross_weight_kg": {"40 000"}, "assignment_mode": {"pool"}, "tags": {"adr, Reefer"}}).
		expect(t, http.StatusSeeOther)
	vehicle := res.Header.Get("Location")
	if !strings.HasPrefix(vehicle, "/vehicles/") {
		t.Fatalf("created: Location %q", vehicle)
	}
	dana.get(vehicle).expect(t, http.StatusOK).
		contains(t, "1AB 2345", "VEH-0001", "Lorry", "Active", "Not ready", "A required document is missing or expired",
							"40000", "adr", "reefer", `data-testid="fleet-documents"`, `data-testid="document-technical_inspection"`, `data-testid="edit-vehicle"`, `data-testid="delete-vehicle"`, "Not in a transport unit now.").
		lacks(t, "value-assignment_mode") // a lorry has no use: the hidden field was not sent on

	list := dana.get("/vehicles").expect(t, http.StatusOK).
		contains(t, "Vehicles", "1–1 of 1", "1AB 2345", "Volvo FH 500", "Lorry", "A required document is missing or expired",
			`class="table-stack`, `href="/vehicles/new"`, `aria-sort="ascending"`, `<option value="adr">adr</option>`)
	list.contains(t, `href="/vehicles?sort_by=plate_number"`)
	dana.get("/vehicles?is_ready=true").expect(t, http.StatusOK).contains(t, "No vehicles match.")
	dana.get("/vehicles?type=pkv").expect(t, http.StatusOK).contains(t, "No vehicles match.")
	dana.get("/vehicles?tag=adr&status=active").expect(t, http.StatusOK).contains(t, "1AB 2345")
	dana.get("/vehicles?status=scrapped").expect(t, http.StatusOK).contains(t, `data-testid="filter-problem"`, "1AB 2345")
	frag := dana.htmx("fleet-results").get("/vehicles?search=volvo&status=&type=&sort_by=&sort_order=").expect(t, http.StatusOK).
		lacks(t, "<html").contains(t, `id="fleet-results"`, "1AB 2345")
	if got := frag.Header.Get("HX-Push-Url"); got != "/vehicles?search=volvo" {
		t.Errorf("HX-Push-Url = %q", got)
	}
	dana.plain()

	// A duplicate plate (spaces, dashes and case aside) is refused at the
	// plate field, in Czech for a Czech user, the form keeps what was
	// typed, and nothing is written.
	cz := signIn(t, env, company, auth.RoleDispatcher, "dusan@acme.test", "cs")
	before := env.Checksum()
	cz.post("/vehicles/new", url.Values{"type": {"pkv"}, "plate_number": {"1ab-2345"}, "make": {"Škoda"}, "assignment_mode": {"pool"}}).
		expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="error-plate_number"`, "Tuto registrační značku už má VEH-0001.", `value="1ab-2345"`, `value="Škoda"`,
			`<option value="pool" selected>`)
	if env.Checksum() != before {
		t.Error("the refused create wrote something")
	}
	// A bad number and a use for a light vehicle: the messages at their fields.
	cz.post("/vehicles/new", url.Values{"type": {"pkv"}, "plate_number": {"2AB 0001"}, "year": {"dvacet"}, "vin": {"ABC"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, `data-testid="error-year"`, `data-testid="error-vin"`)

	// A trailer with refrigeration: the temperatures with a decimal comma,
	// the frigo tag added; its edit keeps the values.
	res = cz.post("/trailers/new", url.Values{"type": {"frigo"}, "plate_number": {"3AB 0003"}, "has_refrigeration": {"false", "true"},
		"temperature_min": {"-25,5"}, "temperature_max": {"5"}, "volume_m3": {"90"}}).expect(t, http.StatusSeeOther)
	trailer := res.Header.Get("Location")
	cz.get(trailer).expect(t, http.StatusOK).contains(t, "TRL-0001", "Chladírenský", "-25,5", "frigo", "Ano")
	cz.get(trailer+"/edit").expect(t, http.StatusOK).contains(t, `value="-25.5"`, `id="field-has_refrigeration" name="has_refrigeration" value="true" checked`)
	cz.post(trailer+"/edit", url.Values{"temperature_min": {"10"}, "temperature_max": {"5"}, "has_refrigeration": {"false", "true"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, `data-testid="error-temperature_min"`)
	cz.post(trailer+"/edit", url.Values{"color": {"bílá"}}).expect(t, http.StatusSeeOther)
	cz.get("/trailers").expect(t, http.StatusOK).contains(t, "3AB 0003", "Návěsy")

	// HR reads, without edit buttons; the forms and a direct post are refused.
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.get("/vehicles").expect(t, http.StatusOK).contains(t, "1AB 2345").lacks(t, `href="/vehicles/new"`)
	hr.get(vehicle).expect(t, http.StatusOK).contains(t, "1AB 2345").lacks(t, `data-testid="edit-vehicle"`, `data-testid="delete-vehicle"`)
	hr.get("/vehicles/new").expect(t, http.StatusForbidden)
	hr.get(vehicle+"/edit").expect(t, http.StatusForbidden)
	before = env.Checksum()
	hr.post(vehicle+"/edit", url.Values{"color": {"red"}}).expect(t, http.StatusForbidden)
	hr.post(vehicle+"/delete", url.Values{}).expect(t, http.StatusForbidden)
	if env.Checksum() != before {
		t.Error("HR's refused posts wrote something")
	}

	// The dispatcher's home counts the active records not ready, linked to
	// the list filtered alike.
	dana.get("/").expect(t, http.StatusOK).contains(t, `data-testid="home-fleet"`,
		`href="/vehicles?is_ready=false&amp;status=active"`, `href="/trailers?is_ready=false&amp;status=active"`, "active vehicles not ready")

	// Delete asks first, then the list no longer holds it.
	dana.get(vehicle+"/delete").expect(t, http.StatusOK).contains(t, "Delete vehicle 1AB 2345?")
	dana.post(vehicle+"/delete", url.Values{}).expect(t, http.StatusSeeOther)
	dana.get("/vehicles").expect(t, http.StatusOK).contains(t, "No vehicles match.", "Vehicle 1AB 2345 deleted.")
}
