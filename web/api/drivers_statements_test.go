package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestDriverUpdateReadsEachRowOnce: an HR manager's update of a driver
// loads the driver once, inside its transaction and locked, and answers
// from that record and the write's results, reading no row twice.
func TestDriverUpdateReadsEachRowOnce(t *testing.T) {
	t.Parallel()
	st := &webtest.Statements{}
	env := webtest.New(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz",
		"hire_date": "2024-06-01", "phone": "+420 777 000 001"})
	path := "/api/v0/drivers/" + d.ID.String()

	st.Take()
	res := hr.Put(path, map[string]any{"phone": "+420 777 000 002", "tags": []string{"adr"}}).Expect(http.StatusOK).JSON()
	st.CheckStatements(t, "PUT /drivers/{id}", 7)
	if res["phone"] != "+420777000002" || res["first_name"] != "Jan" {
		t.Fatalf("after update: %v", res)
	}
	// The answer built from the write's results is the driver as stored.
	// The read sends the driver's row and its documents in one batch, the
	// driver's row once (the documents' own statements are the documents
	// area's).
	st.Take()
	got := hr.Get(path).Expect(http.StatusOK).JSON()
	for _, twice := range webtest.ReadTwice(st.Take()) {
		if strings.HasPrefix(twice, "drivers ") {
			t.Errorf("GET /drivers/{id}: %s", twice)
		}
	}
	for _, k := range []string{"updated_at", "created_at", "is_ready", "phone", "internal_number", "email"} {
		if fmt.Sprint(got[k]) != fmt.Sprint(res[k]) {
			t.Errorf("%s: update answered %v, read gives %v", k, res[k], got[k])
		}
	}
	if fmt.Sprint(got["tags"]) != "[adr]" || fmt.Sprint(res["tags"]) != "[adr]" {
		t.Errorf("tags: update answered %v, read gives %v", res["tags"], got["tags"])
	}
}
