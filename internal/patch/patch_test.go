package patch

import (
	"encoding/json"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
)

type rec struct {
	Name *string
	Tags []string
}

var specs = map[string]Spec[rec]{
	"name": OptionalString(5, func(r *rec) **string { return &r.Name }),
	"tags": Tags(func(r *rec) *[]string { return &r.Tags }),
}

func apply(t *testing.T, body string, r *rec, accept func(string) bool) *apperr.Validation {
	t.Helper()
	var in Input
	if err := json.Unmarshal([]byte(body), &in.Fields); err != nil {
		t.Fatal(err)
	}
	var v apperr.Validation
	Apply(in, r, specs, Facts{Today: civil.Date{}}, &v, accept)
	return &v
}

// A partial update changes what it sends, clears with null, ignores what
// has no rule, and words what it refuses on the field.
func TestApply(t *testing.T) {
	old := "old"
	r := rec{Name: &old, Tags: []string{"x"}}
	if v := apply(t, `{"tags": [" ADR ", "adr", "frigo"], "id": "ignored"}`, &r, nil); v.Has("tags") || v.Has("id") {
		t.Fatalf("refused: %+v", v)
	}
	if r.Name == nil || *r.Name != "old" || len(r.Tags) != 2 || r.Tags[0] != "adr" || r.Tags[1] != "frigo" {
		t.Fatalf("after tags: %+v %v", r, *r.Name)
	}
	if v := apply(t, `{"name": " \u202Eabc "}`, &r, nil); v.Has("name") || *r.Name != "abc" {
		t.Fatalf("bidi and spaces kept: %q", *r.Name)
	}
	if v := apply(t, `{"name": "toolong"}`, &r, nil); !v.Has("name") || *r.Name != "abc" {
		t.Fatalf("a 7-character name passed a 5 limit, or changed the record: %q", *r.Name)
	}
	if v := apply(t, `{"name": 5}`, &r, nil); !v.Has("name") {
		t.Fatal("a number passed as a string")
	}
	if v := apply(t, `{"name": null, "tags": null}`, &r, nil); v.Has("name") || r.Name != nil || len(r.Tags) != 0 || r.Tags == nil {
		t.Fatalf("null did not clear: %+v", r)
	}
	refused := apply(t, `{"name": "b"}`, &r, func(name string) bool { return name != "name" })
	if r.Name != nil {
		t.Fatalf("a refused field was applied: %q %+v", *r.Name, refused)
	}
	many := `{"tags": ["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q","r","s","t","u"]}`
	if v := apply(t, many, &r, nil); !v.Has("tags") {
		t.Fatal("21 tags accepted")
	}
	if v := apply(t, `{"tags": ["no spaces"]}`, &r, nil); !v.Has("tags.0") {
		t.Fatal("a tag with a space accepted")
	}
}
