// Package e2e drives the built konvoj binary with the system's Chromium
// (playwright-go), against a fresh PostgreSQL database and an in-test
// OpenID Connect provider, signing in through the real authorization code
// flow. `make test` installs what they need (scripts/install-deps.sh:
// Chromium from Debian, the playwright 1.52.0 driver, axe-core); without
// it they fail, saying what is missing, rather than skip.
//
// A test needs three lines to reach a signed-in page:
//
//	app := newApp(t)                                   // server, database, provider
//	company := app.Company("Acme", "en")
//	page := app.SignIn(t, company, auth.RoleHRManager)  // dashboard, 1280×800
//
// then drives page (playwright.Page), calls app.Screenshots(t, page, "name")
// and app.CheckA11y(t, page) on each screen it shows. newApp makes the
// test parallel: tests share nothing but the Chromium process.
package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/auth/oidctest"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
)

// Viewports of the screenshots: a laptop and a phone.
var (
	desktop = playwright.Size{Width: 1280, Height: 800}
	phone   = playwright.Size{Width: 390, Height: 844}
)

// repoRoot is the module root (tests run in e2e/).
const repoRoot = ".."

var shared struct {
	once    sync.Once
	err     error
	missing string // what the browser tests lack: they fail, never skip
	binary  string
	axe     string
	pw      *playwright.Playwright
	browser playwright.Browser
	tmp     string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.browser != nil {
		_ = shared.browser.Close()
	}
	if shared.pw != nil {
		_ = shared.pw.Stop()
	}
	if shared.tmp != "" {
		_ = os.RemoveAll(shared.tmp)
	}
	os.Exit(code)
}

// prepare checks the prerequisites, builds the binary and starts Chromium,
// once for all tests.
func prepare(t *testing.T) {
	t.Helper()
	shared.once.Do(func() {
		chromium := envOr("KONVOJ_CHROMIUM", "/usr/bin/chromium")
		home, _ := os.UserHomeDir()
		driver := envOr("PLAYWRIGHT_DRIVER_PATH", filepath.Join(home, ".cache", "ms-playwright-go", "1.52.0"))
		axe, _ := filepath.Abs(filepath.Join(repoRoot, "node_modules", "axe-core", "axe.min.js"))
		var missing []string
		if _, err := os.Stat(chromium); err != nil {
			missing = append(missing, "Chromium at "+chromium+" (apt-get install chromium)")
		}
		if _, err := os.Stat(filepath.Join(driver, "package", "cli.js")); err != nil {
			missing = append(missing, "the playwright 1.52.0 driver in "+driver)
		}
		if _, err := os.Stat(axe); err != nil {
			missing = append(missing, "axe-core ("+axe+"; run npm ci)")
		}
		if len(missing) > 0 {
			shared.missing = "e2e: missing " + strings.Join(missing, ", ") + "; scripts/install-deps.sh (run by make test) installs them"
			return
		}
		if _, err := os.Stat(filepath.Join(driver, "node")); err != nil && os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
			if node, err := exec.LookPath("node"); err == nil {
				os.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
			}
		}
		shared.axe = axe
		shared.tmp, shared.err = os.MkdirTemp("", "konvoj-e2e-")
		if shared.err != nil {
			return
		}
		shared.binary = filepath.Join(shared.tmp, "konvoj")
		build := exec.Command("go", "build", "-o", shared.binary, "./cmd/konvoj")
		build.Dir = repoRoot
		if out, err := build.CombinedOutput(); err != nil {
			shared.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		shared.pw, shared.err = playwright.Run(&playwright.RunOptions{DriverDirectory: driver, SkipInstallBrowsers: true})
		if shared.err != nil {
			shared.err = fmt.Errorf("start playwright driver: %w", shared.err)
			return
		}
		shared.browser, shared.err = shared.pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
			ExecutablePath: playwright.String(chromium),
			Headless:       playwright.Bool(true),
			Args: []string{"--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage"},
		})
		if shared.err != nil {
			shared.err = fmt.Errorf("launch chromium: %w", shared.err)
		}
	})
	if shared.missing != "" {
		t.Fatal(shared.missing)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
}

// App is one running konvoj binary with its own database and identity
// provider.
type App struct {
	URL  string
	DB   *pgxpool.Pool
	OIDC *oidctest.Provider
	// Out is this test's folder for screenshots and the server log.
	Out string
	// Files is the server's document store (STORAGE_LOCAL_DIR).
	Files string
	// Env is the server's environment, for running other konvoj commands
	// (seed-demo) against the same database and file store.
	Env []string
	srv *server
}

// appMode is how people sign in to the app under test.
type appMode int

const (
	// signInOIDC: through the in-test identity provider (RS256 tokens).
	signInOIDC appMode = iota
	// signInDev: the development sign-in page (AUTH_DEV_LOGIN, HS256), as
	// `make run` serves it.
	signInDev
)

// newApp starts the binary for the test, signing in through the identity
// provider; it stops when the test ends.
func newApp(t *testing.T) *App {
	t.Helper()
	return startApp(t, signInOIDC)
}

// newDevApp starts the binary as `make run` does: the development sign-in
// page on, HS256, no identity provider.
func newDevApp(t *testing.T) *App {
	t.Helper()
	return startApp(t, signInDev)
}

// newWebhookApp is newApp with WEBHOOK_ALLOW_PRIVATE=true, so webhook
// endpoints may point at a receiver of the test on 127.0.0.1 over plain
// http (the setting's purpose: tests and development).
func newWebhookApp(t *testing.T) *App {
	t.Helper()
	return startApp(t, signInOIDC, "WEBHOOK_ALLOW_PRIVATE=true")
}

// startApp starts the binary; extra are more NAME=value settings. The
// test runs in parallel with the other browser tests (go test -parallel,
// the number of cores by default): each has its own server, database,
// identity provider and browser context, and most of a test's time is
// spent waiting on the server or the browser, not computing.
func startApp(t *testing.T, mode appMode, extra ...string) *App {
	t.Helper()
	t.Parallel()
	prepare(t)
	out := filepath.Join("output", regexp.MustCompile(`[^A-Za-z0-9_-]+`).ReplaceAllString(t.Name(), "_"))
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	prov := oidctest.Start(t)
	db, dbURL := pgtest.NewWithURL(t, nil)
	port := freePort(t)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	files := t.TempDir()

	env := []string{}
	known := map[string]bool{}
	for _, v := range config.Vars {
		known[v.Name] = true
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !known[name] {
			env = append(env, kv)
		}
	}
	env = append(env,
		"DATABASE_URL="+dbURL,
		"HTTP_ADDR=127.0.0.1:"+fmt.Sprint(port),
		"PUBLIC_URL="+base,
		"SESSION_SECRET=e2e-session-secret-0123456789abcdef",
		"STORAGE_LOCAL_DIR="+files,
		"LOG_FORMAT=json",
	)
	env = append(env, extra...)
	switch mode {
	case signInOIDC:
		// The provider signs RS256 only: API tokens and ID tokens are both
		// verified against its keys.
		env = append(env,
			"JWT_ALG=RS256",
			"JWT_JWKS_URL="+prov.JWKSEndpoint(),
			"OIDC_ISSUER_URL="+prov.Issuer(),
			"OIDC_CLIENT_ID="+prov.ClientID,
			"OIDC_CLIENT_SECRET="+prov.ClientSecret,
		)
	case signInDev:
		env = append(env, "JWT_ALG=HS256", "JWT_SECRET=e2e-dev-secret-0123456789abcdef0123", "AUTH_DEV_LOGIN=true")
	}
	_ = os.Remove(filepath.Join(out, "server.log")) // a previous run's; Restart appends to this run's
	srv := launch(t, env, base, filepath.Join(out, "server.log"))
	waitStartScan(t, db)
	return &App{URL: base, DB: db, OIDC: prov, Out: out, Files: files, Env: env, srv: srv}
}

// server is one running `konvoj serve`.
type server struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited
	err  error         // its exit status, once done
}

// launch starts `konvoj serve` with env, its output appended to logPath,
// and waits until it is ready; the end of the test stops it.
func launch(t *testing.T, env []string, base, logPath string) *server {
	t.Helper()
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(shared.binary, "serve")
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("start konvoj: %v", err)
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.stop(syscall.SIGTERM)
		logFile.Close()
	})
	exited := make(chan error, 1)
	go func() {
		<-s.done
		exited <- s.err
	}()
	waitReady(t, base, exited, logPath)
	return s
}

// stop sends the signal and waits for the process to exit (killing it
// after 10 s); a process that has exited already is left alone.
func (s *server) stop(sig os.Signal) {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(sig)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Kill ends the server at once (SIGKILL), as a crash or a power cut would:
// no request, job or transaction of it finishes.
func (a *App) Kill(t *testing.T) {
	t.Helper()
	a.srv.stop(syscall.SIGKILL)
}

// Restart starts the server again, after Kill, on the same database, file
// store and address, and waits until it is ready.
func (a *App) Restart(t *testing.T) {
	t.Helper()
	a.srv = launch(t, a.Env, a.URL, filepath.Join(a.Out, "server.log"))
}

// waitStartScan waits until the server's start-up alert scan has run. It
// runs once an instance is elected leader, seconds after the server
// answers; had it run after a test's company was seeded but before its
// users signed in, it would have taken the day's one scan of that company
// without them, and the test's own scan would find the day done. The next
// periodic scan comes 10 minutes later.
func waitStartScan(t *testing.T, db *pgxpool.Pool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		var done bool
		if err := db.QueryRow(context.Background(), `SELECT EXISTS (SELECT FROM river_job
			WHERE kind = 'enqueue_alert_scans' AND state = 'completed')`).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("the server's start-up alert scan did not run within 60 s")
}

func waitReady(t *testing.T, base string, exited <-chan error, logName string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(logName)
			t.Fatalf("konvoj exited at start: %v\n%s", err, log)
		default:
		}
		res, err := http.Get(base + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	log, _ := os.ReadFile(logName)
	t.Fatalf("konvoj not ready within 30 s:\n%s", log)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// Company creates a company with the given default language.
func (a *App) Company(t *testing.T, name, lang string) uuid.UUID {
	t.Helper()
	return fixtures.Company(t, a.DB, fixtures.CompanyName(name), fixtures.Language(lang))
}

// Person is someone the provider signs in.
type Person struct {
	Email, FirstName, LastName string
}

// SignIn opens a fresh browser (own cookies, 1280×800) and signs in
// through the identity provider as a person of the company with the role;
// it returns on the dashboard. A zero Person gets a name from the role.
func (a *App) SignIn(t *testing.T, company uuid.UUID, role auth.Role, who ...Person) playwright.Page {
	t.Helper()
	return a.SignInAt(t, desktop, "/", company, role, who...)
}

// SignInAt is SignIn in a browser of the given size, returning on the page
// at landing (the path the app sends this person to after sign-in).
func (a *App) SignInAt(t *testing.T, size playwright.Size, landing string, company uuid.UUID, role auth.Role, who ...Person) playwright.Page {
	t.Helper()
	return a.signIn(t, a.NewPage(t), size, landing, company, role, who...)
}

// SignInInstalled is SignInAt on a phone, landing on "/", in a browser
// that lets the pages register the service worker (NewPage blocks it).
func (a *App) SignInInstalled(t *testing.T, company uuid.UUID, role auth.Role, who ...Person) playwright.Page {
	t.Helper()
	return a.signIn(t, a.newPage(t, playwright.ServiceWorkerPolicyAllow), phone, "/", company, role, who...)
}

func (a *App) signIn(t *testing.T, page playwright.Page, size playwright.Size, landing string, company uuid.UUID, role auth.Role, who ...Person) playwright.Page {
	t.Helper()
	p := Person{Email: string(role) + "@e2e.test", FirstName: "Test", LastName: string(role)}
	if len(who) > 0 {
		p = who[0]
	}
	if err := page.SetViewportSize(size.Width, size.Height); err != nil {
		t.Fatal(err)
	}
	a.OIDC.SignInNext(oidctest.User{Subject: uuid.NewString(), Email: p.Email, CompanyID: company.String(),
		Role: string(role), FirstName: p.FirstName, LastName: p.LastName})
	if _, err := page.Goto(a.URL + "/"); err != nil {
		t.Fatal(err)
	}
	// Every page needs a session: the sign-in page comes first.
	if err := waitURL(page, a.URL+"/login?next=%2F"); err != nil {
		t.Fatalf("not sent to the sign-in page: %v (at %s)", err, page.URL())
	}
	if err := page.GetByTestId("sign-in").Click(); err != nil {
		t.Fatal(err)
	}
	if err := waitURL(page, a.URL+landing); err != nil {
		t.Fatalf("sign-in did not reach %s: %v (at %s)", landing, err, page.URL())
	}
	return page
}

// navigationTimeout is how long waitURL waits for a page, as Playwright's
// own navigations do.
const navigationTimeout = 30 * time.Second

// waitURL waits until page is at url (a string, matched whole, a
// *regexp.Regexp or a func(string) bool) and has loaded. It replaces the
// page's WaitForURL, which checks the address and only then subscribes to
// the next navigation: a navigation that ends in between is never seen, and
// the wait runs out although the page is there (three browser tests timed
// out so under load; one failure showed the page at the address it waited
// for, answered by the server 30 s before). The address and the
// load state are both recorded by the client as the browser reports them,
// so asking again until they are there misses nothing.
func waitURL(page playwright.Page, url any) error {
	var matches func(string) bool
	switch u := url.(type) {
	case string:
		matches = func(s string) bool { return s == u }
	case *regexp.Regexp:
		matches = u.MatchString
	case func(string) bool:
		matches = u
	default:
		return fmt.Errorf("waitURL: %T is not an address, a pattern or a predicate", url)
	}
	deadline := time.Now().Add(navigationTimeout)
	for !matches(page.URL()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("not at %v within %s (at %s)", url, navigationTimeout, page.URL())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for {
		err := page.WaitForLoadState(playwright.PageWaitForLoadStateOptions{State: playwright.LoadStateLoad, Timeout: playwright.Float(500)})
		if err == nil || time.Now().After(deadline) {
			return err
		}
	}
}

// NewPage opens a page in a fresh browser context at desktop size. CSP
// is bypassed only so axe-core can be injected. The service worker is
// blocked: each context would otherwise download every asset ahead, and
// requests answered by a worker escape the page's routes (Route); its own
// test (TestDriverCanInstallTheApp) allows it.
func (a *App) NewPage(t *testing.T) playwright.Page {
	t.Helper()
	return a.newPage(t, playwright.ServiceWorkerPolicyBlock)
}

func (a *App) newPage(t *testing.T, workers *playwright.ServiceWorkerPolicy) playwright.Page {
	t.Helper()
	ctx, err := shared.browser.NewContext(playwright.BrowserNewContextOptions{
		Viewport: &desktop, BypassCSP: playwright.Bool(true), Locale: playwright.String("en-GB"),
		ServiceWorkers: workers,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ctx.Close() })
	ctx.SetDefaultTimeout(10000)
	page, err := ctx.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	return page
}

// Screenshots saves the page at desktop and phone widths under Out, then
// gives the page its size back.
func (a *App) Screenshots(t *testing.T, page playwright.Page, name string) {
	t.Helper()
	defer restoreViewport(t, page)()
	for _, v := range []struct {
		label string
		size  playwright.Size
	}{{"desktop", desktop}, {"phone", phone}} {
		if err := page.SetViewportSize(v.size.Width, v.size.Height); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(a.Out, name+"-"+v.label+".png")
		if _, err := page.Screenshot(playwright.PageScreenshotOptions{Path: playwright.String(path), FullPage: playwright.Bool(true)}); err != nil {
			t.Fatalf("screenshot %s: %v", path, err)
		}
	}
}

// restoreViewport returns a function that sets the page's current size
// again.
func restoreViewport(t *testing.T, page playwright.Page) func() {
	size := desktop
	if cur := page.ViewportSize(); cur != nil {
		size = *cur // a copy: the page updates its own value
	}
	return func() {
		if err := page.SetViewportSize(size.Width, size.Height); err != nil {
			t.Fatal(err)
		}
	}
}

// CheckA11y runs axe-core on the page and fails on serious or critical
// violations, at desktop and phone widths (the phone layout differs).
func (a *App) CheckA11y(t *testing.T, page playwright.Page) {
	t.Helper()
	defer restoreViewport(t, page)()
	if _, err := page.AddScriptTag(playwright.PageAddScriptTagOptions{Path: playwright.String(shared.axe)}); err != nil {
		t.Fatalf("inject axe-core: %v", err)
	}
	for _, size := range []playwright.Size{desktop, phone} {
		if err := page.SetViewportSize(size.Width, size.Height); err != nil {
			t.Fatal(err)
		}
		res, err := page.Evaluate(`async () => {
			const r = await axe.run(document, { resultTypes: ['violations'] });
			return r.violations
				.filter(v => v.impact === 'serious' || v.impact === 'critical')
				.map(v => v.impact + ' ' + v.id + ': ' + v.help + ' at ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '));
		}`)
		if err != nil {
			t.Fatalf("axe-core: %v", err)
		}
		if list, _ := res.([]any); len(list) > 0 {
			t.Errorf("accessibility problems on %s at %dpx:\n%v", page.URL(), size.Width, list)
		}
	}
}

// text returns the visible text of the first element matching the selector.
func text(t *testing.T, page playwright.Page, selector string) string {
	t.Helper()
	s, err := page.Locator(selector).First().InnerText()
	if err != nil {
		t.Fatalf("text of %s: %v", selector, err)
	}
	return strings.TrimSpace(s)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
