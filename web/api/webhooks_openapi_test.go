package api_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/konvoj/konvoj/internal/webhooks"
)

// sentEvents are the event types the code can send: the subscribable
// events and the test event.
func sentEvents() []string {
	return append(slices.Clone(webhooks.Events), webhooks.TestEvent)
}

// TestWebhooksSectionHasEveryEvent: the OpenAPI document's `webhooks`
// section has one entry per event type Konvoj can send, no other, each
// describing the Standard Webhooks envelope of its own type; and every event
// constant of package webhooks is one the code lists (webhooks.Events or
// the test event), so a new event cannot be left out of the subscription
// list, the page, the every-event delivery test nor the document.
func TestWebhooksSectionHasEveryEvent(t *testing.T) {
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	want := sentEvents()
	var got []string
	for name := range doc.Webhooks {
		got = append(got, name)
	}
	sort.Strings(got)
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("the webhooks section has %v, the code sends %v", got, want)
	}
	for _, name := range want {
		item := doc.Webhooks[name]
		if item == nil || item.Post == nil || item.Post.RequestBody == nil {
			t.Errorf("webhooks.%s: no POST with a body", name)
			continue
		}
		body := item.Post.RequestBody.Value.Content.Get("application/json")
		if body == nil || body.Schema == nil || body.Schema.Value == nil {
			t.Errorf("webhooks.%s: no JSON body schema", name)
			continue
		}
		props := body.Schema.Value.Properties
		if typ := props["type"]; typ == nil || typ.Value.Const != name {
			t.Errorf("webhooks.%s: the body's type is not the constant %q", name, name)
		}
		if props["timestamp"] == nil || props["data"] == nil || props["data"].Ref == "" {
			t.Errorf("webhooks.%s: the body lacks timestamp or data (a component schema)", name)
		}
		var headers []string
		for _, p := range item.Post.Parameters {
			if p.Value.In == openapi3.ParameterInHeader {
				headers = append(headers, p.Value.Name)
			}
		}
		if !slices.Equal(headers, []string{"webhook-id", "webhook-timestamp", "webhook-signature"}) {
			t.Errorf("webhooks.%s: headers %v", name, headers)
		}
	}
	// The subscribable list (the `events` of an endpoint) is webhooks.Events.
	var enum []string
	for _, v := range doc.Components.Schemas["WebhookEvent"].Value.Enum {
		enum = append(enum, v.(string))
	}
	if !slices.Equal(enum, webhooks.Events) {
		t.Errorf("WebhookEvent enum %v, webhooks.Events %v", enum, webhooks.Events)
	}

	// Every event-like constant ("noun.verb") of package webhooks is sent.
	fset := token.NewFileSet()
	files, err := filepath.Glob("../../internal/webhooks/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
	}
	found := 0
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			decl, ok := n.(*ast.GenDecl)
			if !ok || decl.Tok != token.CONST {
				return true
			}
			for _, spec := range decl.Specs {
				for _, v := range spec.(*ast.ValueSpec).Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					s, _ := strconv.Unquote(lit.Value)
					if strings.Count(s, ".") == 1 && !strings.ContainsAny(s, " /:") {
						found++
						if !slices.Contains(want, s) {
							t.Errorf("event constant %q is neither in webhooks.Events nor the test event", s)
						}
					}
				}
			}
			return true
		})
	}
	if found < len(want) {
		t.Errorf("found %d event constants, fewer than the %d events: the parse no longer sees them", found, len(want))
	}
}

// checkWebhookBody validates a delivered body against its event's entry
// in the OpenAPI document's webhooks section.
func checkWebhookBody(t *testing.T, eventType string, body []byte) {
	t.Helper()
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	item := doc.Webhooks[eventType]
	if item == nil {
		t.Errorf("%s: not in the webhooks section", eventType)
		return
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Errorf("%s: body %s: %v", eventType, body, err)
		return
	}
	schema := item.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
	if err := schema.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s: the delivered body does not match the webhooks section: %v\n%s", eventType, err, body)
	}
}
