package api_test

// Black-box checks of the specification and the rules of docs/ (permissions, errors, lists, drivers
// and documents, rate limits, audit) for drivers, documents, files and the
// audit log: every rule read from those documents is exercised through the HTTP API with real signed tokens, and
// every response is also held to the OpenAPI contract (contract_test.go).

import (
	"context"
	"fmt"
	_ "io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/ratelimit"
	"github.com/konvoj/konvoj/web/webtest"
)

// accWorld is a company with a caller of every role, two drivers (the
// driver caller is linked to the first), a document of each with one file,
// and a second company with a driver, document and file of its own.
type accWorld struct {
	env                       *webtest.Env
	company, other            uuid.UUID
	callers                   map[auth.Role]*webtest.Caller
	own, peer, foreign        uuid.UUID // drivers: the driver caller's, another in the company, another company's
	ownDoc, peerDoc, forDoc   uuid.UUID // their passports
	ownFile, peerFile, forFil uuid.UUID // a file of each passport
	otherAdmin                *webtest.Caller
}

var accRoles = []auth.Role{auth.RoleAdmin, auth.RoleHRManager, auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver}

func newAccWorld(t *testing.T, opts ...webtest.Option) *accWorld {
	t.Helper()
	env := webtest.New(t, opts...)
	w := &accWorld{env: env, company: env.Company("Acme", "free"), other: env.Company("Other", "free"), callers: map[auth.Role]*webtest.Caller{}}
	w.own = env.Driver(w.company, fixtures.Email("Own.Driver@Example.test"))
	w.peer = env.Driver(w.company, fixtures.Email("peer.driver@example.test"))
	w.foreign = env.Driver(w.other, fixtures.Email("foreign.driver@example.test"))
	for _, r := range accRoles {
		w.callers[r] = env.As(w.company, r)
	}
	// Linked case-insensitively by e-mail (docs/permissions.md).
	w.callers[auth.RoleDriver] = env.As(w.company, auth.RoleDriver, "own.driver@example.test")
	w.otherAdmin = env.As(w.other, auth.RoleAdmin)
	admin := w.callers[auth.RoleAdmin]
	w.ownDoc, w.peerDoc, w.forDoc = documentID(t, env, w.own, "passport"), documentID(t, env, w.peer, "passport"), documentID(t, env, w.foreign, "passport")
	w.ownFile = mustUpload(t, admin, w.ownDoc, filePart("own.pdf", samplePDF(t, 300))).ID
	w.peerFile = mustUpload(t, admin, w.peerDoc, filePart("peer.pdf", samplePDF(t, 300))).ID
	w.forFil = mustUpload(t, w.otherAdmin, w.forDoc, filePart("foreign.pdf", samplePDF(t, 300))).ID
	return w
}

// accExpect checks a status and, for errors, the error name.
func accExpect(t *testing.T, r *webtest.Response, status int, name string) {
	t.Helper()
	if name == "" {
		r.Expect(status)
		return
	}
	r.ExpectError(status, name)
}

func accEmail() string { return "acc-" + uuid.NewString()[:8] + "@example.test" }

// ---- §2 tokens and identity -----------------------------------------------

func TestAcceptanceTokens(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	current := func(role string) jwt.MapClaims {
		return jwt.MapClaims{"sub": uuid.NewString(), "email": accEmail(),
			"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": role}}
	}
	get := func(claims jwt.MapClaims, path string) *webtest.Response {
		return env.WithToken(env.Sign(claims)).Get(path)
	}

	t.Run("iat 20 s in the future is accepted, 60 s is not", func(t *testing.T) {
		c := current("admin")
		c["iat"] = time.Now().Add(20 * time.Second).Unix()
		get(c, "/api/v0/drivers").Expect(http.StatusOK)
		c = current("admin")
		c["iat"] = time.Now().Add(60 * time.Second).Unix()
		if m := get(c, "/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized"); m["message"] != "Invalid token" {
			t.Fatalf("message %v", m["message"])
		}
	})
	t.Run("exp required, 30 s leeway", func(t *testing.T) {
		c := current("admin")
		c["exp"] = nil
		get(c, "/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
		c = current("admin")
		c["exp"] = time.Now().Add(-20 * time.Second).Unix()
		get(c, "/api/v0/drivers").Expect(http.StatusOK)
		c = current("admin")
		c["exp"] = time.Now().Add(-60 * time.Second).Unix()
		get(c, "/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
	})
	t.Run("another algorithm with the same secret is refused", func(t *testing.T) {
		c := current("admin")
		c["exp"] = time.Now().Add(time.Hour).Unix()
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS384, c).SignedString([]byte(webtest.Secret))
		if err != nil {
			t.Fatal(err)
		}
		env.WithToken(tok).Get("/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
	})
	t.Run("missing token and other schemes", func(t *testing.T) {
		if m := env.Anonymous().Get("/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized"); m["message"] != "Missing token" {
			t.Fatalf("message %v", m["message"])
		}
		basic := env.Anonymous()
		basic.Header.Set("Authorization", "Basic YWRtaW46YWRtaW4=")
		basic.Get("/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
	})
	t.Run("company: missing is 401, unknown is 403 AccessDenied", func(t *testing.T) {
		c := current("admin")
		delete(c, "app_metadata")
		get(c, "/api/v0/drivers").ExpectError(http.StatusUnauthorized, "Unauthorized")
		c = current("admin")
		c["app_metadata"] = map[string]any{"company_id": uuid.NewString()}
		get(c, "/api/v0/drivers").ExpectError(http.StatusForbidden, "AccessDenied")
		c = current("admin")
		c["app_metadata"] = map[string]any{"company_id": "acme"}
		get(c, "/api/v0/drivers").ExpectError(http.StatusForbidden, "AccessDenied")
	})
	t.Run("roles: earlier layout picks the first known role in priority order", func(t *testing.T) {
		earlier := func(roles ...string) jwt.MapClaims {
			c := jwt.MapClaims{"sub": uuid.NewString(), "email": accEmail(), "company_id": company.String()}
			if roles != nil {
				c["roles"] = roles
			}
			return c
		}
		// hr_manager may create drivers; dispatcher may not.
		env.WithToken(env.Sign(earlier("dispatcher", "hr_manager"))).
			Post("/api/v0/drivers", map[string]any{"first_name": "A", "last_name": "B", "email": accEmail()}).Expect(http.StatusCreated)
		env.WithToken(env.Sign(earlier("driver", "dispatcher"))).Get("/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
		// An accountant reads the driver list but not documents.
		acc := env.WithToken(env.Sign(earlier("superuser", "accountant")))
		if n := len(acc.Get("/api/v0/drivers").JSON()["data"].([]any)); n != 1 {
			t.Fatalf("accountant sees %d drivers, want 1", n)
		}
		// Unknown and missing roles mean driver: an unlinked driver sees nothing.
		for _, c := range []jwt.MapClaims{earlier("superuser"), earlier(), current("superuser"), current("")} {
			if c["user_metadata"] != nil && c["user_metadata"].(map[string]any)["role"] == "" {
				delete(c, "user_metadata")
			}
			if n := len(get(c, "/api/v0/drivers").JSON()["data"].([]any)); n != 0 {
				t.Fatalf("%v: sees %d drivers, want none (role driver)", c, n)
			}
			get(c, "/api/v0/audit-logs").ExpectError(http.StatusForbidden, "Forbidden")
		}
	})
	t.Run("users are provisioned just in time", func(t *testing.T) {
		sub := uuid.New()
		c := current("accountant")
		c["sub"], c["email"] = sub.String(), "jit@example.test"
		get(c, "/api/v0/drivers").Expect(http.StatusOK)
		var (
			email, role string
			cid         uuid.UUID
			lastLogin   *time.Time
		)
		if err := env.DB.QueryRow(context.Background(), `SELECT email, role, company_id, last_login_at FROM users WHERE id = $1`, sub).
			Scan(&email, &role, &cid, &lastLogin); err != nil {
			t.Fatalf("no user row for sub %s: %v", sub, err)
		}
		if email != "jit@example.test" || role != "accountant" || cid != company || lastLogin == nil {
			t.Fatalf("user row %s %s %s %v", email, role, cid, lastLogin)
		}
	})
}

// ---- §3 permission matrix and §4 error order ----------------------------------

// accCase is one request and the answer expected for each role (a role not
// listed is not sent).
type accCase struct {
	name   string
	method string
	path   func(w *accWorld) string
	body   func() any
	want   map[auth.Role]accWant
}

type accWant struct {
	status int
	name   string // error name, "" for success
}

var (
	ok200     = accWant{http.StatusOK, ""}
	ok201     = accWant{http.StatusCreated, ""}
	ok204     = accWant{http.StatusNoContent, ""}
	forbidden = accWant{http.StatusForbidden, "Forbidden"}
	denied    = accWant{http.StatusForbidden, "AccessDenied"}
	notFound  = accWant{http.StatusNotFound, "NotFound"}
	badReq    = accWant{http.StatusBadRequest, "BadRequest"}
)

func allRoles(w accWant) map[auth.Role]accWant {
	m := map[auth.Role]accWant{}
	for _, r := range accRoles {
		m[r] = w
	}
	return m
}

func roles(admin, hr, acc, disp, drv accWant) map[auth.Role]accWant {
	return map[auth.Role]accWant{auth.RoleAdmin: admin, auth.RoleHRManager: hr, auth.RoleAccountant: acc, auth.RoleDispatcher: disp, auth.RoleDriver: drv}
}

func TestAcceptancePermissionMatrix(t *testing.T) {
	t.Parallel()
	w := newAccWorld(t)
	path := func(format string, id func(w *accWorld) uuid.UUID) func(w *accWorld) string {
		return func(w *accWorld) string { return fmt.Sprintf(format, id(w)) }
	}
	own := func(w *accWorld) uuid.UUID { return w.own }
	peer := func(w *accWorld) uuid.UUID { return w.peer }
	ownDoc := func(w *accWorld) uuid.UUID { return w.ownDoc }
	peerDoc := func(w *accWorld) uuid.UUID { return w.peerDoc }
	ownFile := func(w *accWorld) uuid.UUID { return w.ownFile }
	peerFile := func(w *accWorld) uuid.UUID { return w.peerFile }
	newDriver := func() any { return map[string]any{"first_name": "Nový", "last_name": "Řidič", "email": accEmail()} }
	phone := func() any {
		return map[string]any{"phone": fmt.Sprintf("+420 777 %06d", time.Now().UnixNano()%1000000)}
	}
	meta := func() any { return map[string]any{"number": "P-" + uuid.NewString()[:6]} }

	cases := []accCase{
		{"list drivers", "GET", func(*accWorld) string { return "/api/v0/drivers" }, nil, allRoles(ok200)},
		{"read another driver", "GET", path("/api/v0/drivers/%s", peer), nil, roles(ok200, ok200, ok200, ok200, denied)},
		{"read own driver", "GET", path("/api/v0/drivers/%s", own), nil, allRoles(ok200)},
		{"create driver", "POST", func(*accWorld) string { return "/api/v0/drivers" }, newDriver, roles(ok201, ok201, forbidden, forbidden, forbidden)},
		{"update another driver", "PUT", path("/api/v0/drivers/%s", peer), phone, roles(ok200, ok200, forbidden, forbidden, denied)},
		{"update own phone", "PUT", path("/api/v0/drivers/%s", own), phone, roles(ok200, ok200, forbidden, forbidden, ok200)},
		{"delete own driver", "DELETE", path("/api/v0/drivers/%s", own), nil, roles(accWant{}, accWant{}, forbidden, forbidden, forbidden)},
		{"list another driver's documents", "GET", path("/api/v0/drivers/%s/documents", peer), nil, roles(ok200, ok200, forbidden, ok200, denied)},
		{"list own documents", "GET", path("/api/v0/drivers/%s/documents", own), nil, roles(ok200, ok200, forbidden, ok200, ok200)},
		{"update another driver's document", "PUT", path("/api/v0/documents/%s", peerDoc), meta, roles(ok200, ok200, forbidden, forbidden, denied)},
		{"update own document", "PUT", path("/api/v0/documents/%s", ownDoc), meta, roles(ok200, ok200, forbidden, forbidden, ok200)},
		{"versions of another driver's document", "GET", path("/api/v0/documents/%s/files/versions", peerDoc), nil, roles(ok200, ok200, forbidden, forbidden, denied)},
		{"versions of own document", "GET", path("/api/v0/documents/%s/files/versions", ownDoc), nil, roles(ok200, ok200, forbidden, forbidden, ok200)},
		{"download another driver's file", "GET", path("/api/v0/files/%s/download", peerFile), nil, roles(ok200, ok200, forbidden, forbidden, denied)},
		{"download own file", "GET", path("/api/v0/files/%s/download", ownFile), nil, roles(ok200, ok200, forbidden, forbidden, ok200)},
		{"audit log", "GET", func(*accWorld) string { return "/api/v0/audit-logs" }, nil, roles(ok200, ok200, forbidden, forbidden, forbidden)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, r := range accRoles {
				want, ok := c.want[r]
				if !ok || want.status == 0 {
					continue
				}
				var body any
				if c.body != nil {
					body = c.body()
				}
				res := w.callers[r].Do(c.method, c.path(w), body)
				if res.Status != want.status {
					t.Errorf("%s: status %d, want %d: %s", r, res.Status, want.status, res.Body)
					continue
				}
				if want.name != "" && res.JSON()["error"] != want.name {
					t.Errorf("%s: error %v, want %s", r, res.JSON()["error"], want.name)
				}
			}
		})
	}

	t.Run("uploads", func(t *testing.T) {
		for r, want := range roles(ok201, ok201, forbidden, forbidden, denied) {
			accExpect(t, upload(t, w.callers[r], w.peerDoc, filePart("x.pdf", samplePDF(t, 100))), want.status, want.name)
		}
		for r, want := range roles(ok201, ok201, forbidden, forbidden, ok201) {
			accExpect(t, upload(t, w.callers[r], w.ownDoc, filePart("x.pdf", samplePDF(t, 100))), want.status, want.name)
		}
	})
	t.Run("delete", func(t *testing.T) {
		for _, r := range []auth.Role{auth.RoleAdmin, auth.RoleHRManager} {
			d := w.env.Driver(w.company)
			w.callers[r].Delete("/api/v0/drivers/" + d.String()).Expect(http.StatusNoContent)
		}
	})
	t.Run("dispatcher sees statuses but no files", func(t *testing.T) {
		disp := w.callers[auth.RoleDispatcher]
		for _, doc := range disp.Get("/api/v0/drivers/" + w.peer.String() + "/documents").JSON()["data"].([]any) {
			d := doc.(map[string]any)
			if _, has := d["files"]; has {
				t.Fatalf("dispatcher sees files: %v", d)
			}
			if d["status"] == nil {
				t.Fatalf("dispatcher sees no status: %v", d)
			}
		}
		for _, doc := range disp.Get("/api/v0/drivers/" + w.peer.String()).JSON()["documents"].([]any) {
			if _, has := doc.(map[string]any)["files"]; has {
				t.Fatalf("dispatcher sees files in the driver read: %v", doc)
			}
		}
		hrDocs := w.callers[auth.RoleHRManager].Get("/api/v0/drivers/" + w.peer.String() + "/documents").JSON()["data"].([]any)
		if files, _ := hrDocs[0].(map[string]any)["files"].([]any); len(files) == 0 {
			t.Fatalf("HR sees no files of the passport: %v", hrDocs[0])
		}
	})
	t.Run("a driver sees only its own record in the list", func(t *testing.T) {
		data := w.callers[auth.RoleDriver].Get("/api/v0/drivers").JSON()["data"].([]any)
		if len(data) != 1 || data[0].(map[string]any)["id"] != w.own.String() {
			t.Fatalf("driver's list: %v", data)
		}
		unlinked := w.env.As(w.company, auth.RoleDriver, "nobody@example.test")
		if m := unlinked.Get("/api/v0/drivers").JSON(); len(m["data"].([]any)) != 0 || m["total"].(float64) != 0 {
			t.Fatalf("unlinked driver's list: %v", m)
		}
		unlinked.Get("/api/v0/drivers/"+w.own.String()).ExpectError(http.StatusForbidden, "AccessDenied")
		unlinked.Get("/api/v0/drivers/"+w.own.String()+"/documents").ExpectError(http.StatusForbidden, "AccessDenied")
		unlinked.Get("/api/v0/files/"+w.ownFile.String()+"/download").ExpectError(http.StatusForbidden, "AccessDenied")
	})
}

func TestAcceptanceErrorOrder(t *testing.T) {
	t.Parallel()
	w := newAccWorld(t)
	admin, acc, disp, drv := w.callers[auth.RoleAdmin], w.callers[auth.RoleAccountant], w.callers[auth.RoleDispatcher], w.callers[auth.RoleDriver]
	missing := uuid.NewString()

	t.Run("ids that are not UUIDs, unknown ids, other companies", func(t *testing.T) {
		type route struct {
			method, format string
			allowed        *webtest.Caller // may do the action
			refused        *webtest.Caller // role may not
			foreign        string          // another company's id
		}
		routes := []route{
			{"GET", "/api/v0/drivers/%s", admin, nil, w.foreign.String()},
			{"PUT", "/api/v0/drivers/%s", admin, acc, w.foreign.String()},
			{"DELETE", "/api/v0/drivers/%s", admin, disp, w.foreign.String()},
			{"GET", "/api/v0/drivers/%s/documents", admin, acc, w.foreign.String()},
			{"PUT", "/api/v0/documents/%s", admin, disp, w.forDoc.String()},
			{"POST", "/api/v0/documents/%s/files", admin, acc, w.forDoc.String()},
			{"GET", "/api/v0/documents/%s/files/versions", admin, disp, w.forDoc.String()},
			{"GET", "/api/v0/files/%s/download", admin, acc, w.forFil.String()},
		}
		for _, r := range routes {
			send := func(c *webtest.Caller, id string) *webtest.Response {
				p := fmt.Sprintf(r.format, id)
				if r.method == "POST" {
					body, h := multipartBody(t, filePart("x.pdf", samplePDF(t, 100)))
					return c.Send(r.method, p, body, h)
				}
				var body any
				if r.method == "PUT" {
					body = map[string]any{}
				}
				return c.Do(r.method, p, body)
			}
			t.Run(r.method+" "+r.format, func(t *testing.T) {
				for _, id := range []string{"not-a-uuid", "123", missing, strings.ToUpper(missing) + "x"} {
					send(r.allowed, id).ExpectError(http.StatusNotFound, "NotFound")
					if r.refused != nil {
						send(r.refused, id).ExpectError(http.StatusForbidden, "Forbidden")
					}
				}
				send(r.allowed, r.foreign).ExpectError(http.StatusForbidden, "AccessDenied")
				if r.refused != nil {
					send(r.refused, r.foreign).ExpectError(http.StatusForbidden, "Forbidden")
				}
			})
		}
	})

	t.Run("malformed JSON is 400 only after role, existence and ownership", func(t *testing.T) {
		broken := `{"first_name": "Jan",`
		acc.Post("/api/v0/drivers", broken).ExpectError(http.StatusForbidden, "Forbidden")
		drv.Post("/api/v0/drivers", broken).ExpectError(http.StatusForbidden, "Forbidden")
		admin.Post("/api/v0/drivers", broken).ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Post("/api/v0/drivers", `[1,2]`).ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Post("/api/v0/drivers", `{"first_name": "A"} {"x": 1}`).ExpectError(http.StatusBadRequest, "BadRequest")

		acc.Put("/api/v0/drivers/"+w.peer.String(), broken).ExpectError(http.StatusForbidden, "Forbidden")
		admin.Put("/api/v0/drivers/"+missing, broken).ExpectError(http.StatusNotFound, "NotFound")
		admin.Put("/api/v0/drivers/"+w.foreign.String(), broken).ExpectError(http.StatusForbidden, "AccessDenied")
		drv.Put("/api/v0/drivers/"+w.peer.String(), broken).ExpectError(http.StatusForbidden, "AccessDenied")
		drv.Put("/api/v0/drivers/"+w.own.String(), broken).ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Put("/api/v0/drivers/"+w.peer.String(), broken).ExpectError(http.StatusBadRequest, "BadRequest")

		disp.Put("/api/v0/documents/"+w.peerDoc.String(), broken).ExpectError(http.StatusForbidden, "Forbidden")
		admin.Put("/api/v0/documents/"+missing, broken).ExpectError(http.StatusNotFound, "NotFound")
		admin.Put("/api/v0/documents/"+w.forDoc.String(), broken).ExpectError(http.StatusForbidden, "AccessDenied")
		drv.Put("/api/v0/documents/"+w.peerDoc.String(), broken).ExpectError(http.StatusForbidden, "AccessDenied")
		admin.Put("/api/v0/documents/"+w.peerDoc.String(), broken).ExpectError(http.StatusBadRequest, "BadRequest")
	})

	t.Run("wrong content type is 400", func(t *testing.T) {
		h := http.Header{"Content-Type": {"text/plain"}}
		admin.Send("POST", "/api/v0/drivers", strings.NewReader(`{"first_name":"A","last_name":"B","email":"ct@example.test"}`), h).
			ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Send("PUT", "/api/v0/drivers/"+w.peer.String(), strings.NewReader(`{"phone":"1"}`), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}).
			ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Send("PUT", "/api/v0/documents/"+w.peerDoc.String(), strings.NewReader(`{"number":"1"}`), h).
			ExpectError(http.StatusBadRequest, "BadRequest")
		acc.Send("POST", "/api/v0/drivers", strings.NewReader(`{}`), h).ExpectError(http.StatusForbidden, "Forbidden")
		// An upload that is not multipart.
		admin.Post("/api/v0/documents/"+w.peerDoc.String()+"/files", map[string]any{"file": "x"}).ExpectError(http.StatusBadRequest, "BadRequest")
		acc.Post("/api/v0/documents/"+w.peerDoc.String()+"/files", map[string]any{"file": "x"}).ExpectError(http.StatusForbidden, "Forbidden")
	})

	t.Run("validation comes after ownership", func(t *testing.T) {
		admin.Put("/api/v0/drivers/"+w.foreign.String(), map[string]any{"email": "not-an-email"}).ExpectError(http.StatusForbidden, "AccessDenied")
		drv.Put("/api/v0/drivers/"+w.peer.String(), map[string]any{"iban": "nope"}).ExpectError(http.StatusForbidden, "AccessDenied")
		admin.Put("/api/v0/documents/"+w.forDoc.String(), map[string]any{"valid_until": "soon"}).ExpectError(http.StatusForbidden, "AccessDenied")
		upload(t, admin, w.forDoc).ExpectError(http.StatusForbidden, "AccessDenied")
		upload(t, admin, w.peerDoc).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	})

	t.Run("unknown routes, methods and planned paths", func(t *testing.T) {
		admin.Get("/api/v0/nothing-here").ExpectError(http.StatusNotFound, "NotFound")
		res := admin.Do("PATCH", "/api/v0/drivers/"+w.peer.String(), map[string]any{})
		res.ExpectError(http.StatusMethodNotAllowed, "MethodNotAllowed")
		if allow := res.Header.Get("Allow"); !strings.Contains(allow, "PUT") || !strings.Contains(allow, "GET") {
			t.Fatalf("Allow %q", allow)
		}
		for _, p := range []string{"/orders", "/customers", "/invoices", "/gps/positions", "/analytics/reports", "/mobile", "/integrations"} {
			admin.Get("/api/v0"+p).ExpectError(http.StatusNotImplemented, "NotImplemented")
		}
	})

	t.Run("request id on every response", func(t *testing.T) {
		c := w.env.As(w.company, auth.RoleAdmin)
		c.Header.Set("X-Request-ID", "trace-abc.123")
		for _, res := range []*webtest.Response{
			c.Get("/api/v0/drivers"), c.Get("/api/v0/drivers/nope"), c.Get("/api/v0/nothing"), w.env.Anonymous().Get("/api/v0/drivers"),
		} {
			if res.Header.Get("X-Request-ID") == "" {
				t.Fatalf("no X-Request-ID on %d", res.Status)
			}
		}
		if got := c.Get("/api/v0/drivers").Header.Get("X-Request-ID"); got != "trace-abc.123" {
			t.Fatalf("X-Request-ID %q not echoed", got)
		}
	})
}

// ---- §5 lists --------------------------------------------------------------

func TestAcceptanceLists(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	for i := 0; i < 105; i++ {
		env.Driver(company, fixtures.LastName(fmt.Sprintf("Driver%03d", i)))
	}
	novak := drvCreate(t, admin, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan.novak@firma.cz", "citizenship": "SK", "status": "on_leave"})
	dvorak := drvCreate(t, admin, map[string]any{"first_name": "Eva", "last_name": "Dvořáková", "email": "eva@firma.cz", "citizenship": "CZ", "status": "inactive"})

	t.Run("offset envelope", func(t *testing.T) {
		m := admin.Get("/api/v0/drivers?per_page=10&page=2").Expect(http.StatusOK).JSON()
		for _, k := range []string{"current_page", "data", "first_page_url", "last_page", "last_page_url", "next_page_url", "per_page", "prev_page_url", "total", "from", "to"} {
			if _, ok := m[k]; !ok {
				t.Errorf("envelope has no %s", k)
			}
		}
		if m["current_page"].(float64) != 2 || m["per_page"].(float64) != 10 || m["total"].(float64) != 107 || m["last_page"].(float64) != 11 ||
			m["from"].(float64) != 11 || m["to"].(float64) != 20 || len(m["data"].([]any)) != 10 {
			t.Fatalf("envelope %v", m)
		}
		for _, k := range []string{"first_page_url", "last_page_url", "next_page_url", "prev_page_url"} {
			u, err := url.Parse(m[k].(string))
			if err != nil || u.Query().Get("per_page") != "10" || u.Query().Get("page") == "" {
				t.Errorf("%s = %v", k, m[k])
			}
		}
		first := admin.Get("/api/v0/drivers").JSON()
		if first["prev_page_url"] != nil || first["per_page"].(float64) != 20 || first["current_page"].(float64) != 1 {
			t.Fatalf("first page %v", first)
		}
		last := admin.Get("/api/v0/drivers?page=6").JSON()
		if last["next_page_url"] != nil || len(last["data"].([]any)) != 7 {
			t.Fatalf("last page: next %v, %d items", last["next_page_url"], len(last["data"].([]any)))
		}
		past := admin.Get("/api/v0/drivers?page=50").Expect(http.StatusOK).JSON()
		if len(past["data"].([]any)) != 0 || past["total"].(float64) != 107 {
			t.Fatalf("past the end: %v", past)
		}
	})
	t.Run("page and per_page values", func(t *testing.T) {
		if m := admin.Get("/api/v0/drivers?per_page=1000").Expect(http.StatusOK).JSON(); m["per_page"].(float64) != 100 || len(m["data"].([]any)) != 100 {
			t.Fatalf("per_page=1000: per_page %v, %d items", m["per_page"], len(m["data"].([]any)))
		}
		for _, q := range []string{"page=-1", "page=0", "page=abc", "page=1.5", "per_page=abc", "per_page=-5", "per_page=0", "page=%zz", "per_page=5;page=2"} {
			admin.Get("/api/v0/drivers?"+q).ExpectError(http.StatusBadRequest, "BadRequest")
			admin.Get("/api/v0/audit-logs?"+q).ExpectError(http.StatusBadRequest, "BadRequest")
		}
		if m := admin.Get("/api/v0/audit-logs?per_page=1000").Expect(http.StatusOK).JSON(); m["per_page"].(float64) != 100 {
			t.Fatalf("audit per_page=1000: %v", m["per_page"])
		}
	})
	t.Run("cursor pages", func(t *testing.T) {
		m := admin.Get("/api/v0/drivers?limit=1000").Expect(http.StatusOK).JSON()
		meta := m["meta"].(map[string]any)
		if len(m["data"].([]any)) != 100 || meta["has_more"] != true || meta["next_cursor"] == nil {
			t.Fatalf("limit=1000: %d items, meta %v", len(m["data"].([]any)), meta)
		}
		if _, ok := m["total"]; ok {
			t.Fatal("cursor page carries offset fields")
		}
		if n := len(admin.Get("/api/v0/drivers?cursor=").JSON()["data"].([]any)); n != 20 {
			t.Fatalf("default limit: %d", n)
		}
		var seen []string
		next := ""
		for pages := 0; ; pages++ {
			q := "/api/v0/drivers?limit=30"
			if next != "" {
				q += "&cursor=" + url.QueryEscape(next)
			}
			m := admin.Get(q).Expect(http.StatusOK).JSON()
			for _, d := range m["data"].([]any) {
				seen = append(seen, d.(map[string]any)["internal_number"].(string))
			}
			meta := m["meta"].(map[string]any)
			if meta["has_more"] == false {
				if meta["next_cursor"] != nil {
					t.Fatalf("last page has next_cursor %v", meta["next_cursor"])
				}
				break
			}
			next = meta["next_cursor"].(string)
			if pages > 10 {
				t.Fatal("cursor never ends")
			}
		}
		if len(seen) != 107 || seen[0] != "DRV-0001" || seen[106] != "DRV-0107" {
			t.Fatalf("cursor walk: %d items, %v … %v", len(seen), seen[0], seen[len(seen)-1])
		}
		tampered := []byte(next)
		tampered[3] ^= 1
		admin.Get("/api/v0/drivers?cursor="+url.QueryEscape(string(tampered))).ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Get("/api/v0/drivers?cursor=garbage").ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Get("/api/v0/drivers?limit=abc").ExpectError(http.StatusBadRequest, "BadRequest")
	})
	t.Run("sorting", func(t *testing.T) {
		for _, q := range []string{"sort_by=email", "sort_by=password", "sort_order=sideways", "sort_by=last_name%3Bdrop"} {
			m := admin.Get("/api/v0/drivers?"+q).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			if m["errors"] == nil {
				t.Fatalf("%s: no errors object", q)
			}
		}
		for _, by := range []string{"internal_number", "last_name", "hire_date", "created_at"} {
			for _, order := range []string{"asc", "desc"} {
				admin.Get("/api/v0/drivers?sort_by=" + by + "&sort_order=" + order).Expect(http.StatusOK)
				admin.Get("/api/v0/drivers?limit=5&sort_by=" + by + "&sort_order=" + order).Expect(http.StatusOK)
			}
		}
		data := admin.Get("/api/v0/drivers?sort_by=internal_number&sort_order=desc&per_page=1").JSON()["data"].([]any)
		if data[0].(map[string]any)["id"] != dvorak.ID.String() {
			t.Fatalf("desc first %v", data[0])
		}
	})
	t.Run("search and filters", func(t *testing.T) {
		ids := func(q string) []string {
			var out []string
			for _, d := range admin.Get("/api/v0/drivers?" + q).Expect(http.StatusOK).JSON()["data"].([]any) {
				out = append(out, d.(map[string]any)["id"].(string))
			}
			return out
		}
		for _, q := range []string{"Novak", "novák", "NOVAK", "jan.novak@firma", novak.InternalNumber, "Jan Novak"} {
			if got := ids("search=" + url.QueryEscape(q)); len(got) != 1 || got[0] != novak.ID.String() {
				t.Errorf("search %q: %v", q, got)
			}
		}
		if got := ids("search=dvorakova"); len(got) != 1 || got[0] != dvorak.ID.String() {
			t.Errorf("search dvorakova: %v", got)
		}
		if got := ids("status=on_leave,inactive"); len(got) != 2 {
			t.Errorf("status OR: %v", got)
		}
		if got := ids("status=on_leave,inactive&citizenship=CZ"); len(got) != 1 || got[0] != dvorak.ID.String() {
			t.Errorf("status AND citizenship: %v", got)
		}
		if got := ids("citizenship=SK,CZ"); len(got) != 2 {
			t.Errorf("citizenship OR: %v", got)
		}
		admin.Get("/api/v0/drivers?status=retired").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		admin.Get("/api/v0/drivers?document_status=lost").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		admin.Get("/api/v0/drivers?office_id=nope").ExpectError(http.StatusBadRequest, "BadRequest")
		if got := ids("document_status=no_data&search=novak"); len(got) != 1 {
			t.Errorf("document_status=no_data: %v", got)
		}
		if got := ids("document_status=valid"); len(got) != 0 {
			t.Errorf("document_status=valid: %v", got)
		}
		item := admin.Get("/api/v0/drivers?search=novak").JSON()["data"].([]any)[0].(map[string]any)
		for _, k := range []string{"id", "internal_number", "first_name", "last_name", "email", "phone", "citizenship", "status", "hire_date", "is_ready", "documents_summary", "created_at", "updated_at"} {
			if _, ok := item[k]; !ok {
				t.Errorf("list item has no %s", k)
			}
		}
		sum := item["documents_summary"].(map[string]any)
		if sum["total"].(float64) != 14 || sum["no_data"].(float64) != 14 || sum["valid"].(float64) != 0 {
			t.Errorf("documents_summary %v", sum)
		}
	})
	t.Run("numbers beyond 9999 grow and sort numerically", func(t *testing.T) {
		if _, err := env.DB.Exec(context.Background(), `UPDATE companies SET driver_number_seq = 9998 WHERE id = $1`, company); err != nil {
			t.Fatal(err)
		}
		a := drvCreate(t, admin, map[string]any{"first_name": "A", "last_name": "Nine", "email": accEmail()})
		b := drvCreate(t, admin, map[string]any{"first_name": "B", "last_name": "Ten", "email": accEmail()})
		if a.InternalNumber != "DRV-9999" || b.InternalNumber != "DRV-10000" {
			t.Fatalf("numbers %s, %s", a.InternalNumber, b.InternalNumber)
		}
		data := admin.Get("/api/v0/drivers?sort_by=internal_number&sort_order=desc&per_page=2").JSON()["data"].([]any)
		if data[0].(map[string]any)["internal_number"] != "DRV-10000" || data[1].(map[string]any)["internal_number"] != "DRV-9999" {
			t.Fatalf("desc order: %v, %v", data[0].(map[string]any)["internal_number"], data[1].(map[string]any)["internal_number"])
		}
	})
}

// ---- §6 drivers --------------------------------------------------------------

func TestAcceptanceDrivers(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	base := func(extra map[string]any) map[string]any {
		m := map[string]any{"first_name": "Jan", "last_name": "Novák", "email": accEmail()}
		for k, v := range extra {
			if v == nil {
				delete(m, k)
				continue
			}
			m[k] = v
		}
		return m
	}

	t.Run("create answers the full driver with its 14 documents", func(t *testing.T) {
		m := hr.Post("/api/v0/drivers", base(map[string]any{
			"birth_date": "1985-03-12", "citizenship": "CZ", "rodne_cislo": "850312/1234", "phone": "+420 777 111 222",
			"registration_address": "Praha 1", "status": "active", "hire_date": "2024-01-01", "contract_from": "2024-01-01",
			"contract_indefinite": true, "work_location": "Praha", "bank_country": "CZ", "bank_account": "123456789/0800",
			"iban": "CZ65 0800 0000 1920 0014 5399", "swift": "GIBACZPX", "flags": map[string]any{"pas_souhlas": true, "other": "x"},
		})).Expect(http.StatusCreated).JSON()
		if !regexp.MustCompile(`^DRV-\d{4,}$`).MatchString(m["internal_number"].(string)) || m["id"] == nil || m["created_at"] == nil {
			t.Fatalf("create: %v", m)
		}
		if m["iban"] != "CZ6508000000192000145399" || m["company_id"] != company.String() {
			t.Fatalf("create: iban %v company %v", m["iban"], m["company_id"])
		}
		got := hr.Get("/api/v0/drivers/" + m["id"].(string)).Expect(http.StatusOK).JSON()
		docs := got["documents"].([]any)
		if len(docs) != 14 {
			t.Fatalf("%d documents", len(docs))
		}
		for _, d := range docs {
			if d.(map[string]any)["status"] != "no_data" {
				t.Fatalf("new document %v", d)
			}
		}
		for _, k := range []string{"company_id", "office_id", "middle_name", "birth_date", "rodne_cislo", "registration_address", "residence_address",
			"fire_date", "contract_from", "contract_to", "contract_indefinite", "bank_country", "bank_account", "iban", "swift", "flags", "is_ready"} {
			if _, ok := got[k]; !ok {
				t.Errorf("driver read has no %s", k)
			}
		}
	})
	t.Run("validation", func(t *testing.T) {
		cases := map[string]struct {
			body  map[string]any
			field string
		}{
			"no first_name":           {base(map[string]any{"first_name": nil}), "first_name"},
			"blank first_name":        {base(map[string]any{"first_name": "  "}), "first_name"},
			"no last_name":            {base(map[string]any{"last_name": nil}), "last_name"},
			"no email":                {base(map[string]any{"email": nil}), "email"},
			"bad email":               {base(map[string]any{"email": "not-an-email"}), "email"},
			"long first_name":         {base(map[string]any{"first_name": strings.Repeat("a", 101)}), "first_name"},
			"bad birth_date":          {base(map[string]any{"birth_date": "1985-02-30"}), "birth_date"},
			"birth_date not a date":   {base(map[string]any{"birth_date": "12.3.1985"}), "birth_date"},
			"bad citizenship":         {base(map[string]any{"citizenship": "XX"}), "citizenship"},
			"alpha-3 citizenship":     {base(map[string]any{"citizenship": "CZE"}), "citizenship"},
			"bad status":              {base(map[string]any{"status": "retired"}), "status"},
			"bad iban checksum":       {base(map[string]any{"iban": "CZ6508000000192000145398"}), "iban"},
			"contract equal":          {base(map[string]any{"contract_from": "2024-01-01", "contract_to": "2024-01-01"}), "contract_from"},
			"contract reversed":       {base(map[string]any{"contract_from": "2024-02-01", "contract_to": "2024-01-01"}), "contract_from"},
			"fire before hire":        {base(map[string]any{"hire_date": "2024-02-01", "fire_date": "2024-01-31"}), "fire_date"},
			"long phone":              {base(map[string]any{"phone": strings.Repeat("1", 51)}), "phone"},
			"long rodne_cislo":        {base(map[string]any{"rodne_cislo": strings.Repeat("1", 21)}), "rodne_cislo"},
			"long work_location":      {base(map[string]any{"work_location": strings.Repeat("x", 51)}), "work_location"},
			"first_name not a string": {base(map[string]any{"first_name": 42}), "first_name"},
			"flags not an object":     {base(map[string]any{"flags": []int{1}}), "flags"},
		}
		before := count(t, env, `SELECT count(*) FROM drivers WHERE company_id = $1`, company)
		for name, c := range cases {
			m := hr.Post("/api/v0/drivers", c.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
			errs, _ := m["errors"].(map[string]any)
			if msgs, _ := errs[c.field].([]any); len(msgs) == 0 {
				t.Errorf("%s: no message for %s: %v", name, c.field, m)
			}
		}
		if after := count(t, env, `SELECT count(*) FROM drivers WHERE company_id = $1`, company); after != before {
			t.Fatalf("%d drivers stored by refused creates", after-before)
		}
		hr.Post("/api/v0/drivers", base(map[string]any{"hire_date": "2024-02-01", "fire_date": "2024-02-01"})).Expect(http.StatusCreated)
		hr.Post("/api/v0/drivers", base(map[string]any{"contract_from": "2024-01-01", "contract_to": "2024-01-02"})).Expect(http.StatusCreated)
	})
	t.Run("duplicate e-mail is 409, also in another case; a deleted driver's e-mail is free", func(t *testing.T) {
		first := drvCreate(t, hr, base(map[string]any{"email": "dup@firma.cz"}))
		hr.Post("/api/v0/drivers", base(map[string]any{"email": "dup@firma.cz"})).ExpectError(http.StatusConflict, "DuplicateEntry")
		hr.Post("/api/v0/drivers", base(map[string]any{"email": "DUP@Firma.cz"})).ExpectError(http.StatusConflict, "DuplicateEntry")
		other := drvCreate(t, hr, base(nil))
		hr.Put("/api/v0/drivers/"+other.ID.String(), map[string]any{"email": "dup@firma.cz"}).ExpectError(http.StatusConflict, "DuplicateEntry")
		// Another company may use it.
		otherCo := env.Company("Other", "free")
		drvCreate(t, env.As(otherCo, auth.RoleAdmin), base(map[string]any{"email": "dup@firma.cz"}))

		hr.Delete("/api/v0/drivers/" + first.ID.String()).Expect(http.StatusNoContent)
		hr.Get("/api/v0/drivers/"+first.ID.String()).ExpectError(http.StatusNotFound, "NotFound")
		hr.Put("/api/v0/drivers/"+first.ID.String(), map[string]any{"phone": "1"}).ExpectError(http.StatusNotFound, "NotFound")
		hr.Delete("/api/v0/drivers/"+first.ID.String()).ExpectError(http.StatusNotFound, "NotFound")
		hr.Get("/api/v0/drivers/"+first.ID.String()+"/documents").ExpectError(http.StatusNotFound, "NotFound")
		for _, d := range hr.Get("/api/v0/drivers?per_page=100").JSON()["data"].([]any) {
			if d.(map[string]any)["id"] == first.ID.String() {
				t.Fatal("deleted driver still listed")
			}
		}
		again := drvCreate(t, hr, base(map[string]any{"email": "dup@firma.cz"}))
		if again.InternalNumber == first.InternalNumber {
			t.Fatalf("number %s reused", again.InternalNumber)
		}
		if n := count(t, env, `SELECT count(*) FROM drivers WHERE id = $1 AND deleted_at IS NOT NULL`, first.ID); n != 1 {
			t.Fatal("delete is not soft")
		}
	})
	t.Run("update is partial and answers the updated driver", func(t *testing.T) {
		d := drvCreate(t, hr, base(map[string]any{"phone": "+420 777 000 111", "citizenship": "CZ"}))
		time.Sleep(5 * time.Millisecond) // updated_at must move
		m := hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"status": "on_leave", "phone": nil}).Expect(http.StatusOK).JSON()
		if m["status"] != "on_leave" || m["phone"] != nil || m["citizenship"] != "CZ" || m["first_name"] != "Jan" {
			t.Fatalf("update: %v", m)
		}
		if m["updated_at"].(string) <= d.UpdatedAt {
			t.Fatalf("updated_at %v not after %v", m["updated_at"], d.UpdatedAt)
		}
		hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"contract_to": "2020-01-01", "contract_from": "2021-01-01"}).
			ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	})
	t.Run("a driver changes only phone, addresses and bank fields of its own record", func(t *testing.T) {
		d := drvCreate(t, hr, base(map[string]any{"email": "self@firma.cz", "phone": "+420 777 000 111"}))
		me := env.As(company, auth.RoleDriver, "SELF@firma.cz")
		rows := func() int {
			return count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1`, d.ID)
		}
		before := rows()
		for _, body := range []map[string]any{
			{"status": "terminated"}, {"phone": "999", "first_name": "Hacker"}, {"email": "x@y.cz"}, {"hire_date": "2020-01-01"},
			{"internal_number": "DRV-0001"}, {"phone": "999", "flags": map[string]any{}},
		} {
			me.Put("/api/v0/drivers/"+d.ID.String(), body).ExpectError(http.StatusForbidden, "Forbidden")
		}
		got := hr.Get("/api/v0/drivers/" + d.ID.String()).JSON()
		if got["phone"] != "+420777000111" || got["first_name"] != "Jan" || got["status"] != "active" {
			t.Fatalf("refused update changed the driver: %v", got)
		}
		if rows() != before {
			t.Fatal("a refused update wrote an audit row")
		}
		m := me.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{
			"phone": "777 000 222", "registration_address": "Brno", "residence_address": "Ostrava", "bank_country": "CZ",
			"bank_account": "1/0100", "iban": "CZ6508000000192000145399", "swift": "GIBACZPX",
		}).Expect(http.StatusOK).JSON()
		if m["phone"] != "+420777000222" || m["residence_address"] != "Ostrava" {
			t.Fatalf("own update: %v", m)
		}
		me.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"iban": "CZ00"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		me.Delete("/api/v0/drivers/"+d.ID.String()).ExpectError(http.StatusForbidden, "Forbidden")
	})
}

// ---- §6 documents and files ---------------------------------------------------

func TestAcceptanceDocuments(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = 4096 }))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company, fixtures.Email("d@firma.cz"))
	doc := documentID(t, env, driver, "drivers_license")
	today := civil.DateOf(time.Now().In(mustZone(t, "Europe/Prague")))

	t.Run("upload answers the file object", func(t *testing.T) {
		pdf := samplePDF(t, 1000)
		res := upload(t, hr, doc, filePart("řidičák.pdf", pdf), field("number", "EL123"), field("valid_until", today.AddDays(200).String()),
			field("meta", `{"categories":["C","CE"]}`)).Expect(http.StatusCreated)
		m := res.JSON()
		for _, k := range []string{"id", "document_id", "filename", "original_filename", "mime_type", "size_bytes", "version", "is_current", "storage_path", "uploaded_by", "uploaded_at"} {
			if _, ok := m[k]; !ok {
				t.Errorf("upload answer has no %s", k)
			}
		}
		if !regexp.MustCompile(`^v1_[0-9a-f-]{36}\.pdf$`).MatchString(m["filename"].(string)) {
			t.Errorf("filename %v", m["filename"])
		}
		if want := fmt.Sprintf("%s/%s/drivers_license/%s", company, driver, m["filename"]); m["storage_path"] != want {
			t.Errorf("storage_path %v, want %s", m["storage_path"], want)
		}
		if m["original_filename"] != "řidičák.pdf" || m["mime_type"] != "application/pdf" || m["size_bytes"].(float64) != 1000 ||
			m["version"].(float64) != 1 || m["is_current"] != true || m["uploaded_by"] != hr.UserID.String() || m["document_id"] != doc.String() {
			t.Errorf("upload answer %v", m)
		}
		docs := listDocuments(t, hr, driver)
		if d := docs["drivers_license"]; d.Status != "valid" || d.Number == nil || *d.Number != "EL123" || d.DaysUntilExpiry == nil || *d.DaysUntilExpiry != 200 {
			t.Errorf("document after upload %+v", d)
		}
		// The audit example: no_data became valid, with the valid_until.
		var oldV, newV map[string]any
		if err := env.DB.QueryRow(context.Background(), `SELECT old_values, new_values FROM audit_logs WHERE entity_id = $1 AND action = 'document.uploaded'`, doc).
			Scan(&oldV, &newV); err != nil {
			t.Fatal(err)
		}
		if oldV["status"] != "no_data" || newV["status"] != "valid" || newV["valid_until"] != today.AddDays(200).String() {
			t.Errorf("upload audit old %v new %v", oldV, newV)
		}

		dl := hr.Get("/api/v0/files/" + m["id"].(string) + "/download").Expect(http.StatusOK)
		if string(dl.Body) != string(pdf) || dl.Header.Get("Content-Type") != "application/pdf" {
			t.Errorf("download: %d bytes, type %s", len(dl.Body), dl.Header.Get("Content-Type"))
		}
		cd := dl.Header.Get("Content-Disposition")
		if !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, "filename*=UTF-8''%C5%99idi%C4%8D%C3%A1k.pdf") {
			t.Errorf("Content-Disposition %q", cd)
		}
	})
	t.Run("versions: newest first, one current", func(t *testing.T) {
		mustUpload(t, hr, doc, filePart("second.png", samplePNG()))
		mustUpload(t, hr, doc, filePart("third.pdf", samplePDF(t, 500)))
		var out struct {
			Data []map[string]any `json:"data"`
		}
		hr.Get("/api/v0/documents/" + doc.String() + "/files/versions").Expect(http.StatusOK).Decode(&out)
		if len(out.Data) != 3 {
			t.Fatalf("%d versions", len(out.Data))
		}
		for i, v := range out.Data {
			if int(v["version"].(float64)) != 3-i || (v["is_current"] == true) != (i == 0) {
				t.Errorf("version %d: %v", i, v)
			}
			for _, k := range []string{"id", "version", "is_current", "filename", "size_bytes", "uploaded_by", "uploaded_at"} {
				if _, ok := v[k]; !ok {
					t.Errorf("version has no %s", k)
				}
			}
			if by, _ := v["uploaded_by"].(string); by == "" || by == hr.UserID.String() {
				t.Errorf("uploaded_by %v is not a display name", v["uploaded_by"])
			}
		}
		if !strings.HasPrefix(out.Data[1]["filename"].(string), "v2_") || !strings.HasSuffix(out.Data[1]["filename"].(string), ".png") {
			t.Errorf("v2 filename %v", out.Data[1]["filename"])
		}
		files := listDocuments(t, hr, driver)["drivers_license"].Files
		if len(files) != 3 || files[0].Version != 3 || !files[0].IsCurrent || files[1].IsCurrent {
			t.Errorf("files in the list %+v", files)
		}
	})
	t.Run("the type comes from the content", func(t *testing.T) {
		typeDoc := documentID(t, env, driver, "visa_biometrics")
		jpeg := append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0x00}, make([]byte, 200)...)
		webp := append([]byte("RIFF\x00\x01\x00\x00WEBPVP8 "), make([]byte, 200)...)
		for _, c := range []struct {
			name       string
			body       []byte
			mime, ext  string
			clientType string
		}{
			{"photo.pdf", jpeg, "image/jpeg", ".jpg", "application/pdf"},
			{"scan.webp", webp, "image/webp", ".webp", "image/webp"},
			{"iphone.HEIC", sampleHEIC(), "image/heic", ".heic", "application/octet-stream"},
			{"setup.exe", samplePDF(t, 100), "application/pdf", ".pdf", "application/x-msdownload"},
		} {
			p := filePart(c.name, c.body)
			p.contentType = c.clientType
			f := mustUpload(t, hr, typeDoc, p)
			if f.MimeType != c.mime || !strings.HasSuffix(f.Filename, c.ext) || f.OriginalFilename != c.name {
				t.Errorf("%s: mime %s, filename %s, original %s", c.name, f.MimeType, f.Filename, f.OriginalFilename)
			}
			if got := hr.Get("/api/v0/files/" + f.ID.String() + "/download").Header.Get("Content-Type"); got != c.mime {
				t.Errorf("%s: download Content-Type %s", c.name, got)
			}
		}
		exe := filePart("evil.pdf", append([]byte("MZ\x90\x00"), make([]byte, 200)...))
		exe.contentType = "application/pdf"
		upload(t, hr, typeDoc, exe).ExpectError(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	})
	t.Run("refused uploads leave nothing", func(t *testing.T) {
		other := documentID(t, env, driver, "passport")
		upload(t, hr, other, field("number", "X")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		upload(t, hr, other, filePart("x.txt", []byte("just some text, not a document"))).ExpectError(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
		upload(t, hr, other, filePart("big.pdf", samplePDF(t, 5000))).ExpectError(http.StatusRequestEntityTooLarge, "PayloadTooLarge")
		upload(t, hr, other, filePart("x.pdf", samplePDF(t, 100)), field("valid_until", "tomorrow")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		upload(t, hr, other, filePart("x.pdf", samplePDF(t, 100)), field("country", "XX")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		upload(t, hr, other, filePart("x.pdf", samplePDF(t, 100)), field("meta", "[1]")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		upload(t, hr, other, filePart("x.pdf", samplePDF(t, 100)), field("valid_from", "2025-02-01"), field("valid_until", "2025-01-01")).
			ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if n := count(t, env, `SELECT count(*) FROM document_files WHERE document_id = $1`, other); n != 0 {
			t.Fatalf("%d file rows after refused uploads", n)
		}
		if n := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1`, other); n != 0 {
			t.Fatalf("%d audit rows after refused uploads", n)
		}
	})
	t.Run("metadata update answers the document", func(t *testing.T) {
		other := documentID(t, env, driver, "code_95")
		m := hr.Put("/api/v0/documents/"+other.String(), map[string]any{"number": "C95", "country": "cz", "valid_from": "2024-01-01",
			"valid_until": today.AddDays(20).String(), "meta": map[string]any{"k": "v"}}).Expect(http.StatusOK).JSON()
		if m["id"] != other.String() || m["type"] != "code_95" || m["country"] != "CZ" || m["status"] != "no_data" || m["days_until_expiry"].(float64) != 20 {
			t.Fatalf("update answer %v", m)
		}
		mustUpload(t, hr, other, filePart("x.pdf", samplePDF(t, 100)))
		if d := listDocuments(t, hr, driver)["code_95"]; d.Status != "warning" {
			t.Fatalf("status after upload %s", d.Status)
		}
		hr.Put("/api/v0/documents/"+other.String(), map[string]any{"valid_until": "2024-13-01"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		hr.Put("/api/v0/documents/"+other.String(), map[string]any{"number": strings.Repeat("n", 101)}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if m := hr.Put("/api/v0/documents/"+other.String(), map[string]any{"valid_until": nil}).Expect(http.StatusOK).JSON(); m["status"] != "valid" || m["days_until_expiry"] != nil {
			t.Fatalf("no valid_until: %v", m)
		}
	})
	t.Run("is_ready needs an active driver with usable required documents", func(t *testing.T) {
		d := env.Driver(company)
		ready := func() bool {
			return hr.Get("/api/v0/drivers/" + d.String()).JSON()["is_ready"].(bool)
		}
		for i, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95"} {
			mustUpload(t, hr, documentID(t, env, d, typ), filePart("x.pdf", samplePDF(t, 100)), field("valid_until", today.AddDays(5+i*20).String()))
		}
		if ready() {
			t.Fatal("ready without medical_examination")
		}
		mustUpload(t, hr, documentID(t, env, d, "medical_examination"), filePart("x.pdf", samplePDF(t, 100)))
		if !ready() {
			t.Fatal("not ready with all five required documents usable")
		}
		hr.Put("/api/v0/drivers/"+d.String(), map[string]any{"status": "on_leave"}).Expect(http.StatusOK)
		if ready() {
			t.Fatal("ready while on leave")
		}
		hr.Put("/api/v0/drivers/"+d.String(), map[string]any{"status": "active"}).Expect(http.StatusOK)
		hr.Put("/api/v0/documents/"+documentID(t, env, d, "passport").String(), map[string]any{"valid_until": today.AddDays(-1).String()}).Expect(http.StatusOK)
		if ready() {
			t.Fatal("ready with an expired passport")
		}
	})
}

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// ---- §9 rate limits ---------------------------------------------------------

func TestAcceptanceRateLimits(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.WithLimiter(ratelimit.NewMemory()))
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	acc := env.As(company, auth.RoleAccountant)
	driver := env.Driver(company)

	checkHeaders := func(res *webtest.Response, limit int) int {
		t.Helper()
		l, err1 := strconv.Atoi(res.Header.Get("X-RateLimit-Limit"))
		rem, err2 := strconv.Atoi(res.Header.Get("X-RateLimit-Remaining"))
		reset, err3 := strconv.ParseInt(res.Header.Get("X-RateLimit-Reset"), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil || l != limit || rem < 0 || reset < time.Now().Unix()-1 {
			t.Fatalf("%d response: X-RateLimit-Limit %q, -Remaining %q, -Reset %q", res.Status,
				res.Header.Get("X-RateLimit-Limit"), res.Header.Get("X-RateLimit-Remaining"), res.Header.Get("X-RateLimit-Reset"))
		}
		return rem
	}
	responses := []*webtest.Response{
		admin.Get("/api/v0/drivers").Expect(http.StatusOK),
		admin.Get("/api/v0/drivers/nope").Expect(http.StatusNotFound),
		acc.Post("/api/v0/drivers", map[string]any{}).Expect(http.StatusForbidden),
		admin.Post("/api/v0/drivers", map[string]any{}).Expect(http.StatusUnprocessableEntity),
		admin.Post("/api/v0/drivers", "{").Expect(http.StatusBadRequest),
		admin.Get("/api/v0/drivers?page=0").Expect(http.StatusBadRequest),
		admin.Do("PATCH", "/api/v0/drivers/"+driver.String(), nil),
		admin.Get("/api/v0/orders").Expect(http.StatusNotImplemented),
	}
	last := 101
	for _, res := range responses {
		if res.Status == http.StatusMethodNotAllowed {
			continue // no route, so no company: the limiter does not see it
		}
		rem := checkHeaders(res, 60)
		if rem >= last {
			t.Fatalf("remaining %d did not go down from %d", rem, last)
		}
		last = rem
	}
	// Use up the burst of 100.
	var refused *webtest.Response
	for i := 0; i < 120 && refused == nil; i++ {
		if res := admin.Get("/api/v0/drivers?per_page=1"); res.Status == http.StatusTooManyRequests {
			refused = res
		}
	}
	if refused == nil {
		t.Fatal("never refused")
	}
	m := refused.ExpectError(http.StatusTooManyRequests, "RateLimitExceeded")
	ra, ok := m["retry_after"].(float64)
	if !ok || ra < 1 || ra != float64(int(ra)) {
		t.Fatalf("retry_after %v", m["retry_after"])
	}
	if h, err := strconv.Atoi(refused.Header.Get("Retry-After")); err != nil || h < 1 {
		t.Fatalf("Retry-After %q", refused.Header.Get("Retry-After"))
	}
	if checkHeaders(refused, 60) != 0 {
		t.Fatal("remaining is not 0 on a 429")
	}
	// Another company has its own bucket, with its tier's limit.
	big := env.Company("Big", "enterprise")
	checkHeaders(env.As(big, auth.RoleAdmin).Get("/api/v0/drivers").Expect(http.StatusOK), 300)

	// Unauthenticated requests: per client address, 60/min, burst 100.
	anon := env.Anonymous()
	var anonRefused *webtest.Response
	for i := 0; i < 120 && anonRefused == nil; i++ {
		res := anon.Get("/api/v0/drivers")
		if res.Status == http.StatusTooManyRequests {
			anonRefused = res
			break
		}
		res.ExpectError(http.StatusUnauthorized, "Unauthorized")
		if i == 0 {
			checkHeaders(res, 60)
		}
	}
	if anonRefused == nil {
		t.Fatal("unauthenticated requests never refused")
	}
	anonRefused.ExpectError(http.StatusTooManyRequests, "RateLimitExceeded")
	// Health endpoints are never limited.
	for i := 0; i < 5; i++ {
		if res, err := http.Get(env.Server.URL + "/healthz"); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("healthz: %v %v", err, res)
		}
	}
}

// ---- §10 audit ----------------------------------------------------------------

func TestAcceptanceAudit(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	hr.Header.Set("User-Agent", "acceptance-suite/1.0")
	admin := env.As(company, auth.RoleAdmin)

	type logRow struct {
		ID         uuid.UUID      `json:"id"`
		EntityType string         `json:"entity_type"`
		EntityID   uuid.UUID      `json:"entity_id"`
		UserID     *uuid.UUID     `json:"user_id"`
		User       *string        `json:"user"`
		Action     string         `json:"action"`
		OldValues  map[string]any `json:"old_values"`
		NewValues  map[string]any `json:"new_values"`
		IPAddress  *string        `json:"ip_address"`
		UserAgent  *string        `json:"user_agent"`
		CreatedAt  time.Time      `json:"created_at"`
	}
	logs := func(q string) []logRow {
		t.Helper()
		var out struct {
			Data  []logRow `json:"data"`
			Total int      `json:"total"`
		}
		admin.Get("/api/v0/audit-logs?" + q).Expect(http.StatusOK).Decode(&out)
		if out.Total < len(out.Data) {
			t.Fatalf("total %d < %d rows", out.Total, len(out.Data))
		}
		return out.Data
	}

	start := time.Now().UTC().Add(-time.Second)
	d := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@firma.cz", "phone": "111"})
	hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"phone": "222", "last_name": "Novák"}).Expect(http.StatusOK)
	hr.Put("/api/v0/drivers/"+d.ID.String(), map[string]any{"phone": "333", "email": "bad"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	doc := documentID(t, env, d.ID, "passport")
	f := mustUpload(t, hr, doc, filePart("p.pdf", samplePDF(t, 100)), field("valid_until", "2099-01-01"))
	hr.Put("/api/v0/documents/"+doc.String(), map[string]any{"number": "P1"}).Expect(http.StatusOK)
	hr.Delete("/api/v0/drivers/" + d.ID.String()).Expect(http.StatusNoContent)

	rows := logs("entity_id=" + d.ID.String())
	if len(rows) != 3 {
		t.Fatalf("%d driver rows, want created, updated, deleted: %+v", len(rows), rows)
	}
	// Newest first.
	del, upd, cre := rows[0], rows[1], rows[2]
	if cre.Action != "created" || upd.Action != "updated" || del.Action != "deleted" {
		t.Fatalf("actions %s, %s, %s", cre.Action, upd.Action, del.Action)
	}
	for _, r := range rows {
		if r.EntityType != "driver" || r.UserID == nil || *r.UserID != hr.UserID || r.User == nil || *r.User == "" ||
			r.IPAddress == nil || r.UserAgent == nil || *r.UserAgent != "acceptance-suite/1.0" || r.CreatedAt.Before(start) {
			t.Errorf("row %+v", r)
		}
	}
	if cre.NewValues["email"] != "jan@firma.cz" || cre.NewValues["phone"] != "111" {
		t.Errorf("created new_values %v", cre.NewValues)
	}
	if len(upd.NewValues) != 1 || upd.NewValues["phone"] != "222" || upd.OldValues["phone"] != "111" || len(upd.OldValues) != 1 {
		t.Errorf("updated: old %v new %v (only the changed field expected)", upd.OldValues, upd.NewValues)
	}

	docRows := logs("entity_type=document&entity_id=" + doc.String())
	if len(docRows) != 2 || docRows[1].Action != "document.uploaded" {
		t.Fatalf("document rows %+v", docRows)
	}
	if docRows[0].Action != "document.updated" || docRows[0].NewValues["number"] != "P1" || len(docRows[0].NewValues) != 1 {
		t.Errorf("document update row %+v", docRows[0])
	}
	_ = f

	t.Run("filters", func(t *testing.T) {
		if got := logs("entity_type=driver"); len(got) != 3 {
			t.Errorf("entity_type=driver: %d", len(got))
		}
		if got := logs("user_id=" + hr.UserID.String()); len(got) != 5 {
			t.Errorf("user_id: %d", len(got))
		}
		if got := logs("user_id=" + admin.UserID.String()); len(got) != 0 {
			t.Errorf("user_id of admin: %d", len(got))
		}
		from := url.QueryEscape(start.Format(time.RFC3339))
		if got := logs("from=" + from); len(got) != 5 {
			t.Errorf("from: %d", len(got))
		}
		if got := logs("to=" + url.QueryEscape(start.Format(time.RFC3339))); len(got) != 0 {
			t.Errorf("to before everything: %d", len(got))
		}
		today := time.Now().UTC().Format(time.DateOnly)
		if got := logs("from=" + today + "&to=" + today); len(got) != 5 {
			t.Errorf("from=to=today: %d", len(got))
		}
		if got := logs("entity_type=driver,document"); len(got) != 5 {
			t.Errorf("entity_type=driver,document: %d", len(got))
		}
		if got := logs("entity_id=" + d.ID.String() + "," + doc.String() + "&entity_type=document"); len(got) != 2 {
			t.Errorf("entity_id OR, entity_type AND: %d", len(got))
		}
		if got := logs("user_id=" + admin.UserID.String() + "," + hr.UserID.String()); len(got) != 5 {
			t.Errorf("user_id OR: %d", len(got))
		}
		admin.Get("/api/v0/audit-logs?entity_type=driver,nonsense").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		admin.Get("/api/v0/audit-logs?entity_type=nonsense").ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		admin.Get("/api/v0/audit-logs?entity_id=nope").ExpectError(http.StatusBadRequest, "BadRequest")
		admin.Get("/api/v0/audit-logs?from=yesterday").ExpectError(http.StatusBadRequest, "BadRequest")
	})
	t.Run("role check comes before query errors", func(t *testing.T) {
		for _, r := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
			c := env.As(company, r)
			for _, q := range []string{"", "?page=abc", "?entity_id=nope", "?entity_type=nonsense", "?from=yesterday"} {
				c.Get("/api/v0/audit-logs"+q).ExpectError(http.StatusForbidden, "Forbidden")
			}
		}
	})
	t.Run("tenancy", func(t *testing.T) {
		other := env.Company("Other", "free")
		var out struct {
			Total int `json:"total"`
		}
		env.As(other, auth.RoleAdmin).Get("/api/v0/audit-logs").Expect(http.StatusOK).Decode(&out)
		if out.Total != 0 {
			t.Fatalf("another company sees %d rows", out.Total)
		}
	})
}

// ---- §3 and §4 for finance, penalties and rating ---------------------------

// TestAcceptanceMatrixOtherAreas holds the finance, penalty and rating
// routes to the permission matrix: a role without the grant gets 403
// Forbidden (also for a malformed id or query, which come later in the
// order), a driver touching another driver gets 403 AccessDenied, and a
// role with the grant is never refused.
func TestAcceptanceMatrixOtherAreas(t *testing.T) {
	t.Parallel()
	w := newAccWorld(t)
	hr, admin := w.callers[auth.RoleHRManager], w.callers[auth.RoleAdmin]
	today := civil.DateOf(time.Now().In(mustZone(t, "Europe/Prague")))
	month := today.String()[:7]
	txFor := func(driver uuid.UUID) string {
		hr := hr
		if driver == w.foreign {
			hr = w.otherAdmin
		}
		return hr.Post("/api/v0/drivers/"+driver.String()+"/finance", map[string]any{"transaction_type": "bonus", "amount": "100.00",
			"transaction_date": today.String()}).Expect(http.StatusCreated).JSON()["id"].(string)
	}
	penFor := func(driver uuid.UUID) string {
		hr := hr
		if driver == w.foreign {
			hr = w.otherAdmin
		}
		return hr.Post("/api/v0/drivers/"+driver.String()+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "500.00",
			"incident_date": today.String(), "description": "fast"}).Expect(http.StatusCreated).JSON()["id"].(string)
	}
	periodOf := func(driver uuid.UUID) string {
		hr := hr
		if driver == w.foreign {
			hr = w.otherAdmin
		}
		data := hr.Get("/api/v0/drivers/" + driver.String() + "/finance/periods").Expect(http.StatusOK).JSON()["data"].([]any)
		return data[0].(map[string]any)["id"].(string)
	}
	ownTx, peerTx := txFor(w.own), txFor(w.peer)
	ownPen, peerPen := penFor(w.own), penFor(w.peer)
	ownPeriod, peerPeriod := periodOf(w.own), periodOf(w.peer)
	forTx, forPen := txFor(w.foreign), penFor(w.foreign)
	ids := map[uuid.UUID]struct{ tx, pen, period string }{w.own: {ownTx, ownPen, ownPeriod}, w.peer: {peerTx, peerPen, peerPeriod},
		w.foreign: {forTx, forPen, periodOf(w.foreign)}}

	type route struct {
		name, method string
		path         func(driver uuid.UUID) string
		body         any
		grant        map[auth.Role]auth.Grant // roles not listed: Deny
		mutates      bool                     // allowed roles are not sent (state would change)
	}
	all := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleHRManager: auth.All, auth.RoleAccountant: auth.All, auth.RoleDispatcher: auth.All, auth.RoleDriver: auth.Own}
	finRead := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleHRManager: auth.All, auth.RoleAccountant: auth.All, auth.RoleDriver: auth.Own}
	finWrite := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleHRManager: auth.All, auth.RoleAccountant: auth.All}
	adminHR := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleHRManager: auth.All}
	periods := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleAccountant: auth.All}
	respond := map[auth.Role]auth.Grant{auth.RoleAdmin: auth.All, auth.RoleHRManager: auth.All, auth.RoleDriver: auth.Own}
	p := func(format string) func(uuid.UUID) string {
		return func(d uuid.UUID) string {
			r := strings.NewReplacer("{d}", d.String(), "{tx}", ids[d].tx, "{pen}", ids[d].pen, "{period}", ids[d].period)
			return r.Replace(format)
		}
	}
	routes := []route{
		{"finance list", "GET", p("/api/v0/drivers/{d}/finance"), nil, finRead, false},
		{"finance create", "POST", p("/api/v0/drivers/{d}/finance"), map[string]any{"transaction_type": "bonus", "amount": "1.00", "transaction_date": today.String()}, finWrite, true},
		{"finance update", "PUT", p("/api/v0/drivers/{d}/finance/{tx}"), map[string]any{"description": "x"}, finWrite, true},
		{"finance delete", "DELETE", p("/api/v0/drivers/{d}/finance/{tx}"), nil, adminHR, true},
		{"periods", "GET", p("/api/v0/drivers/{d}/finance/periods"), nil, finRead, false},
		{"aggregates", "GET", p("/api/v0/drivers/{d}/finance/aggregates"), nil, finRead, false},
		{"period close", "POST", p("/api/v0/drivers/{d}/finance/periods/{period}/close"), nil, periods, true},
		{"period pay", "POST", p("/api/v0/drivers/{d}/finance/periods/{period}/pay"), nil, periods, true},
		{"period reopen", "POST", p("/api/v0/drivers/{d}/finance/periods/{period}/reopen"), map[string]any{"reason": "x"}, periods, true},
		{"penalty list", "GET", p("/api/v0/drivers/{d}/penalties"), nil, finRead, false},
		{"penalty read", "GET", p("/api/v0/drivers/{d}/penalties/{pen}"), nil, finRead, false},
		{"penalty create", "POST", p("/api/v0/drivers/{d}/penalties"), map[string]any{"penalty_type": "other", "amount": "1.00", "incident_date": today.String(), "description": "x"}, adminHR, true},
		{"penalty dispute", "PUT", p("/api/v0/drivers/{d}/penalties/{pen}/dispute"), map[string]any{"dispute_reason": "not me"}, respond, true},
		{"penalty accept", "PUT", p("/api/v0/drivers/{d}/penalties/{pen}/accept"), map[string]any{}, respond, true},
		{"penalty resolve", "PUT", p("/api/v0/drivers/{d}/penalties/{pen}/resolve"), map[string]any{"resolution_action": "keep", "resolution": "ok"}, adminHR, true},
		{"rating", "GET", p("/api/v0/drivers/{d}/rating"), nil, all, false},
		{"rating history", "GET", p("/api/v0/drivers/{d}/rating/history"), nil, all, false},
		{"rating calculate", "POST", p("/api/v0/drivers/{d}/rating/calculate"), map[string]any{"period": month}, adminHR, false},
	}
	for _, r := range routes {
		t.Run(r.name, func(t *testing.T) {
			for _, role := range accRoles {
				c := w.callers[role]
				grant := r.grant[role]
				send := func(path string, body any) *webtest.Response { return c.Do(r.method, path, body) }
				switch grant {
				case auth.Deny:
					accSoft(t, send(r.path(w.peer), r.body), http.StatusForbidden, "Forbidden")
					accSoft(t, send(r.path(w.foreign), r.body), http.StatusForbidden, "Forbidden")
					// Malformed ids, queries and bodies after the role check
					// are the finance auditor's (acceptance_b_test.go).
				case auth.Own:
					accSoft(t, send(r.path(w.peer), r.body), http.StatusForbidden, "AccessDenied")
					if !r.mutates {
						if res := send(r.path(w.own), r.body); res.Status != http.StatusOK {
							t.Errorf("driver on its own record: %d %s", res.Status, res.Body)
						}
					}
				case auth.All:
					accSoft(t, send(r.path(w.foreign), r.body), http.StatusForbidden, "AccessDenied")
					if !r.mutates {
						if res := send(r.path(w.peer), r.body); res.Status != http.StatusOK {
							t.Errorf("%s: %d %s", role, res.Status, res.Body)
						}
					}
				}
			}
		})
	}
	t.Run("rating configuration and ranking", func(t *testing.T) {
		cfg := "/api/v0/companies/" + w.company.String() + "/rating-config"
		for _, r := range accRoles {
			w.callers[r].Get(cfg).Expect(http.StatusOK)
			w.callers[r].Get("/api/v0/ratings").Expect(http.StatusOK)
		}
		body := map[string]any{"metrics": []any{map[string]any{"metric_name": "activity", "weight": 10}}}
		for _, r := range []auth.Role{auth.RoleAccountant, auth.RoleDispatcher, auth.RoleDriver} {
			accSoft(t, w.callers[r].Put(cfg, body), http.StatusForbidden, "Forbidden")
		}
		admin.Put(cfg, body).Expect(http.StatusOK)
		accSoft(t, admin.Put("/api/v0/companies/"+w.other.String()+"/rating-config", body), http.StatusForbidden, "AccessDenied")
	})
}

// accSoft reports a wrong status or error name without stopping the test,
// so one run lists every deviation.
func accSoft(t *testing.T, r *webtest.Response, status int, name string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("status %d, want %d %s: %s", r.Status, status, name, r.Body)
		return
	}
	if got := r.JSON()["error"]; got != name {
		t.Errorf("error %v, want %s: %s", got, name, r.Body)
	}
}
