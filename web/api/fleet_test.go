package api_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
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
