package api_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

func TestFleetCreateReadUpdateDelete(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)

	v := disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1ab 2345", "vin": "wdb9634031l123456",
		"make": "Mercedes", "model": "Actros", "year": 2020, "tags": []string{"ADR"}}).Expect(http.StatusCreated).JSON()
	if v["internal_number"] != "VEH-0001" || v["plate_number"] != "1AB 2345" || v["vin"] != "WDB9634031L123456" || v["is_ready"] != false {
		t.Fatalf("created vehicle: %v", v)
	}
	id := v["id"].(string)
	got := disp.Get("/api/v0/vehicles/" + id).Expect(http.StatusOK).JSON()
	if got["current_unit"] != nil || got["type"] != "lkv" {
		t.Fatalf("read vehicle: %v", got)
	}
	disp.Put("/api/v0/vehicles/"+id, map[string]any{"color": "red"}).Expect(http.StatusOK)
	list := disp.Get("/api/v0/vehicles?search=actros").Expect(http.StatusOK).JSON()
	if list["total"] != float64(1) {
		t.Fatalf("list: %v", list)
	}
	tr := disp.Post("/api/v0/trailers", map[string]any{"type": "frigo", "plate_number": "2B3-4567", "has_refrigeration": true,
		"temperature_min": -20, "temperature_max": 5.5}).Expect(http.StatusCreated).JSON()
	if tr["internal_number"] != "TRL-0001" {
		t.Fatalf("created trailer: %v", tr)
	}
	disp.Post("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "1AB-2345"}).ExpectError(http.StatusConflict, "DuplicateEntry")
	disp.Delete("/api/v0/vehicles/" + id).Expect(http.StatusNoContent)
	disp.Post("/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "1AB-2345"}).Expect(http.StatusCreated)
	disp.Get("/api/v0/trailers?sort_by=plate_number&document_status=no_data&is_ready=false").Expect(http.StatusOK)
}

func TestFleetNumbersUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	var wg sync.WaitGroup
	numbers := make([]string, 20)
	for i := range numbers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var v struct {
				InternalNumber string `json:"internal_number"`
			}
			disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": fmt.Sprintf("C%03d", i)}).
				Expect(http.StatusCreated).Decode(&v)
			numbers[i] = v.InternalNumber
		}()
	}
	wg.Wait()
	sort.Strings(numbers)
	if len(slices.Compact(slices.Clone(numbers))) != 20 || numbers[19] != "VEH-0020" {
		t.Fatalf("numbers: %v", numbers)
	}
	// The same plate, written differently, twenty times at once: one wins.
	var created atomic.Int32
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := disp.Post("/api/v0/trailers", map[string]any{"type": "van", "plate_number": []string{"9X9-999", "9x9 999"}[i%2]})
			switch res.Status {
			case http.StatusCreated:
				created.Add(1)
			case http.StatusConflict:
			default:
				t.Errorf("create: %d %s", res.Status, res.Body)
			}
		}()
	}
	wg.Wait()
	if created.Load() != 1 {
		t.Fatalf("%d trailers with one plate", created.Load())
	}
}

func TestFleetValidationWritesNothing(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	cases := []struct {
		path  string
		body  map[string]any
		field string
	}{
		{"/api/v0/vehicles", map[string]any{"plate_number": "1A"}, "type"},
		{"/api/v0/vehicles", map[string]any{"type": "bus", "plate_number": "1A"}, "type"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv"}, "plate_number"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": " - "}, "plate_number"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "vin": "WDB9634031L12345O"}, "vin"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "vin": "WDB96340"}, "vin"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "assignment_mode": "pool"}, "assignment_mode"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "year": 1899}, "year"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "gross_weight_kg": 0}, "gross_weight_kg"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "tags": []string{"a b"}}, "tags.0"},
		{"/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1A", "has_refrigeration": true}, "has_refrigeration"},
		{"/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "1A", "temperature_min": -5}, "temperature_min"},
		{"/api/v0/trailers", map[string]any{"type": "frigo", "plate_number": "1A", "has_refrigeration": true,
			"temperature_min": 5, "temperature_max": -5}, "temperature_min"},
		{"/api/v0/trailers", map[string]any{"type": "mega", "plate_number": "1A", "volume_m3": -1}, "volume_m3"},
	}
	for _, c := range cases {
		body := disp.Post(c.path, c.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if fields, _ := body["errors"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%s %v: %v, want a message on %s", c.path, c.body, body, c.field)
		}
	}
	if n := webtest.Value[int](t, env, `SELECT (SELECT count(*) FROM vehicles) + (SELECT count(*) FROM trailers) + (SELECT count(*) FROM audit_logs WHERE entity_type IN ('vehicle', 'trailer'))`); n != 0 {
		t.Fatalf("%d rows written by refused creates", n)
	}
	// A pkv may have an assignment mode; a type change to lkv then needs it cleared.
	v := disp.Post("/api/v0/vehicles", map[string]any{"type": "pkv", "plate_number": "2A", "assignment_mode": "pool"}).Expect(http.StatusCreated).JSON()
	disp.Put("/api/v0/vehicles/"+v["id"].(string), map[string]any{"type": "lkv"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM driver_documents WHERE vehicle_id = $1`, v["id"]); n != 4 {
		t.Fatalf("a pkv has %d documents, want 4", n)
	}
	disp.Put("/api/v0/vehicles/"+v["id"].(string), map[string]any{"type": "lkv", "assignment_mode": nil}).Expect(http.StatusOK)
	if n := webtest.Value[int](t, env, `SELECT count(*) FROM driver_documents WHERE vehicle_id = $1`, v["id"]); n != 6 {
		t.Fatalf("a truck has %d documents, want 6", n)
	}
}

func TestFleetDuplicatesAndDelete(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	disp := env.As(company, auth.RoleDispatcher)
	v := disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "5T2 1234", "vin": "wdb9634031l123456"}).Expect(http.StatusCreated).JSON()
	body := disp.Post("/api/v0/trailers", map[string]any{"type": "van", "plate_number": "5t2-1234"}).ExpectError(http.StatusConflict, "DuplicateEntry")
	if !strings.Contains(fmt.Sprint(body["message"]), "VEH-0001") {
		t.Fatalf("duplicate plate: %v", body)
	}
	body = disp.Post("/api/v0/trailers", map[string]any{"type": "van", "plate_number": "X1", "vin": "WDB9634031L123456"}).ExpectError(http.StatusConflict, "DuplicateEntry")
	if !strings.Contains(fmt.Sprint(body["message"]), "VEH-0001") {
		t.Fatalf("duplicate VIN: %v", body)
	}
	// Another company may have the same plate.
	env.As(other, auth.RoleAdmin).Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "5T21234"}).Expect(http.StatusCreated)
	// A trailer with refrigeration carries frigo.
	tr := disp.Post("/api/v0/trailers", map[string]any{"type": "frigo", "plate_number": "F1", "has_refrigeration": true, "tags": []string{"adr"}}).Expect(http.StatusCreated).JSON()
	if fmt.Sprint(tr["tags"]) != "[adr frigo]" {
		t.Fatalf("trailer tags: %v", tr["tags"])
	}
	// In an active unit: no delete.
	driver := env.Driver(company)
	id := v["id"].(string)
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO transport_units (company_id, driver_id, vehicle_id, trailer_id) VALUES ($1, $2, $3, $4)`,
		company, driver, id, tr["id"]); err != nil {
		t.Fatal(err)
	}
	got := disp.Get("/api/v0/vehicles/" + id).Expect(http.StatusOK).JSON()
	unit, _ := got["current_unit"].(map[string]any)
	if unit == nil || unit["trailer"].(map[string]any)["internal_number"] != "TRL-0001" {
		t.Fatalf("current unit: %v", got["current_unit"])
	}
	disp.Delete("/api/v0/vehicles/"+id).ExpectError(http.StatusConflict, "Conflict")
	if _, err := env.DB.Exec(context.Background(), `UPDATE transport_units SET unassigned_at = now() WHERE vehicle_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	disp.Delete("/api/v0/vehicles/" + id).Expect(http.StatusNoContent)
	disp.Get("/api/v0/vehicles/"+id).ExpectError(http.StatusNotFound, "NotFound")
	// The plate and VIN are free again.
	disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "5T2-1234", "vin": "WDB9634031L123456"}).Expect(http.StatusCreated)
}

func TestFleetReadinessListsAndDrivers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	a := disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1ÁB 100", "make": "Škoda", "model": "Octavia"}).Expect(http.StatusCreated).JSON()
	b := disp.Post("/api/v0/vehicles", map[string]any{"type": "pkv", "plate_number": "1AB 200"}).Expect(http.StatusCreated).JSON()
	for _, typ := range []string{"technical_inspection", "liability_insurance"} {
		fleetSetDocument(t, env, b["id"].(string), typ, 100)
	}
	var page struct {
		Data []struct {
			ID               string         `json:"id"`
			IsReady          bool           `json:"is_ready"`
			DocumentsSummary map[string]int `json:"documents_summary"`
		} `json:"data"`
		Total int `json:"total"`
	}
	disp.Get("/api/v0/vehicles?is_ready=true").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID != b["id"] || !page.Data[0].IsReady || page.Data[0].DocumentsSummary["valid"] != 2 {
		t.Fatalf("ready: %+v", page)
	}
	disp.Get("/api/v0/vehicles?search=skoda%20octavia").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID != a["id"] {
		t.Fatalf("search: %+v", page)
	}
	disp.Get("/api/v0/vehicles?search=1ab200&type=pkv&document_status=valid").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID != b["id"] {
		t.Fatalf("search plate: %+v", page)
	}
	var cur struct {
		Data []struct{ ID string } `json:"data"`
		Meta struct {
			NextCursor *string `json:"next_cursor"`
		} `json:"meta"`
	}
	disp.Get("/api/v0/vehicles?limit=1&sort_by=plate_number&sort_order=desc").Expect(http.StatusOK).Decode(&cur)
	if len(cur.Data) != 1 || cur.Meta.NextCursor == nil {
		t.Fatalf("cursor page: %+v", cur)
	}
	disp.Get("/api/v0/vehicles?limit=1&cursor=" + *cur.Meta.NextCursor).Expect(http.StatusOK).Decode(&cur)
	if len(cur.Data) != 1 {
		t.Fatalf("second cursor page: %+v", cur)
	}
	disp.Get("/api/v0/vehicles?sort_by=year").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	disp.Get("/api/v0/vehicles?updated_since=2000-01-01T00:00:00Z&include_deleted=true").Expect(http.StatusOK)

	// A driver reads only its active unit's vehicle.
	email := "unit-driver@example.test"
	driver := env.Driver(company, fixtures.Email(email))
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO transport_units (company_id, driver_id, vehicle_id) VALUES ($1, $2, $3)`,
		company, driver, a["id"]); err != nil {
		t.Fatal(err)
	}
	drv := env.As(company, auth.RoleDriver, email)
	drv.Get("/api/v0/vehicles").Expect(http.StatusOK).Decode(&page)
	if page.Total != 1 || page.Data[0].ID != a["id"] {
		t.Fatalf("driver's list: %+v", page)
	}
	drv.Get("/api/v0/vehicles/" + a["id"].(string)).Expect(http.StatusOK)
	drv.Get("/api/v0/vehicles/"+b["id"].(string)).ExpectError(http.StatusForbidden, "AccessDenied")
	drv.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "Z"}).ExpectError(http.StatusForbidden, "Forbidden")
	env.As(company, auth.RoleHRManager).Put("/api/v0/vehicles/"+a["id"].(string), map[string]any{}).ExpectError(http.StatusForbidden, "Forbidden")
}

// fleetSetDocument gives a vehicle's document of one type a current file
// valid until today+days.
func fleetSetDocument(t *testing.T, env *webtest.Env, vehicleID, docType string, days int) {
	t.Helper()
	_, err := env.DB.Exec(context.Background(), `
		WITH doc AS (SELECT dd.id, dd.company_id FROM driver_documents dd WHERE dd.vehicle_id = $1 AND dd.type = $2),
		f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				storage_path, storage_disk, hash_sha256)
			SELECT company_id, id, 'v1_' || gen_random_uuid() || '.pdf', 'scan.pdf', 'application/pdf', 10, 1, 'x', 'local', repeat('a', 64)
			FROM doc RETURNING id, document_id)
		UPDATE driver_documents dd SET current_file_id = f.id, valid_until = current_date + $3::int
		FROM f WHERE dd.id = f.document_id`, vehicleID, docType, days)
	if err != nil {
		t.Fatalf("set document: %v", err)
	}
}
