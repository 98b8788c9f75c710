package api_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// rawGet sends a GET with the given headers through a client that neither
// asks for nor decodes compression, and returns the answer as sent.
func rawGet(t *testing.T, env *webtest.Env, path string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

func gunzip(t *testing.T, b []byte) []byte {
	t.Helper()
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	return out
}

func unbrotli(t *testing.T, b []byte) []byte {
	t.Helper()
	out, err := io.ReadAll(brotli.NewReader(bytes.NewReader(b)))
	if err != nil {
		t.Fatalf("brotli: %v", err)
	}
	return out
}

// TestCompression: answers of 1 KiB or more of the compressed types (JSON
// of the API, pages' styles) go out in gzip or brotli when the request
// accepts it, and decode to the bytes a client that does not ask gets;
// small answers, requests that do not accept it, range requests and file
// downloads (a PDF) go out as they are.
func TestCompression(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	admin := env.As(company, auth.RoleAdmin)
	var drv struct{ ID uuid.UUID }
	admin.Post("/api/v0/drivers", map[string]any{"first_name": "Eva", "last_name": "Malá", "email": "eva.mala@example.test"}).
		Expect(http.StatusCreated).Decode(&drv)
	bearer := map[string]string{"Authorization": "Bearer " + admin.Token}
	with := func(enc string) map[string]string {
		h := map[string]string{"Authorization": bearer["Authorization"]}
		if enc != "" {
			h["Accept-Encoding"] = enc
		}
		return h
	}

	for _, path := range []string{"/api/v0/drivers/" + drv.ID.String() + "/documents", "/api/v0/openapi.json", "/static/apidocs/swagger-ui.css"} {
		plainRes, plain := rawGet(t, env, path, with(""))
		if plainRes.StatusCode != http.StatusOK || len(plain) < 1024 {
			t.Fatalf("%s: status %d, %d bytes: the test needs an answer of 1 KiB or more", path, plainRes.StatusCode, len(plain))
		}
		if ce := plainRes.Header.Get("Content-Encoding"); ce != "" {
			t.Errorf("%s without Accept-Encoding: Content-Encoding %q", path, ce)
		}
		for _, c := range []struct {
			accept, want string
			decode       func(*testing.T, []byte) []byte
		}{
			{"gzip", "gzip", gunzip},
			{"br", "br", unbrotli},
			{"gzip, deflate, br", "br", unbrotli},
		} {
			res, body := rawGet(t, env, path, with(c.accept))
			if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != c.want {
				t.Errorf("%s, Accept-Encoding %s: status %d, Content-Encoding %q, want %s", path, c.accept, res.StatusCode,
					res.Header.Get("Content-Encoding"), c.want)
				continue
			}
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
				t.Errorf("%s, %s: Vary %q", path, c.accept, res.Header.Get("Vary"))
			}
			if res.Header.Get("Content-Type") != plainRes.Header.Get("Content-Type") {
				t.Errorf("%s, %s: Content-Type %q, plain %q", path, c.accept, res.Header.Get("Content-Type"), plainRes.Header.Get("Content-Type"))
			}
			if len(body) >= len(plain) {
				t.Errorf("%s, %s: %d bytes, plain %d", path, c.accept, len(body), len(plain))
			}
			if got := c.decode(t, body); !bytes.Equal(got, plain) {
				t.Errorf("%s, %s: decodes to %d bytes that differ from the plain %d", path, c.accept, len(got), len(plain))
			}
		}
	}

	// A small answer, and a range of a style sheet, go out as they are.
	if res, body := rawGet(t, env, "/healthz", with("gzip, br")); res.Header.Get("Content-Encoding") != "" || !strings.Contains(string(body), "ok") {
		t.Errorf("small answer: Content-Encoding %q, body %q", res.Header.Get("Content-Encoding"), body)
	}
	rng := with("gzip, br")
	rng["Range"] = "bytes=0-99"
	if res, body := rawGet(t, env, "/static/apidocs/swagger-ui.css", rng); res.StatusCode != http.StatusPartialContent ||
		res.Header.Get("Content-Encoding") != "" || len(body) != 100 {
		t.Errorf("range: status %d, Content-Encoding %q, %d bytes", res.StatusCode, res.Header.Get("Content-Encoding"), len(body))
	}

	// A PDF download is sent as stored, with its length and strong ETag.
	var docs struct{ Data []struct{ ID uuid.UUID } }
	admin.Get("/api/v0/drivers/" + drv.ID.String() + "/documents").Expect(http.StatusOK).Decode(&docs)
	pdf := []byte("%PDF-1.7\n" + strings.Repeat("% compressible padding\n", 400))
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "scan.pdf")
	_, _ = fw.Write(pdf)
	_ = mw.Close()
	var file struct{ ID uuid.UUID }
	admin.Send(http.MethodPost, "/api/v0/documents/"+docs.Data[0].ID.String()+"/files", &buf,
		http.Header{"Content-Type": {mw.FormDataContentType()}}).Expect(http.StatusCreated).Decode(&file)
	res, body := rawGet(t, env, "/api/v0/files/"+file.ID.String()+"/download", with("gzip, br"))
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Encoding") != "" || !bytes.Equal(body, pdf) ||
		res.ContentLength != int64(len(pdf)) || strings.HasPrefix(res.Header.Get("ETag"), "W/") || res.Header.Get("ETag") == "" {
		t.Errorf("PDF download: status %d, Content-Encoding %q, Content-Length %d, ETag %q, %d bytes (stored %d)", res.StatusCode,
			res.Header.Get("Content-Encoding"), res.ContentLength, res.Header.Get("ETag"), len(body), len(pdf))
	}
}
