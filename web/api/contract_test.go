package api_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/konvoj/konvoj/web/api"
	"github.com/konvoj/konvoj/web/api/openapi"
	"github.com/konvoj/konvoj/web/webtest"
)

var (
	contractOnce   sync.Once
	contractDoc    *openapi3.T
	contractRouter routers.Router
	contractErr    error
)

func loadContract() (*openapi3.T, routers.Router, error) {
	contractOnce.Do(func() {
		raw, err := openapi.JSON()
		if err != nil {
			contractErr = err
			return
		}
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(raw)
		if err != nil {
			contractErr = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			contractErr = err
			return
		}
		doc.Servers = nil // match any host
		r, err := gorillamux.NewRouter(doc)
		if err != nil {
			contractErr = err
			return
		}
		contractDoc, contractRouter = doc, r
	})
	return contractDoc, contractRouter, contractErr
}

// TestMain holds every response of this package's API tests to the
// OpenAPI document: an undocumented status, field or shape fails the test
// that produced it.
func TestMain(m *testing.M) {
	webtest.SetResponseHook(checkResponse)
	os.Exit(m.Run())
}

func checkResponse(t testing.TB, req *http.Request, res *webtest.Response) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, "/api/v0/") || strings.HasPrefix(req.URL.Path, "/api/v0/test-") {
		return
	}
	_, router, err := loadContract()
	if err != nil {
		t.Fatalf("contract: load OpenAPI document: %v", err)
	}
	route, params, err := router.FindRoute(req)
	if err != nil {
		if res.Status == http.StatusNotFound || res.Status == http.StatusMethodNotAllowed {
			return // an unknown route or method is not an operation
		}
		t.Fatalf("contract: %s %s answered %d but is not in the OpenAPI document: %v", req.Method, req.URL.Path, res.Status, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{ExcludeRequestBody: true, ExcludeRequestQueryParams: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 res.Status,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(res.Body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		body := string(res.Body)
		if len(body) > 1500 {
			body = body[:1500] + "…"
		}
		t.Fatalf("contract: %s %s → %d does not match the OpenAPI document: %v\nbody: %s", req.Method, req.URL.Path, res.Status, err, body)
	}
}

var echoParam = regexp.MustCompile(`:([a-z_]+)`)

// TestRoutesMatchDocument: every route served under /api/v0 is documented,
// and every documented operation is served.
func TestRoutesMatchDocument(t *testing.T) {
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	env := webtest.New(t)
	planned := map[string]bool{}
	for _, p := range api.PlannedPaths {
		planned["/api/v0"+p] = true
	}
	served := map[string]bool{}
	for _, r := range env.App.Echo.Routes() {
		if !strings.HasPrefix(r.Path, "/api/v0/") {
			continue
		}
		path := echoParam.ReplaceAllString(r.Path, "{$1}")
		if base, ok := strings.CutSuffix(path, "/*"); ok && planned[base] {
			continue
		}
		if planned[path] {
			served["GET "+path] = true // documented once, as GET
			continue
		}
		served[r.Method+" "+path] = true
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	var missing, stale []string
	for op := range served {
		if !documented[op] {
			missing = append(missing, op)
		}
	}
	for op := range documented {
		if !served[op] {
			stale = append(stale, op)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("served but not in the OpenAPI document:\n  %s", strings.Join(missing, "\n  "))
	}
	if len(stale) > 0 {
		t.Errorf("in the OpenAPI document but not served:\n  %s", strings.Join(stale, "\n  "))
	}
}
