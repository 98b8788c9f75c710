package api_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestTextInputRefused: a NUL character or invalid UTF-8 in a JSON body, a
// query value or a multipart field is 422 ValidationError naming the field,
// never a 500 (docs/errors.md); bidi controls leave driver names.
func TestTextInputRefused(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	d := drvCreate(t, hr, map[string]any{"first_name": "Petr", "last_name": "Svoboda", "email": "petr@example.cz"})
	path := "/api/v0/drivers/" + d.ID.String()
	field := func(res map[string]any, name string) {
		t.Helper()
		if errs, _ := res["errors"].(map[string]any); errs[name] == nil {
			t.Errorf("errors has no %q: %v", name, res)
		}
	}

	// JSON bodies: the escape, raw invalid UTF-8 inside a string, nested.
	field(hr.Post("/api/v0/drivers", `{"first_name":"Jan\u0000","last_name":"N","email":"jan@example.cz"}`).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "first_name")
	field(hr.Post("/api/v0/drivers", []byte("{\"first_name\":\"Jan\xff\xfe\",\"last_name\":\"N\",\"email\":\"jan@example.cz\"}")).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "first_name")
	field(hr.Put(path, `{"flags":{"note":"a\u0000b"}}`).ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "flags.note")
	field(hr.Put(path, `{"residence_address":"x\u0000"}`).ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "residence_address")
	// Finance: description and metadata.
	fin := path + "/finance"
	date := time.Now().UTC().Format("2006-01-02")
	for name, body := range map[string]map[string]any{
		"description": {"description": "March\x00"},
		"metadata.k":  {"description": "March", "metadata": map[string]any{"k": "v\x00"}},
	} {
		body["transaction_type"], body["category"], body["amount"], body["currency"], body["transaction_date"] =
			"base_salary", "salary", "10.00", "CZK", date
		field(hr.Post(fin, body).ExpectError(http.StatusUnprocessableEntity, "ValidationError"), name)
	}

	// Query values.
	field(hr.Get("/api/v0/drivers?search=Jan%00").ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "search")
	field(hr.Get("/api/v0/drivers?search=%FF%FE").ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "search")
	// The role still comes first: a dispatcher may not create drivers.
	env.As(company, auth.RoleDispatcher).Post("/api/v0/drivers", `{"first_name":"\u0000"}`).ExpectError(http.StatusForbidden, "Forbidden")

	// Multipart metadata of a document upload.
	var docs []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	}
	hr.Get(path + "/documents").Expect(http.StatusOK).Decode(&struct {
		Data *[]struct {
			ID   string `json:"id"`
			Type string `json:"type"`
		} `json:"data"`
	}{&docs})
	if len(docs) == 0 {
		t.Fatal("no documents")
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	_ = w.WriteField("number", "AB\x00C")
	fw, _ := w.CreateFormFile("file", "scan.pdf")
	_, _ = fw.Write([]byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"))
	_ = w.Close()
	field(hr.Send(http.MethodPost, "/api/v0/documents/"+docs[0].ID+"/files", &buf, http.Header{"Content-Type": {w.FormDataContentType()}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "number")

	// Bidi controls are removed from names.
	got := hr.Put(path, map[string]any{"first_name": "Pe\u202Etr", "last_name": "\u2066Svoboda\u2069"}).Expect(http.StatusOK).JSON()
	if got["first_name"] != "Petr" || got["last_name"] != "Svoboda" {
		t.Errorf("names kept bidi controls: %q %q", got["first_name"], got["last_name"])
	}
}
