package api_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// vehicleRead is the single read of a vehicle as a test needs it.
type vehicleRead struct {
	ID        uuid.UUID `json:"id"`
	IsReady   bool      `json:"is_ready"`
	Tags      []string  `json:"tags"`
	Documents []struct {
		ID     uuid.UUID `json:"id"`
		Type   string    `json:"type"`
		Status string    `json:"status"`
	} `json:"documents"`
}

// TestVehicleTurnsReadyWithUploads: a lorry created through the API carries
// its documents on a single read and is not ready until every required type
// has a usable file; the uploads of a dispatcher make it ready (the single
// read and the list's is_ready filter agree), and the tag adr makes the ADR
// certificate required, so it is not ready again.
func TestVehicleTurnsReadyWithUploads(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Ready lorries", "free")
	dispatcher := env.As(company, auth.RoleDispatcher)

	var created vehicleRead
	dispatcher.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "5T2 1234"}).
		Expect(http.StatusCreated).Decode(&created)
	read := func() vehicleRead {
		var v vehicleRead
		dispatcher.Get("/api/v0/vehicles/" + created.ID.String()).Expect(http.StatusOK).Decode(&v)
		return v
	}
	readyIDs := func() map[uuid.UUID]bool {
		var page struct {
			Data []struct {
				ID uuid.UUID `json:"id"`
			} `json:"data"`
		}
		dispatcher.Get("/api/v0/vehicles?is_ready=true").Expect(http.StatusOK).Decode(&page)
		ids := map[uuid.UUID]bool{}
		for _, v := range page.Data {
			ids[v.ID] = true
		}
		return ids
	}

	v := read()
	if v.IsReady || len(v.Documents) != 6 || readyIDs()[v.ID] {
		t.Fatalf("a new lorry: ready %v, %d documents, listed ready %v", v.IsReady, len(v.Documents), readyIDs()[v.ID])
	}
	byType := map[string]uuid.UUID{}
	for _, d := range v.Documents {
		if d.Status != "no_data" {
			t.Errorf("a new lorry's %s: %s", d.Type, d.Status)
		}
		byType[d.Type] = d.ID
	}
	until := time.Now().AddDate(1, 0, 0).Format("2006") + "-12-31" // next year's last day: valid
	for i, typ := range []string{"technical_inspection", "liability_insurance", "tachograph_calibration"} {
		mustUpload(t, dispatcher, byType[typ], filePart(typ+".pdf", samplePDF(t, 1000+i)), field("valid_until", until))
		if v := read(); v.IsReady {
			t.Fatalf("ready after %d of the 4 required types", i+1)
		}
	}
	mustUpload(t, dispatcher, byType["community_licence_copy"], filePart("licence.pdf", samplePDF(t, 1500)), field("valid_until", until))
	if v := read(); !v.IsReady || !readyIDs()[v.ID] {
		t.Fatalf("with every required type: ready %v, listed ready %v", v.IsReady, readyIDs()[v.ID])
	}

	dispatcher.Put("/api/v0/vehicles/"+created.ID.String(), map[string]any{"tags": []string{"adr"}}).Expect(http.StatusOK)
	if v := read(); v.IsReady || readyIDs()[v.ID] {
		t.Fatalf("tagged adr without an ADR certificate: ready %v", v.IsReady)
	}
	mustUpload(t, dispatcher, byType["adr_vehicle_certificate"], filePart("adr.pdf", samplePDF(t, 1700)), field("valid_until", until))
	if v := read(); !v.IsReady {
		t.Fatalf("tagged adr with its certificate: not ready")
	}
}
