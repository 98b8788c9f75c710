package e2e

import (
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/playwright-community/playwright-go"
)

// The API reference renders from the server's own OpenAPI document (its
// paths and its webhooks section), and every request the page makes goes
// to the server itself.
func TestAPIReferenceRendersOffline(t *testing.T) {
	app := newApp(t)
	page := app.NewPage(t)
	var (
		mu       sync.Mutex
		requests []string
	)
	page.OnRequest(func(r playwright.Request) {
		mu.Lock()
		defer mu.Unlock()
		requests = append(requests, r.URL())
	})
	if _, err := page.Goto(app.URL + "/api/docs"); err != nil {
		t.Fatal(err)
	}
	// Swagger UI lists each operation once the document is loaded; on two
	// busy cores rendering the whole document can take longer than the
	// default 10 s.
	if err := page.Locator(".opblock-summary-path").First().WaitFor(playwright.LocatorWaitForOptions{Timeout: playwright.Float(30000)}); err != nil {
		t.Fatalf("no operations rendered: %v", err)
	}
	if err := page.GetByText("/api/v0/audit-logs").First().WaitFor(); err != nil {
		t.Fatalf("the audit log operation is not listed: %v", err)
	}
	// The OpenAPI 3.1 webhooks section: the requests Konvoj sends.
	if err := page.GetByText("driver.created", playwright.PageGetByTextOptions{Exact: playwright.Bool(true)}).First().WaitFor(); err != nil {
		t.Fatalf("the webhooks section is not shown: %v", err)
	}
	if title, _ := page.Locator(".info .title").First().TextContent(); !strings.Contains(title, "Konvoj API") {
		t.Errorf("title %q", title)
	}
	app.Screenshots(t, page, "api-docs")

	base, _ := url.Parse(app.URL)
	mu.Lock()
	defer mu.Unlock()
	if len(requests) < 3 {
		t.Fatalf("only %d requests seen: %v", len(requests), requests)
	}
	for _, r := range requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Host != base.Host) {
			t.Errorf("request left the server: %s", r)
		}
	}
}
