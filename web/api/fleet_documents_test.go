package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// fleetVehicle inserts a vehicle of kind (lkv, pkv) with a record of each
// built-in type of vehicles that applies to it.
func fleetVehicle(t *testing.T, env *webtest.Env, company uuid.UUID, kind, plate string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := env.DB.QueryRow(context.Background(), `WITH v AS (
			INSERT INTO vehicles (company_id, internal_number, internal_seq, type, plate_number)
			SELECT $1, 'VEH-' || lpad((count(*) + 1)::text, 4, '0'), count(*) + 1, $2, $3 FROM vehicles WHERE company_id = $1
			RETURNING id, company_id, type),
		d AS (INSERT INTO driver_documents (company_id, holder_type, vehicle_id, type)
			SELECT v.company_id, 'vehicle', v.id, b.type FROM v, konvoj_builtin_document_types('vehicle') b
			WHERE konvoj_fleet_type_applies('vehicle', v.type, b.type))
		SELECT id FROM v`, company, kind, plate).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

func fleetDocs(t *testing.T, c *webtest.Caller, path string) map[string]documentJSON {
	t.Helper()
	var out struct {
		Data []struct {
			documentJSON
			HolderType string     `json:"holder_type"`
			HolderID   uuid.UUID  `json:"holder_id"`
			DriverID   *uuid.UUID `json:"driver_id"`
		}
	}
	c.Get(path).Expect(http.StatusOK).Decode(&out)
	m := map[string]documentJSON{}
	for _, d := range out.Data {
		if d.HolderType == "driver" || d.DriverID != nil || !strings.Contains(path, d.HolderID.String()) {
			t.Errorf("%s: %s holder %s %s, driver %v", path, d.Type, d.HolderType, d.HolderID, d.DriverID)
		}
		m[d.Type] = d.documentJSON
	}
	return m
}

// TestFleetDocuments: a vehicle's documents are listed (a light vehicle's
// without the truck's types), uploaded to by a dispatcher and an admin
// (versioned, in the vehicle's folder, the status following), refused to
// HR, an accountant and a driver; a registration certificate takes no
// valid_until.
func TestFleetDocuments(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Fleet", "free")
	admin := env.As(company, auth.RoleAdmin)
	dispatcher := env.As(company, auth.RoleDispatcher)
	hr := env.As(company, auth.RoleHRManager)
	accountant := env.As(company, auth.RoleAccountant)
	driver := env.As(company, auth.RoleDriver)
	truck := fleetVehicle(t, env, company, "lkv", "1AB 2345")
	van := fleetVehicle(t, env, company, "pkv", "2CD 3456")

	docs := fleetDocs(t, dispatcher, "/api/v0/vehicles/"+truck.String()+"/documents")
	if len(docs) != 6 || docs["technical_inspection"].Status != "no_data" || docs["technical_inspection"].Files == nil {
		t.Fatalf("truck documents: %+v", docs)
	}
	if vanDocs := fleetDocs(t, hr, "/api/v0/vehicles/"+van.String()+"/documents"); len(vanDocs) != 4 ||
		vanDocs["technical_inspection"].Files != nil {
		t.Errorf("van documents (HR, statuses only): %+v", vanDocs)
	}
	driver.Get("/api/v0/vehicles/"+truck.String()+"/documents").ExpectError(http.StatusForbidden, "AccessDenied")
	admin.Get("/api/v0/trailers/"+truck.String()+"/documents").ExpectError(http.StatusNotFound, "NotFound")

	inspection := docs["technical_inspection"].ID
	until := webtest.Today()[:4] + "-12-31"
	f := mustUpload(t, dispatcher, inspection, filePart("stk.pdf", samplePDF(t, 1000)), field("valid_until", "2099-12-31"))
	if f.Version != 1 || !strings.HasPrefix(f.StoragePath, company.String()+"/"+truck.String()+"/technical_inspection/") {
		t.Errorf("dispatcher's upload: %+v", f)
	}
	f2 := mustUpload(t, admin, inspection, filePart("stk2.pdf", samplePDF(t, 2000)), field("valid_until", until))
	if f2.Version != 2 || !f2.IsCurrent {
		t.Errorf("admin's upload: %+v", f2)
	}
	after := fleetDocs(t, admin, "/api/v0/vehicles/"+truck.String()+"/documents")["technical_inspection"]
	if after.ValidUntil == nil || *after.ValidUntil != until || after.Status == "no_data" || len(after.Files) != 2 {
		t.Errorf("after the uploads: %+v", after)
	}
	for _, c := range []*webtest.Caller{hr, accountant, driver} {
		upload(t, c, inspection, filePart("x.pdf", samplePDF(t, 3000))).ExpectError(http.StatusForbidden, "Forbidden")
		c.Put("/api/v0/documents/"+inspection.String(), map[string]any{"number": "X"}).ExpectError(http.StatusForbidden, "Forbidden")
		c.Get("/api/v0/documents/"+inspection.String()+"/files/versions").ExpectError(http.StatusForbidden, "Forbidden")
		c.Get("/api/v0/files/"+f.ID.String()+"/download").ExpectError(http.StatusForbidden, "Forbidden")
	}
	dispatcher.Get("/api/v0/documents/" + inspection.String() + "/files/versions").Expect(http.StatusOK)
	dispatcher.Get("/api/v0/files/" + f.ID.String() + "/download").Expect(http.StatusOK)
	dispatcher.Put("/api/v0/documents/"+inspection.String(), map[string]any{"number": "STK-1"}).Expect(http.StatusOK)
	if n := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'document' AND entity_id = $1`, inspection); n != 3 {
		t.Errorf("%d audit rows of the inspection, want 3", n)
	}

	registration := docs["registration_certificate"].ID
	dispatcher.Put("/api/v0/documents/"+registration.String(), map[string]any{"valid_until": until}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	upload(t, dispatcher, registration, filePart("tp.pdf", samplePDF(t, 4000)), field("valid_until", until)).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	mustUpload(t, dispatcher, registration, filePart("tp.pdf", samplePDF(t, 4000)))

	// The expiry list names the vehicle by its plate.
	var page byExpiryPage
	admin.Get("/api/v0/documents?holder_type=vehicle").Expect(http.StatusOK).Decode(&page)
	found := false
	for _, it := range page.Data {
		if it.HolderType != "vehicle" {
			t.Errorf("holder_type=vehicle listed %+v", it)
		}
		if it.ID == inspection {
			found = it.HolderID == truck && it.Holder.Name == "1AB 2345" && it.Holder.InternalNumber == "VEH-0001" &&
				it.ValidUntil != nil && *it.ValidUntil == until
		}
	}
	if !found || page.Total != 10 {
		t.Errorf("the expiry list of vehicles (%d): %+v", page.Total, page.Data)
	}
	admin.Get("/api/v0/documents?holder_type=driver").Expect(http.StatusOK).Decode(&page)
	if page.Total != 0 {
		t.Errorf("drivers' documents: %d", page.Total)
	}
}

// TestFleetRulesAndTypes: rules per holder type (the same code has one
// rule per holder type; non_eu is the drivers'), a custom type for
// vehicles gives every vehicle a record and no driver sees it.
func TestFleetRulesAndTypes(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Rules", "free")
	admin := env.As(company, auth.RoleAdmin)
	base := "/api/v0/companies/" + company.String()
	truck := fleetVehicle(t, env, company, "lkv", "3EF 4567")
	drv := drvCreate(t, admin, map[string]any{"first_name": "A", "last_name": "B", "email": "ab@example.test"}).ID

	type rules struct {
		Data []struct {
			DocumentType string `json:"document_type"`
			Required     bool   `json:"required"`
			RequiredFor  string `json:"required_for"`
			LeadDays     int    `json:"lead_days"`
		}
	}
	var r rules
	admin.Get(base + "/document-rules?holder_type=vehicle").Expect(http.StatusOK).Decode(&r)
	if len(r.Data) != 6 || r.Data[0].DocumentType != "technical_inspection" || r.Data[0].LeadDays != 30 || r.Data[4].RequiredFor != "tag:adr" {
		t.Fatalf("vehicle rules: %+v", r.Data)
	}
	admin.Put(base+"/document-rules?holder_type=vehicle", map[string]any{"rules": []map[string]any{
		{"document_type": "technical_inspection", "lead_days": 45}}}).Expect(http.StatusOK)
	admin.Get(base + "/document-rules?holder_type=trailer").Expect(http.StatusOK).Decode(&r)
	if len(r.Data) != 5 || r.Data[0].DocumentType != "technical_inspection" || r.Data[0].LeadDays != 30 {
		t.Errorf("trailer rules after the vehicles' change: %+v", r.Data)
	}
	admin.Get(base + "/document-rules?holder_type=vehicle").Expect(http.StatusOK).Decode(&r)
	if r.Data[0].LeadDays != 45 {
		t.Errorf("vehicle rule: %+v", r.Data[0])
	}
	admin.Put(base+"/document-rules?holder_type=vehicle", map[string]any{"rules": []map[string]any{
		{"document_type": "liability_insurance", "required_for": "non_eu"}}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Put(base+"/document-rules?holder_type=vehicle", map[string]any{"rules": []map[string]any{
		{"document_type": "passport", "required": true}}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Get(base+"/document-rules?holder_type=ship").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	env.As(company, auth.RoleDispatcher).Get(base+"/document-rules?holder_type=vehicle").ExpectError(http.StatusForbidden, "Forbidden")
	admin.Get(base + "/document-rules").Expect(http.StatusOK).Decode(&r)
	if len(r.Data) != 14 {
		t.Errorf("driver rules: %d", len(r.Data))
	}

	admin.Post(base+"/document-types", map[string]any{"code": "toll_box", "holder_type": "vehicle",
		"names": map[string]string{"en": "Toll box", "cs": "Mýtná jednotka"}, "capped_by": "passport"}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	admin.Post(base+"/document-types", map[string]any{"code": "toll_box", "holder_type": "vehicle",
		"names": map[string]string{"en": "Toll box", "cs": "Mýtná jednotka"}, "capped_by": "liability_insurance"}).Expect(http.StatusCreated)
	if docs := fleetDocs(t, admin, "/api/v0/vehicles/"+truck.String()+"/documents"); len(docs) != 7 {
		t.Errorf("truck documents with the custom type: %d", len(docs))
	}
	if n := count(t, env, `SELECT count(*) FROM driver_documents WHERE driver_id = $1 AND type = 'toll_box'`, drv); n != 0 {
		t.Error("a driver got a record of the vehicles' type")
	}
	var out struct{ Data []documentJSON }
	admin.Get("/api/v0/drivers/" + drv.String() + "/documents").Expect(http.StatusOK).Decode(&out)
	if len(out.Data) != 14 {
		t.Errorf("driver documents: %d", len(out.Data))
	}
	var types struct {
		Data []struct {
			Code       string `json:"code"`
			HolderType string `json:"holder_type"`
		}
	}
	admin.Get(base + "/document-types").Expect(http.StatusOK).Decode(&types)
	for _, ty := range types.Data {
		if ty.Code == "toll_box" || ty.HolderType != "driver" {
			t.Errorf("the drivers' types list %+v", ty)
		}
	}
	admin.Get(base + "/document-types?holder_type=vehicle").Expect(http.StatusOK).Decode(&types)
	if len(types.Data) != 7 || types.Data[6].Code != "toll_box" {
		t.Errorf("vehicle types: %+v", types.Data)
	}
	// A new driver gets the drivers' types only.
	drv2 := drvCreate(t, admin, map[string]any{"first_name": "C", "last_name": "D", "email": "cd@example.test"}).ID
	if n := count(t, env, `SELECT count(*) FROM driver_documents WHERE driver_id = $1`, drv2); n != 14 {
		t.Errorf("the new driver has %d records, want 14", n)
	}
}
