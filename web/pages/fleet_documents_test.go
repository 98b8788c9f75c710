package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// fleetDocumentPath is the page of a vehicle's or trailer's document of
// the type (record is the record's page).
func fleetDocumentPath(t *testing.T, env *webtest.Env, record, docType string) string {
	t.Helper()
	id := record[strings.LastIndex(record, "/")+1:]
	var doc uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `SELECT id FROM driver_documents
		WHERE coalesce(vehicle_id, trailer_id) = $1 AND type = $2`, id, docType).Scan(&doc); err != nil {
		t.Fatal(err)
	}
	return record + "/documents/" + doc.String()
}

// TestFleetDocumentPages: a dispatcher opens a lorry's technical
// inspection from the lorry's page and uploads it on the page (a plain
// post, then the script's request); the expiry list links the row to the
// lorry and its document; HR sees the status without the upload form or
// the history, and its direct post is refused and writes nothing. The
// lists offer their downloads with the filters, and the import to the
// dispatcher only.
func TestFleetDocumentPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	dana := signIn(t, env, company, auth.RoleDispatcher, "dana@acme.test", "en")
	res := dana.post("/vehicles/new", url.Values{"type": {"lkv"}, "status": {"active"}, "plate_number": {"1AB 2345"}}).
		expect(t, http.StatusSeeOther)
	vehicle := res.Header.Get("Location")
	path := fleetDocumentPath(t, env, vehicle, "technical_inspection")

	dana.get(vehicle).expect(t, http.StatusOK).contains(t, `href="`+path+`"`, "Not ready")
	dana.get(path).expect(t, http.StatusOK).
		contains(t, "Technical inspection", `data-status="no_data"`, `href="/vehicles"`, `href="`+vehicle+`"`, "1AB 2345",
			`data-testid="upload-form"`, `action="`+path+`"`, `capture="environment"`, "No file has been uploaded yet.")

	today, err := time.Parse(time.DateOnly, webtest.Today())
	if err != nil {
		t.Fatal(err)
	}
	soon := today.AddDate(0, 0, 20).Format(time.DateOnly)
	pdf := []byte("%PDF-1.7\ntechnical inspection")
	res = dana.upload(path, "stk.pdf", pdf, map[string]string{"number": "STK 1", "valid_until": soon}, true).expect(t, http.StatusSeeOther)
	if got := res.Header.Get("Location"); got != path {
		t.Errorf("after upload: %q", got)
	}
	dana.get(path).expect(t, http.StatusOK).
		contains(t, "Version 1 was uploaded.", `data-status="warning"`, "STK 1", "stk.pdf", `data-testid="download-1"`)

	// The documents by expiry: the lorry's row leads to the lorry and to
	// its document's page, not to a driver's.
	dana.get("/documents").expect(t, http.StatusOK).
		contains(t, `href="`+vehicle+`"`, `href="`+path+`"`).lacks(t, `href="/drivers/`+vehicle[len("/vehicles/"):])

	// The script's request gets the panel with the new status.
	dana.Header.Set("HX-Request", "true")
	later := today.AddDate(1, 0, 0).Format(time.DateOnly)
	dana.upload(path, "stk-2.pdf", pdf, map[string]string{"details": "replace", "valid_until": later}, true).expect(t, http.StatusOK).
		lacks(t, "<html").contains(t, `id="document-panel"`, "Version 2 was uploaded.", `data-status="valid"`)
	dana.Header.Del("HX-Request")

	// Another record's path with the document: 404.
	res = dana.post("/trailers/new", url.Values{"type": {"mega"}, "plate_number": {"2AB 0002"}}).expect(t, http.StatusSeeOther)
	trailer := res.Header.Get("Location")
	dana.get(trailer+path[len(vehicle):]).expect(t, http.StatusNotFound)
	dana.upload(trailer+path[len(vehicle):], "a.pdf", pdf, nil, true).expect(t, http.StatusNotFound)
	dana.get(fleetDocumentPath(t, env, trailer, "technical_inspection")).expect(t, http.StatusOK).
		contains(t, `href="/trailers"`, "2AB 0002", `data-testid="upload-form"`)

	// HR: the status only; a direct post is refused and writes nothing.
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.get(path).expect(t, http.StatusOK).contains(t, `data-status="valid"`).
		lacks(t, `data-testid="upload-form"`, `data-testid="history"`, "/download")
	before := env.Checksum()
	hr.upload(path, "a.pdf", pdf, nil, true).expect(t, http.StatusForbidden)
	if env.Checksum() != before {
		t.Error("HR's refused upload wrote something")
	}

	// The lists' downloads carry the filters; the import is the
	// dispatcher's.
	dana.get("/vehicles?status=active").expect(t, http.StatusOK).
		contains(t, `href="/vehicles/export?status=active&amp;format=csv"`, `href="/vehicles/export?status=active&amp;format=xlsx"`,
			`href="/vehicles/import"`)
	csv := dana.get("/vehicles/export?format=csv&status=active").expect(t, http.StatusOK).contains(t, "1AB 2345")
	if ct := csv.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("export Content-Type %q", ct)
	}
	dana.get("/vehicles/export?format=csv&status=sold").expect(t, http.StatusOK).lacks(t, "1AB 2345")
	dana.get("/trailers").expect(t, http.StatusOK).contains(t, `href="/trailers/export?format=xlsx"`, `href="/trailers/import"`)
	hr.get("/vehicles").expect(t, http.StatusOK).contains(t, `href="/vehicles/export?format=csv"`).lacks(t, `href="/vehicles/import"`)
}

// TestFleetDocumentsOnTheHomePage: the dispatcher's home counts the
// fleet's documents expired and due within 30 days, each linked to the
// documents list filtered to vehicles and trailers, which lists only
// theirs; the list's holder filter keeps the choice in its address.
func TestFleetDocumentsOnTheHomePage(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	dana := signIn(t, env, company, auth.RoleDispatcher, "dana@acme.test", "en")
	res := dana.post("/vehicles/new", url.Values{"type": {"lkv"}, "status": {"active"}, "plate_number": {"1AB 2345"}}).
		expect(t, http.StatusSeeOther)
	vehicle := res.Header.Get("Location")
	today, err := time.Parse(time.DateOnly, webtest.Today())
	if err != nil {
		t.Fatal(err)
	}
	pdf := []byte("%PDF-1.7\nfleet document")
	for typ, until := range map[string]time.Time{
		"technical_inspection":   today.AddDate(0, 0, -3),
		"liability_insurance":    today.AddDate(0, 0, 12),
		"tachograph_calibration": today.AddDate(0, 0, 25),
		"community_licence_copy": today.AddDate(1, 0, 0),
	} {
		dana.upload(fleetDocumentPath(t, env, vehicle, typ), typ+".pdf", pdf,
			map[string]string{"valid_until": until.Format(time.DateOnly)}, true).expect(t, http.StatusSeeOther)
	}
	home := dana.get("/").expect(t, http.StatusOK)
	home.contains(t,
		`href="/documents?holder_type=vehicle%2Ctrailer&amp;status=expired"`,
		`data-count="home.fleet.documents_expired"><span class="text-2xl font-semibold tabular-nums">1</span>`,
		"vehicle and trailer documents expired",
		`href="/documents?holder_type=vehicle%2Ctrailer"`,
		`data-count="home.fleet.documents_due"><span class="text-2xl font-semibold tabular-nums">2</span>`,
		"vehicle and trailer documents due within 30 days")
	doc := func(typ string) string { return `href="` + fleetDocumentPath(t, env, vehicle, typ) + `"` }
	dana.get("/documents?holder_type=vehicle%2Ctrailer&status=expired").expect(t, http.StatusOK).
		contains(t, "1AB 2345", doc("technical_inspection"), `<option value="vehicle" selected>Vehicles</option>`).
		lacks(t, doc("liability_insurance"))
	dana.get("/documents?holder_type=vehicle,trailer").expect(t, http.StatusOK).
		contains(t, doc("liability_insurance"), doc("tachograph_calibration")).lacks(t, doc("community_licence_copy"), doc("technical_inspection"))
	dana.get("/documents?holder_type=driver").expect(t, http.StatusOK).lacks(t, doc("liability_insurance"))
}
