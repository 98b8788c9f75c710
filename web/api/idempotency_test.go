package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/idempotency"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/api/openapi"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// postKeyed sends a JSON POST with an Idempotency-Key.
func postKeyed(c *webtest.Caller, path, key, body string) *webtest.Response {
	h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {key}}
	return c.Send(http.MethodPost, path, strings.NewReader(body), h)
}

func driversNamed(t *testing.T, env *webtest.Env, company uuid.UUID, email string) int {
	t.Helper()
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM drivers WHERE company_id = $1 AND email = $2`,
		company, email).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIdempotencyKey: a POST repeated with the same key creates one driver
// and the repeat is the stored answer, marked replayed; the key with
// another body is 422; a bad key is 422; keys of two companies do not
// collide; a multipart upload is replayed too.
func TestIdempotencyKey(t *testing.T) {
	env := webtest.New(t)
	a, b := env.Company("Acme", "free"), env.Company("Beta", "free")
	hrA, hrB := env.As(a, auth.RoleHRManager), env.As(b, auth.RoleHRManager)
	body := `{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.test"}`

	first := postKeyed(hrA, "/api/v0/drivers", "create-jan-1", body).Expect(http.StatusCreated)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the first answer is marked replayed")
	}
	again := postKeyed(hrA, "/api/v0/drivers", "create-jan-1", body).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the repeat lacks Idempotent-Replayed: true (headers %v)", again.Header)
	}
	if !bytes.Equal(first.Body, again.Body) {
		t.Errorf("the replay differs:\n%s\n%s", first.Body, again.Body)
	}
	if n := driversNamed(t, env, a, "jan@example.test"); n != 1 {
		t.Fatalf("%d drivers created, want 1", n)
	}

	// The same key with another body, path or user is 422.
	postKeyed(hrA, "/api/v0/drivers", "create-jan-1", `{"first_name": "Jan", "last_name": "Novák", "email": "jan2@example.test"}`).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	postKeyed(env.As(a, auth.RoleAdmin), "/api/v0/drivers", "create-jan-1", body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if n := driversNamed(t, env, a, "jan2@example.test"); n != 0 {
		t.Fatalf("a reused key created a driver")
	}

	// Malformed keys: empty, too long, not printable.
	for _, key := range []string{"", strings.Repeat("k", 256), "tab\there", "é"} {
		m := postKeyed(hrA, "/api/v0/drivers", key, body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if errs, _ := m["errors"].(map[string]any); errs["Idempotency-Key"] == nil {
			t.Errorf("key %q: 422 without the header's field: %v", key, m)
		}
	}
	postKeyed(hrA, "/api/v0/drivers", strings.Repeat("k", 255), `{"first_name": "Long", "last_name": "Key", "email": "long@example.test"}`).
		Expect(http.StatusCreated)

	// Company B's same key is its own.
	postKeyed(hrB, "/api/v0/drivers", "create-jan-1", body).Expect(http.StatusCreated)
	if again := postKeyed(hrB, "/api/v0/drivers", "create-jan-1", body).Expect(http.StatusCreated); again.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("company B's repeat is not replayed")
	}
	if n := driversNamed(t, env, b, "jan@example.test"); n != 1 {
		t.Fatalf("company B: %d drivers, want 1", n)
	}

	// An error answer is kept as well: the repeat of a 409 is the same 409.
	dup := postKeyed(hrA, "/api/v0/drivers", "dup-1", body).ExpectError(http.StatusConflict, "DuplicateEntry")
	if r := postKeyed(hrA, "/api/v0/drivers", "dup-1", body); r.Status != http.StatusConflict || r.Header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the repeat of a 409 answered %d (replayed %q), not the stored 409 %v", r.Status, r.Header.Get("Idempotent-Replayed"), dup)
	}

	// A multipart upload: its body is hashed as it streams.
	var d drvItem
	first.Decode(&d)
	var full struct {
		Documents []struct {
			ID uuid.UUID `json:"id"`
		} `json:"documents"`
	}
	hrA.Get("/api/v0/drivers/" + d.ID.String()).Expect(http.StatusOK).Decode(&full)
	upload := "/api/v0/documents/" + full.Documents[0].ID.String() + "/files"
	raw, h := webtest.PDFUpload("passport.pdf")
	payload := raw.Bytes()
	h.Set("Idempotency-Key", "upload-1")
	up1 := hrA.Send(http.MethodPost, upload, bytes.NewReader(payload), h).Expect(http.StatusCreated)
	up2 := hrA.Send(http.MethodPost, upload, bytes.NewReader(payload), h).Expect(http.StatusCreated)
	if up2.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(up1.Body, up2.Body) {
		t.Errorf("the repeated upload was not replayed: %s / %s", up1.Body, up2.Body)
	}
	var versions int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM document_files WHERE document_id = $1`,
		full.Documents[0].ID).Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if versions != 1 {
		t.Errorf("the repeated upload stored %d versions, want 1", versions)
	}
	other, h2 := webtest.PDFUpload("other.pdf")
	h2.Set("Idempotency-Key", "upload-1")
	hrA.Send(http.MethodPost, upload, other, h2).ExpectError(http.StatusUnprocessableEntity, "ValidationError")

	// A POST without a key is not affected, and a GET ignores the header.
	hrA.Get("/api/v0/drivers").Expect(http.StatusOK)
}

// TestIdempotencyKeyConcurrent: requests with one key sent at once create
// one driver; each answer is the 201, the replayed 201 or 409.
func TestIdempotencyKeyConcurrent(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	for round := range 3 {
		key := fmt.Sprintf("race-%d", round)
		email := fmt.Sprintf("race%d@example.test", round)
		body := fmt.Sprintf(`{"first_name": "Race", "last_name": "Condition", "email": %q}`, email)
		var wg sync.WaitGroup
		type answer struct {
			status   int
			replayed bool
			name     string
		}
		answers := make([]answer, 6)
		for i := range answers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodPost, env.Server.URL+"/api/v0/drivers", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+hr.Token)
				req.Header.Set("Idempotency-Key", key)
				res, err := env.Server.Client().Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				defer res.Body.Close()
				raw, _ := io.ReadAll(res.Body)
				var m map[string]any
				_ = json.Unmarshal(raw, &m)
				name, _ := m["error"].(string)
				answers[i] = answer{res.StatusCode, res.Header.Get("Idempotent-Replayed") == "true", name}
			}()
		}
		wg.Wait()
		fresh := 0
		for _, a := range answers {
			switch {
			case a.status == http.StatusCreated && !a.replayed:
				fresh++
			case a.status == http.StatusCreated && a.replayed:
			case a.status == http.StatusConflict && a.name == "Conflict":
			default:
				t.Errorf("round %d: an answer %d %q (replayed %v)", round, a.status, a.name, a.replayed)
			}
		}
		if fresh != 1 {
			t.Errorf("round %d: %d requests ran, want 1 (answers %v)", round, fresh, answers)
		}
		if n := driversNamed(t, env, company, email); n != 1 {
			t.Errorf("round %d: %d drivers created, want 1", round, n)
		}
	}
}

// TestEveryPostTakesIdempotencyKey walks the OpenAPI document: every POST
// documents the Idempotency-Key header and the 409 and 422 it may bring.
func TestEveryPostTakesIdempotencyKey(t *testing.T) {
	raw, err := openapi.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]struct {
			Post *struct {
				Parameters []map[string]any `json:"parameters"`
				Responses  map[string]any   `json:"responses"`
			} `json:"post"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	posts := 0
	for path, item := range doc.Paths {
		op := item.Post
		if op == nil {
			continue
		}
		posts++
		found := false
		for _, p := range op.Parameters {
			if p["$ref"] == "#/components/parameters/IdempotencyKey" {
				found = true
			}
		}
		if !found {
			t.Errorf("POST %s does not document the Idempotency-Key header", path)
		}
		for _, status := range []string{"409", "422"} {
			if op.Responses[status] == nil {
				t.Errorf("POST %s does not document %s", path, status)
			}
		}
	}
	if posts < 10 {
		t.Fatalf("found only %d POST operations", posts)
	}
}

// TestIdempotentReplayKeepsTheRole: a kept answer is served only to the
// user and role that made it. An admin creates a driver with a key; the
// same user's token with the role driver (which may not create or read
// drivers) sending the same request with the key gets no replay of the
// driver and its personal fields: a key bound to another role is another
// request, 422, and nothing is created. The admin's own repeat still
// replays.
func TestIdempotentReplayKeepsTheRole(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	asRole := func(role auth.Role) *webtest.Caller {
		c := env.WithToken(env.Sign(jwt.MapClaims{
			"sub": admin.UserID.String(), "email": admin.Email, "aud": "authenticated", "role": "authenticated",
			"app_metadata":  map[string]any{"company_id": company.String()},
			"user_metadata": map[string]any{"role": string(role), "first_name": "Test", "last_name": string(role)},
		}))
		c.UserID, c.CompanyID, c.Role, c.Email = admin.UserID, company, role, admin.Email
		return c
	}
	body := `{"first_name": "Eva", "last_name": "Dvořáková", "email": "eva@example.test", "rodne_cislo": "855314/1234"}`
	first := postKeyed(admin, "/api/v0/drivers", "role-bound-1", body).Expect(http.StatusCreated)
	var d drvItem
	first.Decode(&d)

	driver := asRole(auth.RoleDriver)
	// Without the key the role check refuses the driver, as it should.
	driver.Post("/api/v0/drivers", body).ExpectError(http.StatusForbidden, "Forbidden")
	// With the key, no replay for the other role.
	res := postKeyed(driver, "/api/v0/drivers", "role-bound-1", body)
	if res.Status == http.StatusCreated || res.Header.Get("Idempotent-Replayed") != "" ||
		bytes.Contains(res.Body, []byte(d.ID.String())) || bytes.Contains(res.Body, []byte("855314/1234")) {
		t.Fatalf("a driver token replayed the admin's answer: %d (replayed %q) %s", res.Status, res.Header.Get("Idempotent-Replayed"), res.Body)
	}
	res.ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// Nor for a role that may create drivers: the key is the admin's.
	postKeyed(asRole(auth.RoleHRManager), "/api/v0/drivers", "role-bound-1", body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if n := driversNamed(t, env, company, "eva@example.test"); n != 1 {
		t.Fatalf("%d drivers, want 1", n)
	}
	// The user with the role that made the key gets its answer back.
	again := postKeyed(asRole(auth.RoleAdmin), "/api/v0/drivers", "role-bound-1", body).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, first.Body) {
		t.Errorf("the admin's repeat was not replayed: %s", again.Body)
	}
}

// firstDocument creates a driver and returns its first document's upload
// path.
func firstDocument(t *testing.T, c *webtest.Caller, email string) string {
	t.Helper()
	var d drvItem
	c.Post("/api/v0/drivers", fmt.Sprintf(`{"first_name": "Jan", "last_name": "Novák", "email": %q}`, email)).
		Expect(http.StatusCreated).Decode(&d)
	var full struct {
		Documents []struct {
			ID uuid.UUID `json:"id"`
		} `json:"documents"`
	}
	c.Get("/api/v0/drivers/" + d.ID.String()).Expect(http.StatusOK).Decode(&full)
	return "/api/v0/documents/" + full.Documents[0].ID.String() + "/files"
}

// slowUpload is an upload under a key whose body the test sends in two
// halves: the request runs (its key claimed) until the second half is sent.
type slowUpload struct {
	w    *io.PipeWriter
	rest []byte
	done chan *http.Response
}

// startSlowUpload sends the first half of payload and waits until the
// server has claimed the key.
func startSlowUpload(t *testing.T, env *webtest.Env, c *webtest.Caller, path, key string, payload []byte, h http.Header) *slowUpload {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequest(http.MethodPost, env.Server.URL+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = int64(len(payload))
	req.Header = h.Clone()
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Idempotency-Key", key)
	u := &slowUpload{w: pw, rest: payload[len(payload)/2:], done: make(chan *http.Response, 1)}
	// A test that fails half-way must not leave the request hanging (the
	// server's Close would wait for it).
	t.Cleanup(func() { _ = pw.CloseWithError(io.ErrUnexpectedEOF) })
	go func() {
		res, err := env.Server.Client().Do(req)
		if err != nil {
			t.Errorf("slow upload: %v", err)
			u.done <- nil
			return
		}
		u.done <- res
	}()
	if _, err := pw.Write(payload[:len(payload)/2]); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		var n int
		if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM idempotency_keys WHERE company_id = $1 AND key = $2 AND status IS NULL`,
			c.CompanyID, key).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 1 {
			return u
		}
		if i == 500 {
			t.Fatal("the slow upload's key was never claimed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// finish sends the rest of the body and returns the answer.
func (u *slowUpload) finish(t *testing.T) (int, []byte) {
	t.Helper()
	if _, err := u.w.Write(u.rest); err != nil {
		t.Fatal(err)
	}
	_ = u.w.Close()
	res := <-u.done
	if res == nil {
		t.FailNow()
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// claimedAgo moves the claim of a key back in time, as if its request had
// been running that long.
func claimedAgo(t *testing.T, env *webtest.Env, company uuid.UUID, key string, ago time.Duration) {
	t.Helper()
	if _, err := env.DB.Exec(context.Background(), `UPDATE idempotency_keys SET created_at = now() - $3::interval
		WHERE company_id = $1 AND key = $2`, company, key, ago.String()); err != nil {
		t.Fatal(err)
	}
}

func fileVersions(t *testing.T, env *webtest.Env, uploadPath string) int {
	t.Helper()
	doc := strings.TrimSuffix(strings.TrimPrefix(uploadPath, "/api/v0/documents/"), "/files")
	var n int
	if err := env.DB.QueryRow(context.Background(), `SELECT count(*) FROM document_files WHERE document_id = $1`, doc).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestIdempotencyTakeoverWaitsForTheLongestRequest: an upload may run for
// the upload deadline (15 minutes), so a key whose first request has run
// for 615 s is still running: a repeat then is 409 and runs nothing, and
// the first request's upload is the one version. A key left running by a
// server that stopped is taken over only once the longest request would
// have been cut off, and then the repeat runs.
func TestIdempotencyTakeoverWaitsForTheLongestRequest(t *testing.T) {
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	upload := firstDocument(t, hr, "slow@example.test")
	raw, h := webtest.PDFUpload("passport.pdf")
	payload := raw.Bytes()

	original := startSlowUpload(t, env, hr, upload, "slow-upload-1", payload, h)
	claimedAgo(t, env, company, "slow-upload-1", 615*time.Second)
	h2 := h.Clone()
	h2.Set("Idempotency-Key", "slow-upload-1")
	hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).ExpectError(http.StatusConflict, "Conflict")
	if n := fileVersions(t, env, upload); n != 0 {
		t.Fatalf("the repeat while the upload runs stored %d versions", n)
	}
	claimedAgo(t, env, company, "slow-upload-1", web.DefaultDeadlines.Upload+time.Second)
	hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).ExpectError(http.StatusConflict, "Conflict")
	if status, body := original.finish(t); status != http.StatusCreated {
		t.Fatalf("the original upload answered %d %s", status, body)
	}
	if n := fileVersions(t, env, upload); n != 1 {
		t.Fatalf("%d versions, want 1", n)
	}

	// A key left running (its server stopped): taken over after the
	// longest deadline and the margin, and not before.
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO idempotency_keys (company_id, key, user_id, method, path, expires_at)
		VALUES ($1, 'left-running', $2, 'POST', $3, now() + interval '1 day')`, company, hr.UserID, upload); err != nil {
		t.Fatal(err)
	}
	h2.Set("Idempotency-Key", "left-running")
	claimedAgo(t, env, company, "left-running", idempotency.AbandonedAfter(web.DefaultDeadlines.Longest())-time.Minute)
	hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).ExpectError(http.StatusConflict, "Conflict")
	claimedAgo(t, env, company, "left-running", idempotency.AbandonedAfter(web.DefaultDeadlines.Longest())+time.Second)
	if r := hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).Expect(http.StatusCreated); r.Header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the taken-over key answered a replay")
	}
	if n := fileVersions(t, env, upload); n != 2 {
		t.Fatalf("%d versions after the takeover, want 2", n)
	}
}

// TestIdempotencyOriginalCannotCommitAfterTakeover: a request under a key
// runs no longer than the longest request deadline (here made one second),
// so once its key may be taken over it can no longer change anything. The
// first upload stalls past its deadline; its key, moved back in time, is
// taken over by a repeat, which stores the one version; when the first
// upload's body then arrives, it neither stores a second version nor
// replaces the kept answer, which stays the repeat's.
func TestIdempotencyOriginalCannotCommitAfterTakeover(t *testing.T) {
	env := webtest.New(t, webtest.WithApp(func(o *app.Options) {
		o.Server.Deadlines = web.Deadlines{Whole: time.Second, Upload: time.Second}
	}))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	upload := firstDocument(t, hr, "stalled@example.test")
	raw, h := webtest.PDFUpload("passport.pdf")
	payload := raw.Bytes()

	original := startSlowUpload(t, env, hr, upload, "stalled-1", payload, h)
	time.Sleep(1500 * time.Millisecond) // past the original's deadline
	claimedAgo(t, env, company, "stalled-1", 11*time.Minute)
	h2 := h.Clone()
	h2.Set("Idempotency-Key", "stalled-1")
	retry := hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).Expect(http.StatusCreated)
	if retry.Header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("the takeover answered a replay")
	}
	if status, body := original.finish(t); status < 300 {
		t.Errorf("the original, cut off by its deadline, answered %d %s", status, body)
	}
	if n := fileVersions(t, env, upload); n != 1 {
		t.Errorf("%d versions, want 1: the original committed after the takeover", n)
	}
	again := hr.Send(http.MethodPost, upload, bytes.NewReader(payload), h2).Expect(http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Body, retry.Body) {
		t.Errorf("the kept answer is not the repeat's: %s / %s", again.Body, retry.Body)
	}
}
