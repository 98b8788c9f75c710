package api_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestVehicleListTotalsFromStoredRows: the vehicles and trailers lists
// read their totals without other filters (and document_status=expired
// alone) from fleet_counts and fleet_expiry
// (migrations/00058_fleet_expiry_counts.sql); the pages and totals are
// those of the records: a soft-deleted vehicle, another company's and a
// document that expires today (not yet expired) left out, a status change
// followed and pages past the end.
func TestVehicleListTotalsFromStoredRows(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	disp := env.As(company, auth.RoleDispatcher)
	create := func(as *webtest.Caller, path, typ, plate string) string {
		return as.Post(path, map[string]any{"type": typ, "plate_number": plate}).Expect(http.StatusCreated).JSON()["id"].(string)
	}
	v := []string{
		create(disp, "/api/v0/vehicles", "lkv", "1AB 0001"), // expired 3 days ago
		create(disp, "/api/v0/vehicles", "lkv", "1AB 0002"), // expired, soft-deleted
		create(disp, "/api/v0/vehicles", "pkv", "1AB 0003"), // expires today
		create(disp, "/api/v0/vehicles", "lkv", "1AB 0004"), // valid, in service
		create(disp, "/api/v0/vehicles", "pkv", "1AB 0005"), // no files
	}
	fleetSetDocument(t, env, v[0], "technical_inspection", -3)
	fleetSetDocument(t, env, v[0], "liability_insurance", 100)
	fleetSetDocument(t, env, v[1], "technical_inspection", -1)
	fleetSetDocument(t, env, v[2], "liability_insurance", 0)
	fleetSetDocument(t, env, v[3], "liability_insurance", 100)
	disp.Delete("/api/v0/vehicles/" + v[1]).Expect(http.StatusNoContent)
	disp.Put("/api/v0/vehicles/"+v[3], map[string]any{"status": "in_service"}).Expect(http.StatusOK)
	elsewhere := create(env.As(other, auth.RoleDispatcher), "/api/v0/vehicles", "lkv", "9ZZ 0001")
	fleetSetDocument(t, env, elsewhere, "technical_inspection", -10)
	tr := create(disp, "/api/v0/trailers", "standard", "2AB 0001")
	create(disp, "/api/v0/trailers", "standard", "2AB 0002")
	if _, err := env.DB.Exec(context.Background(), `
		WITH f AS (
			INSERT INTO document_files (company_id, document_id, filename, original_filename, mime_type, size_bytes, version,
				storage_path, storage_disk, hash_sha256)
			SELECT company_id, id, 'v1_' || gen_random_uuid() || '.pdf', 'scan.pdf', 'application/pdf', 10, 1, 'x', 'local', repeat('a', 64)
			FROM driver_documents WHERE trailer_id = $1 AND type = 'liability_insurance' RETURNING id, document_id)
		UPDATE driver_documents dd SET current_file_id = f.id, valid_until = current_date - 1
		FROM f WHERE dd.id = f.document_id`, tr); err != nil {
		t.Fatal(err)
	}

	type page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
		Total int `json:"total"`
	}
	list := func(path string) (int, []string) {
		t.Helper()
		var p page
		disp.Get(path).Expect(http.StatusOK).Decode(&p)
		var ids []string
		for _, d := range p.Data {
			ids = append(ids, d.ID)
		}
		return p.Total, ids
	}
	for _, c := range []struct {
		path  string
		total int
		ids   []string
	}{
		{"/api/v0/vehicles?per_page=2", 4, []string{v[0], v[2]}},
		{"/api/v0/vehicles?per_page=2&page=2", 4, []string{v[3], v[4]}},
		{"/api/v0/vehicles?per_page=2&page=3", 4, nil},
		{"/api/v0/vehicles?status=active", 3, []string{v[0], v[2], v[4]}},
		{"/api/v0/vehicles?status=in_service&type=lkv", 1, []string{v[3]}},
		{"/api/v0/vehicles?type=pkv", 2, []string{v[2], v[4]}},
		{"/api/v0/vehicles?document_status=expired", 1, []string{v[0]}},
		{"/api/v0/vehicles?document_status=expired&page=2", 1, nil},
		{"/api/v0/vehicles?document_status=expired&type=pkv", 0, nil},
		{"/api/v0/vehicles?document_status=expired&status=active", 1, []string{v[0]}},
		{"/api/v0/vehicles?document_status=expiring_soon", 1, []string{v[2]}},
		{"/api/v0/trailers", 2, nil},
		{"/api/v0/trailers?document_status=expired", 1, []string{tr}},
	} {
		total, ids := list(c.path)
		if total != c.total || (c.ids != nil || total == 0) && !slices.Equal(ids, c.ids) {
			t.Errorf("%s: total %d, %v; want %d, %v", c.path, total, ids, c.total, c.ids)
		}
	}
}
