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

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/api/openapi"
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
