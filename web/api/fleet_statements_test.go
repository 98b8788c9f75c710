package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// A vehicle's update loads the vehicle once, locked, with its summary and
// unit, and answers what its write returned; a read sends the vehicle's
// row once beside its documents.
func TestFleetUpdateReadsEachRowOnce(t *testing.T) {
	t.Parallel()
	st := &webtest.Statements{}
	env := webtest.New(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	disp := env.As(company, auth.RoleDispatcher)
	v := disp.Post("/api/v0/vehicles", map[string]any{"type": "lkv", "plate_number": "1AB 2345", "make": "DAF"}).
		Expect(http.StatusCreated).JSON()
	path := "/api/v0/vehicles/" + v["id"].(string)

	st.Take()
	res := disp.Put(path, map[string]any{"color": "red", "tags": []string{"adr"}}).Expect(http.StatusOK).JSON()
	st.CheckStatements(t, "PUT /vehicles/{id}", 6)
	if res["color"] != "red" || res["make"] != "DAF" || fmt.Sprint(res["tags"]) != "[adr]" {
		t.Fatalf("after update: %v", res)
	}
	// tag:adr requires an ADR certificate: the answer counts it, as the
	// read does.
	st.Take()
	got := disp.Get(path).Expect(http.StatusOK).JSON()
	for _, twice := range webtest.ReadTwice(st.Take()) {
		if strings.HasPrefix(twice, "vehicles ") {
			t.Errorf("GET /vehicles/{id}: %s", twice)
		}
	}
	for _, k := range []string{"updated_at", "created_at", "is_ready", "color", "documents_summary", "tags"} {
		if fmt.Sprint(got[k]) != fmt.Sprint(res[k]) {
			t.Errorf("%s: update answered %v, read gives %v", k, res[k], got[k])
		}
	}
}
