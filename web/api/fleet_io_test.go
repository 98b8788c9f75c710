package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// fleetImportChange is one change of a fleet import.
type fleetImportChange struct {
	Row       int     `json:"row"`
	Action    string  `json:"action"`
	VehicleID *string `json:"vehicle_id"`
	TrailerID *string `json:"trailer_id"`
	Fields    map[string]struct {
		Old any `json:"old"`
		New any `json:"new"`
	} `json:"fields"`
}

// fleetImportResult is the answer of POST /imports/vehicles|trailers.
type fleetImportResult struct {
	importResult
	Changes []fleetImportChange `json:"changes"`
}

func sendFleetImport(t testing.TB, c *webtest.Caller, kind, name string, data []byte, parts ...part) *webtest.Response {
	t.Helper()
	body, h := multipartBody(t, append([]part{filePart(name, data)}, parts...)...)
	return c.Send(http.MethodPost, "/api/v0/imports/"+kind, body, h)
}

func fleetImport(t testing.TB, r *webtest.Response) fleetImportResult {
	t.Helper()
	var im fleetImportResult
	r.Decode(&im)
	return im
}

// czechTrailerHeader are the Czech headers of the trailers export, which
// the import reads back.
var czechTrailerHeader = []string{"Číslo", "Typ", "Stav", "SPZ", "Značka", "Rok výroby", "Chlazení", "Nejnižší teplota (°C)",
	"Nejvyšší teplota (°C)", "Objem (m³)", "Nápravy"}

// czechTrailers are n trailers as a Czech spreadsheet writes them: words
// in Czech, decimal commas, plates with spaces and dashes.
func czechTrailers(n int) [][]string {
	rows := make([][]string, n)
	for i := range rows {
		frigo := i%3 == 0
		typ, chill, lo, hi := "Plachtový", "Ne", "", ""
		if frigo {
			typ, chill, lo, hi = "Chladírenský", "Ano", "-25", "12,5"
		}
		rows[i] = []string{"", typ, "Aktivní", fmt.Sprintf("%dAB-%04d", 1+i%9, 1000+i), "Schmitz Cargobull", fmt.Sprint(2015 + i%8),
			chill, lo, hi, "86,5", "3"}
	}
	return rows
}

// utf8CSV writes the rows with semicolons in UTF-8 with a byte order mark.
func utf8CSV(header []string, rows [][]string) []byte {
	var sb strings.Builder
	sb.WriteString("\ufeff" + strings.Join(header, ";") + "\r\n")
	for _, r := range rows {
		sb.WriteString(strings.Join(r, ";") + "\r\n")
	}
	return []byte(sb.String())
}

// 10 trailers from a Czech CSV with one bad row: the dry run and the all or
// nothing run report the row and change nothing; valid_rows imports the
// other 9; the import is readable afterwards; importing the file again
// changes nothing.
func TestFleetImportCzechTrailers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Dopravce s.r.o.", "free")
	disp := env.As(company, auth.RoleDispatcher)
	rows := czechTrailers(10)
	rows[4][1] = "Létající"                                 // row 6: unknown type
	rows[7][6], rows[7][7], rows[7][8] = "Ano", "-5", "-10" // row 9: the lowest temperature above the highest
	file := utf8CSV(czechTrailerHeader, rows)
	count := func() int {
		var n int
		if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM trailers WHERE company_id = $1`, company).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	dry := fleetImport(t, sendFleetImport(t, disp, "trailers", "navesy.csv", file).Expect(http.StatusCreated))
	if !dry.DryRun || dry.Rows != 10 || dry.Created != 10 || len(dry.Unknown) != 0 {
		t.Fatalf("dry run %+v", dry)
	}
	fields := map[string]bool{}
	for _, e := range dry.Errors {
		fields[fmt.Sprintf("%d %s", e.Row, e.Field)] = true
	}
	if len(dry.Errors) != 2 || !fields["6 type"] || !fields["9 temperature_min"] {
		t.Fatalf("errors %+v", dry.Errors)
	}
	if !strings.Contains(dry.Errors[0].Message, "Létající") {
		t.Errorf("message does not name the cell: %q", dry.Errors[0].Message)
	}

	all := fleetImport(t, sendFleetImport(t, disp, "trailers", "navesy.csv", file, field("dry_run", "false")).Expect(http.StatusCreated))
	if all.DryRun || len(all.Errors) != 2 || count() != 0 {
		t.Fatalf("all or nothing with errors %+v, %d trailers", all, count())
	}

	valid := fleetImport(t, sendFleetImport(t, disp, "trailers", "navesy.csv", file, field("dry_run", "false"),
		field("mode", "valid_rows")).Expect(http.StatusCreated))
	if valid.Created != 8 || len(valid.Errors) != 2 || count() != 8 || len(valid.Changes) != 8 {
		t.Fatalf("valid rows %+v, %d trailers", valid, count())
	}
	if c := valid.Changes[0]; c.Action != "create" || c.TrailerID == nil || c.VehicleID != nil {
		t.Errorf("change %+v", c)
	}
	read := fleetImport(t, disp.Get("/api/v0/imports/"+valid.ID).Expect(http.StatusOK))
	if read.Created != 8 || read.Mode != "valid_rows" || len(read.Changes) != 8 || read.Changes[0].TrailerID == nil {
		t.Errorf("read import %+v", read)
	}
	var typ, tags, lo, hi, vol string
	if err := env.DB.QueryRow(context.Background(), `SELECT type, tags::text, temperature_min::text, temperature_max::text, volume_m3::text
		FROM trailers WHERE company_id = $1 AND plate_number = '1AB-1000'`, company).Scan(&typ, &tags, &lo, &hi, &vol); err != nil ||
		typ != "frigo" || tags != "{frigo}" || lo != "-25.00" || hi != "12.50" || vol != "86.50" {
		t.Errorf("trailer 1: %s %s %s %s %s %v", typ, tags, lo, hi, vol, err)
	}

	// The file again, the bad rows corrected: the 8 are found by plate.
	rows[4][1] = "Mega"
	rows[7][6] = "Ano"
	rows[7][1] = "Chladírenský"
	rows[7][7], rows[7][8] = "-10", "-5"
	again := fleetImport(t, sendFleetImport(t, disp, "trailers", "navesy.csv", utf8CSV(czechTrailerHeader, rows),
		field("dry_run", "false")).Expect(http.StatusCreated))
	if again.Created != 2 || again.Unchanged != 8 || len(again.Errors) != 0 || count() != 10 {
		t.Fatalf("again %+v, %d trailers", again, count())
	}
	// An HR manager may not import the fleet; a dispatcher may not import drivers.
	hr := env.As(company, auth.RoleHRManager)
	sendFleetImport(t, hr, "trailers", "navesy.csv", file).ExpectError(http.StatusForbidden, "Forbidden")
	hr.Get("/api/v0/imports/"+valid.ID).ExpectError(http.StatusForbidden, "Forbidden")
	sendImport(t, disp, "ridici.csv", []byte("first_name\nJan\n")).ExpectError(http.StatusForbidden, "Forbidden")
}

// A row matches a vehicle by its number, else by its plate written any
// way (spaces, dashes, case): it updates it (changes old → new) instead of
// creating one; a plate twice in the file marks both rows; a plate of a
// trailer is taken.
func TestFleetImportMatchesByPlate(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	v := disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1AB 2345", "make": "MAN"}).Expect(http.StatusCreated).JSON()
	disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "3CD 0001"}).Expect(http.StatusCreated)
	disp.Post("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "9ZZ 9999"}).Expect(http.StatusCreated)

	file := []byte("Number,plate_number,type,make,year,fuel_type\n,1ab-2345,Truck,Volvo,2019,Nafta\nVEH-0002,,,,2020,\n")
	im := fleetImport(t, sendFleetImport(t, disp, "vehicles", "v.csv", file, field("dry_run", "false")).Expect(http.StatusCreated))
	if im.Created != 0 || im.Updated != 2 || len(im.Errors) != 0 {
		t.Fatalf("import %+v", im)
	}
	c := im.Changes[0]
	if c.Action != "update" || c.VehicleID == nil || *c.VehicleID != v["id"] || c.Fields["make"].Old != "MAN" || c.Fields["make"].New != "Volvo" ||
		c.Fields["fuel_type"].New != "diesel" || c.Fields["year"].New != float64(2019) {
		t.Errorf("change %+v", c)
	}
	got := disp.Get("/api/v0/vehicles/" + v["id"].(string)).Expect(http.StatusOK).JSON()
	if got["make"] != "Volvo" || got["plate_number"] != "1AB 2345" {
		t.Errorf("vehicle %v", got)
	}

	dup := []byte("plate_number;type\n5EF 1111;lkv\n5ef-1111;pkv\n9ZZ-9999;lkv\n")
	bad := fleetImport(t, sendFleetImport(t, disp, "vehicles", "v.csv", dup).Expect(http.StatusCreated))
	seen := map[string]bool{}
	for _, e := range bad.Errors {
		seen[fmt.Sprintf("%d %s", e.Row, e.Field)] = true
	}
	if !seen["2 plate_number"] || !seen["3 plate_number"] || !seen["4 plate_number"] || len(bad.Errors) != 3 {
		t.Errorf("errors %+v", bad.Errors)
	}
}

// Two imports of the same new vehicles at once create each vehicle once:
// the plates' unique key refuses the second, which changes nothing.
func TestFleetImportConcurrent(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	var sb strings.Builder
	sb.WriteString("plate_number,type\n")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&sb, "7XY %04d,lkv\n", i)
	}
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, h := multipartBody(t, filePart("v.csv", []byte(sb.String())), field("dry_run", "false"))
			disp.Send(http.MethodPost, "/api/v0/imports/vehicles", body, h)
		}()
	}
	wg.Wait()
	var n, distinct int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT plate_number) FROM vehicles WHERE company_id = $1`,
		company).Scan(&n, &distinct); err != nil || n != 30 || distinct != 30 {
		t.Fatalf("%d vehicles, %d plates: %v", n, distinct, err)
	}
}

// The export holds every row of the filtered list with the export's
// headers, and imports back unchanged; the template imports as it is.
func TestFleetExport(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	for i := 0; i < 3; i++ {
		disp.Post("/api/v0/trailers", map[string]any{"type": "frigo", "plate_number": fmt.Sprintf("1T%d 0000", i), "has_refrigeration": true,
			"temperature_min": -20, "temperature_max": 4.5, "make": "Krone"}).Expect(http.StatusCreated)
	}
	disp.Post("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "2M 0000", "status": "inactive"}).Expect(http.StatusCreated)
	acct := env.As(company, auth.RoleAccountant)
	r := acct.Get("/api/v0/trailers/export?format=csv&status=active").Expect(http.StatusOK)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("content type %q", ct)
	}
	rows := readCSV(t, r.Body)
	// The company's language is Czech.
	if len(rows) != 4 || rows[0][0] != "Číslo" || rows[0][3] != "SPZ" || rows[1][0] != "TRL-0001" ||
		rows[1][1] != "Chladírenský" || rows[1][8] != "Ano" || rows[1][9] != "-20.00" {
		t.Fatalf("export %q", rows)
	}
	for _, row := range rows[1:] {
		if row[2] != "Aktivní" {
			t.Errorf("row %q past the filter", row)
		}
	}
	csz := disp.Send(http.MethodGet, "/api/v0/vehicles/export?format=xlsx", nil, http.Header{"Accept-Language": {"cs"}}).Expect(http.StatusOK)
	if ct := csz.Header.Get("Content-Type"); !strings.Contains(ct, "spreadsheetml") {
		t.Errorf("xlsx content type %q", ct)
	}
	acct.Get("/api/v0/trailers/export?format=pdf").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	acct.Get("/api/v0/trailers/export?status=flying").ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	back := fleetImport(t, sendFleetImport(t, disp, "trailers", "export.csv", r.Body, field("dry_run", "false")).Expect(http.StatusCreated))
	if back.Unchanged != 3 || len(back.Errors) != 0 || len(back.Unknown) == 0 {
		t.Errorf("export imported back %+v", back)
	}
	for _, kind := range []string{"vehicles", "trailers"} {
		tpl := disp.Get("/api/v0/imports/" + kind + "/template?format=csv").Expect(http.StatusOK)
		dry := fleetImport(t, sendFleetImport(t, disp, kind, "template.csv", tpl.Body).Expect(http.StatusCreated))
		if dry.Created != 1 || len(dry.Errors) != 0 {
			t.Errorf("%s template: %+v", kind, dry)
		}
		disp.Get("/api/v0/imports/" + kind + "/template?format=xlsx").Expect(http.StatusOK)
	}
}
