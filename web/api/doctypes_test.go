package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// drvMakeReady gives the driver the five default required documents.
func drvMakeReady(t *testing.T, env *webtest.Env, id uuid.UUID) {
	t.Helper()
	for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95", "medical_examination"} {
		drvSetDocument(t, env, id, typ, nil)
	}
}

func TestDriverTagsAndLanguage(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)

	created := hr.Post("/api/v0/drivers", map[string]any{
		"first_name": "Olena", "last_name": "Shevchenko", "email": "olena@example.cz", "citizenship": "UA",
		"tags": []string{" ADR ", "international", "adr"}, "language": "uk",
	}).Expect(http.StatusCreated).JSON()
	if tags := created["tags"].([]any); len(tags) != 2 || tags[0] != "adr" || tags[1] != "international" {
		t.Errorf("tags %v, want [adr international] (trimmed, lower case, no repeats)", created["tags"])
	}
	if created["language"] != "uk" {
		t.Errorf("language %v", created["language"])
	}
	id := created["id"].(string)
	plain := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz"})
	if got := hr.Get("/api/v0/drivers/" + plain.ID.String()).Expect(http.StatusOK).JSON(); len(got["tags"].([]any)) != 0 || got["language"] != nil {
		t.Errorf("a driver without tags: tags %v language %v", got["tags"], got["language"])
	}

	// The tag filter.
	list := hr.Get("/api/v0/drivers?tag=adr").Expect(http.StatusOK).JSON()
	if items := list["data"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != id {
		t.Errorf("tag=adr: %v", items)
	}
	if n := hr.Get("/api/v0/drivers?tag=nobody,international").Expect(http.StatusOK).JSON()["total"]; n != float64(1) {
		t.Errorf("tag=nobody,international: total %v", n)
	}
	hr.Get("/api/v0/drivers?tag="+strings.Repeat("a", 41)).ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	// Update replaces the tags; null clears them and the language.
	upd := hr.Put("/api/v0/drivers/"+id, map[string]any{"tags": []string{"local"}, "language": nil}).Expect(http.StatusOK).JSON()
	if tags := upd["tags"].([]any); len(tags) != 1 || tags[0] != "local" || upd["language"] != nil {
		t.Errorf("after update: tags %v language %v", upd["tags"], upd["language"])
	}

	tooMany := make([]string, 21)
	for i := range tooMany {
		tooMany[i] = "t" + strings.Repeat("x", i)
	}
	for _, tt := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"21 tags", map[string]any{"tags": tooMany}, "tags"},
		{"tag of 41 characters", map[string]any{"tags": []string{"ok", strings.Repeat("a", 41)}}, "tags.1"},
		{"tag with a space", map[string]any{"tags": []string{"big trucks"}}, "tags.0"},
		{"tags not a list", map[string]any{"tags": "adr"}, "tags"},
		{"unknown language", map[string]any{"language": "de"}, "language"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			body := hr.Put("/api/v0/drivers/"+id, tt.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if msgs, _ := body["errors"].(map[string]any)[tt.field].([]any); len(msgs) == 0 {
				t.Errorf("no message for %s: %v", tt.field, body["errors"])
			}
		})
	}
	// 20 tags of 40 characters are fine.
	twenty := make([]string, 20)
	for i := range twenty {
		twenty[i] = strings.Repeat(string(rune('a'+i)), 40)
	}
	hr.Put("/api/v0/drivers/"+id, map[string]any{"tags": twenty}).Expect(http.StatusOK)
}

func TestTagRequirementChangesReadinessOfTaggedDriversOnly(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	adr := drvCreate(t, hr, map[string]any{"first_name": "A", "last_name": "Tanker", "email": "a@example.cz", "tags": []string{"adr"}})
	other := drvCreate(t, hr, map[string]any{"first_name": "B", "last_name": "Local", "email": "b@example.cz", "tags": []string{"local"}})
	drvMakeReady(t, env, adr.ID)
	drvMakeReady(t, env, other.ID)
	ready := func(id uuid.UUID) any {
		return hr.Get("/api/v0/drivers/" + id.String()).Expect(http.StatusOK).JSON()["is_ready"]
	}
	listReady := func() map[string]any {
		out := map[string]any{}
		for _, it := range hr.Get("/api/v0/drivers").Expect(http.StatusOK).JSON()["data"].([]any) {
			it := it.(map[string]any)
			out[it["id"].(string)] = it["is_ready"]
		}
		return out
	}
	if ready(adr.ID) != true || ready(other.ID) != true {
		t.Fatal("both drivers should be ready with the default rules")
	}
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "adr_certificate", "required": true, "required_for": "tag:adr"},
	}}).Expect(http.StatusOK)
	if ready(adr.ID) != false || ready(other.ID) != true {
		t.Errorf("ADR certificate for tag adr: tagged %v, other %v", ready(adr.ID), ready(other.ID))
	}
	if l := listReady(); l[adr.ID.String()] != false || l[other.ID.String()] != true {
		t.Errorf("list is_ready: %v", l)
	}
	drvSetDocument(t, env, adr.ID, "adr_certificate", drvDays(200))
	if ready(adr.ID) != true {
		t.Error("the ADR driver with its certificate is not ready")
	}
	// Tagging the other driver puts it in the group.
	hr.Put("/api/v0/drivers/"+other.ID.String(), map[string]any{"tags": []string{"local", "adr"}}).Expect(http.StatusOK)
	if ready(other.ID) != false {
		t.Error("a newly tagged driver without the ADR certificate is ready")
	}
}
