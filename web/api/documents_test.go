package api_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/storage"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// ---- fixtures -------------------------------------------------------------

// samplePDF is a file that sniffs as PDF, n bytes long, random after the header.
func samplePDF(t testing.TB, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	copy(b, "%PDF-1.7\n")
	return b
}

func samplePNG() []byte {
	return append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 200)...)
}

// sampleHEIC is the start of an iPhone photo: an ftyp box with brand heic.
func sampleHEIC() []byte {
	return append([]byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), bytes.Repeat([]byte{1}, 300)...)
}

// part is one part of a multipart upload body.
type part struct {
	name, filename, contentType string
	body                        []byte
}

// A filename starting with "*=" is sent as the RFC 5987 parameter filename*.

func filePart(filename string, body []byte) part {
	return part{name: "file", filename: filename, contentType: "application/octet-stream", body: body}
}

func field(name, value string) part { return part{name: name, body: []byte(value)} }

func multipartBody(t testing.TB, parts ...part) (*bytes.Buffer, http.Header) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := fmt.Sprintf(`form-data; name=%q`, p.name)
		if rest, ok := strings.CutPrefix(p.filename, "*="); ok {
			cd += "; filename*=" + rest
		} else if p.filename != "" {
			// Written by hand, as a browser does, so names reach the server
			// exactly as a client may send them.
			cd += `; filename="` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(p.filename) + `"`
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := pw.Write(p.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, http.Header{"Content-Type": {w.FormDataContentType()}}
}

func upload(t testing.TB, c *webtest.Caller, docID uuid.UUID, parts ...part) *webtest.Response {
	t.Helper()
	body, h := multipartBody(t, parts...)
	return c.Send(http.MethodPost, "/api/v0/documents/"+docID.String()+"/files", body, h)
}

// uploadedFile is the 201 answer of an upload.
type uploadedFile struct {
	ID               uuid.UUID `json:"id"`
	DocumentID       uuid.UUID `json:"document_id"`
	Filename         string    `json:"filename"`
	OriginalFilename string    `json:"original_filename"`
	MimeType         string    `json:"mime_type"`
	SizeBytes        int64     `json:"size_bytes"`
	Version          int       `json:"version"`
	IsCurrent        bool      `json:"is_current"`
	StoragePath      string    `json:"storage_path"`
	StorageDisk      string    `json:"storage_disk"`
	HashSHA256       string    `json:"hash_sha256"`
	UploadedBy       uuid.UUID `json:"uploaded_by"`
}

func mustUpload(t testing.TB, c *webtest.Caller, docID uuid.UUID, parts ...part) uploadedFile {
	t.Helper()
	var f uploadedFile
	upload(t, c, docID, parts...).Expect(http.StatusCreated).Decode(&f)
	return f
}

type documentJSON struct {
	ID              uuid.UUID       `json:"id"`
	Type            string          `json:"type"`
	Number          *string         `json:"number"`
	Country         *string         `json:"country"`
	ValidFrom       *string         `json:"valid_from"`
	ValidUntil      *string         `json:"valid_until"`
	Status          string          `json:"status"`
	DaysUntilExpiry *int            `json:"days_until_expiry"`
	Meta            json.RawMessage `json:"meta"`
	Files           []struct {
		ID        uuid.UUID `json:"id"`
		Version   int       `json:"version"`
		IsCurrent bool      `json:"is_current"`
	} `json:"files"`
}

func listDocuments(t testing.TB, c *webtest.Caller, driver uuid.UUID) map[string]documentJSON {
	t.Helper()
	var out struct{ Data []documentJSON }
	c.Get("/api/v0/drivers/" + driver.String() + "/documents").Expect(http.StatusOK).Decode(&out)
	if len(out.Data) != 14 {
		t.Fatalf("%d documents, want 14", len(out.Data))
	}
	m := map[string]documentJSON{}
	for _, d := range out.Data {
		m[d.Type] = d
	}
	return m
}

func documentID(t testing.TB, env *webtest.Env, driver uuid.UUID, docType string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := env.DB.QueryRow(context.Background(),
		`SELECT id FROM driver_documents WHERE driver_id = $1 AND type = $2`, driver, docType).Scan(&id); err != nil {
		t.Fatalf("document %s of driver %s: %v", docType, driver, err)
	}
	return id
}

func count(t testing.TB, env *webtest.Env, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// recordingStore remembers every path a Put was asked for, and fails Puts
// when failPut is set.
type recordingStore struct {
	storage.Store
	mu      sync.Mutex
	puts    []string
	failPut error
}

func (s *recordingStore) Put(ctx context.Context, path string, r io.Reader, size int64, contentType string) error {
	s.mu.Lock()
	s.puts = append(s.puts, path)
	fail := s.failPut
	s.mu.Unlock()
	if fail != nil {
		return fail
	}
	return s.Store.Put(ctx, path, r, size, contentType)
}

func (s *recordingStore) putPaths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.puts)
}

// forEachStore runs test against a server on local storage and one on S3
// (an in-process S3 protocol server), the same assertions for both.
func forEachStore(t *testing.T, test func(t *testing.T, env *webtest.Env, files *recordingStore)) {
	for _, kind := range []string{"local", "s3"} {
		t.Run(kind, func(t *testing.T) {
			var base storage.Store
			if kind == "s3" {
				base = storagetest.NewS3(t)
			} else {
				base = storagetest.NewLocal(t)
			}
			files := &recordingStore{Store: base}
			env := webtest.New(t, webtest.WithApp(func(o *app.Options) { o.Files = files }))
			test(t, env, files)
		})
	}
}

var generatedName = regexp.MustCompile(`^v(\d+)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(pdf|png|jpg|webp|heic|heif)$`)

// ---- upload, versions, download --------------------------------------------

func TestDocumentUploadVersionsAndDownload(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, env *webtest.Env, files *recordingStore) {
		ctx := context.Background()
		company := env.Company("Acme", "free")
		hr := env.As(company, auth.RoleHRManager)
		driver := env.Driver(company)
		docID := documentID(t, env, driver, "drivers_license")

		v1data := samplePDF(t, 300_000)
		// Metadata parts after the file part: the order is free.
		v1 := mustUpload(t, hr, docID, filePart("řidičák.pdf", v1data),
			field("number", "  CZ 123456 "), field("country", "cz"), field("valid_from", "2024-01-15"),
			field("valid_until", "2034-01-14"), field("meta", `{"categories":["B","C","CE"]}`))
		assertNoPending(t, env, docID) // the row's transaction took the pending record
		sum := sha256.Sum256(v1data)
		wantPath := fmt.Sprintf("%s/%s/drivers_license/%s", company, driver, v1.Filename)
		switch {
		case v1.Version != 1 || !v1.IsCurrent:
			t.Errorf("v1: version %d current %v", v1.Version, v1.IsCurrent)
		case !generatedName.MatchString(v1.Filename) || !strings.HasPrefix(v1.Filename, "v1_"):
			t.Errorf("generated filename %q", v1.Filename)
		case v1.StoragePath != wantPath:
			t.Errorf("storage_path %q, want %q", v1.StoragePath, wantPath)
		case v1.OriginalFilename != "řidičák.pdf" || v1.MimeType != "application/pdf":
			t.Errorf("original_filename %q mime %q", v1.OriginalFilename, v1.MimeType)
		case v1.SizeBytes != int64(len(v1data)) || v1.HashSHA256 != hex.EncodeToString(sum[:]):
			t.Errorf("size %d hash %s", v1.SizeBytes, v1.HashSHA256)
		case v1.StorageDisk != files.Disk() || v1.UploadedBy != hr.UserID || v1.DocumentID != docID:
			t.Errorf("disk %q uploaded_by %s document %s", v1.StorageDisk, v1.UploadedBy, v1.DocumentID)
		}
		if ok, err := files.Exists(ctx, v1.StoragePath); err != nil || !ok {
			t.Fatalf("stored object missing: %v %v", ok, err)
		}

		doc := listDocuments(t, hr, driver)["drivers_license"]
		if doc.Number == nil || *doc.Number != "CZ 123456" || doc.Country == nil || *doc.Country != "CZ" ||
			*doc.ValidFrom != "2024-01-15" || *doc.ValidUntil != "2034-01-14" || doc.Status != "valid" {
			t.Errorf("document after upload: %+v", doc)
		}
		var meta map[string][]string
		if err := json.Unmarshal(doc.Meta, &meta); err != nil || !slices.Equal(meta["categories"], []string{"B", "C", "CE"}) {
			t.Errorf("meta %s", doc.Meta)
		}

		// Download: exact bytes and headers.
		res := hr.Get("/api/v0/files/" + v1.ID.String() + "/download").Expect(http.StatusOK)
		if !bytes.Equal(res.Body, v1data) {
			t.Fatalf("downloaded %d bytes differ from the %d uploaded", len(res.Body), len(v1data))
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/pdf" {
			t.Errorf("Content-Type %q", ct)
		}
		if et := res.Header.Get("ETag"); et != `"`+v1.HashSHA256+`"` {
			t.Errorf("ETag %q", et)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Accept-Ranges") != "bytes" {
			t.Errorf("headers %v", res.Header)
		}
		cd := res.Header.Get("Content-Disposition")
		if !strings.HasPrefix(cd, `attachment; filename="ridicak.pdf"; filename*=UTF-8''%C5%99idi%C4%8D%C3%A1k.pdf`) {
			t.Errorf("Content-Disposition %q", cd)
		}
		if disp, params, err := mime.ParseMediaType(cd); err != nil || disp != "attachment" || params["filename"] != "řidičák.pdf" {
			t.Errorf("Content-Disposition parses as %q %v %v", disp, params, err)
		}

		// A range request answers 206 with exactly those bytes.
		res = hr.Send(http.MethodGet, "/api/v0/files/"+v1.ID.String()+"/download", nil,
			http.Header{"Range": {"bytes=1000-1999"}}).Expect(http.StatusPartialContent)
		if !bytes.Equal(res.Body, v1data[1000:2000]) {
			t.Errorf("range body: %d bytes, not the requested ones", len(res.Body))
		}
		if cr := res.Header.Get("Content-Range"); cr != fmt.Sprintf("bytes 1000-1999/%d", len(v1data)) {
			t.Errorf("Content-Range %q", cr)
		}
		res = hr.Send(http.MethodGet, "/api/v0/files/"+v1.ID.String()+"/download", nil,
			http.Header{"Range": {"bytes=-100"}}).Expect(http.StatusPartialContent)
		if !bytes.Equal(res.Body, v1data[len(v1data)-100:]) {
			t.Errorf("suffix range body differs")
		}
		// The ETag revalidates.
		hr.Send(http.MethodGet, "/api/v0/files/"+v1.ID.String()+"/download", nil,
			http.Header{"If-None-Match": {`"` + v1.HashSHA256 + `"`}}).Expect(http.StatusNotModified)

		// A second version replaces the first as current; the metadata stays.
		v2data := samplePNG()
		v2 := mustUpload(t, hr, docID, filePart("scan.png", v2data))
		if v2.Version != 2 || !v2.IsCurrent || v2.MimeType != "image/png" || !strings.HasPrefix(v2.Filename, "v2_") || !strings.HasSuffix(v2.Filename, ".png") {
			t.Errorf("v2: %+v", v2)
		}
		var versions struct {
			Data []struct {
				ID         uuid.UUID `json:"id"`
				Version    int       `json:"version"`
				IsCurrent  bool      `json:"is_current"`
				UploadedBy string    `json:"uploaded_by"`
			}
		}
		hr.Get("/api/v0/documents/" + docID.String() + "/files/versions").Expect(http.StatusOK).Decode(&versions)
		if len(versions.Data) != 2 || versions.Data[0].ID != v2.ID || versions.Data[1].ID != v1.ID ||
			!versions.Data[0].IsCurrent || versions.Data[1].IsCurrent {
			t.Errorf("versions %+v", versions.Data)
		}
		if versions.Data[0].UploadedBy != "Test hr_manager" {
			t.Errorf("uploaded_by %q, want the display name", versions.Data[0].UploadedBy)
		}
		doc = listDocuments(t, hr, driver)["drivers_license"]
		if len(doc.Files) != 2 || doc.Files[0].ID != v2.ID || *doc.ValidUntil != "2034-01-14" {
			t.Errorf("document after v2: %+v", doc)
		}
		var current uuid.UUID
		if err := env.DB.QueryRow(ctx, `SELECT current_file_id FROM driver_documents WHERE id = $1`, docID).Scan(&current); err != nil || current != v2.ID {
			t.Errorf("current_file_id %s, want %s (%v)", current, v2.ID, err)
		}
		// An old version stays downloadable.
		if res := hr.Get("/api/v0/files/" + v1.ID.String() + "/download").Expect(http.StatusOK); !bytes.Equal(res.Body, v1data) {
			t.Error("v1 bytes changed after v2")
		}
		if n := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_type = 'document' AND entity_id = $1 AND action = 'document.uploaded'`, docID); n != 2 {
			t.Errorf("%d document.uploaded audit rows, want 2", n)
		}
		var oldValues, newValues map[string]any
		if err := env.DB.QueryRow(ctx, `SELECT old_values, new_values FROM audit_logs WHERE entity_id = $1 ORDER BY created_at LIMIT 1`,
			docID).Scan(&oldValues, &newValues); err != nil {
			t.Fatal(err)
		}
		if oldValues["status"] != "no_data" || newValues["status"] != "valid" || newValues["valid_until"] != "2034-01-14" ||
			newValues["current_file_id"] != v1.ID.String() || newValues["version"] != float64(1) {
			t.Errorf("audit of the first upload: old %v new %v", oldValues, newValues)
		}
	})
}

// Each document lists its own files, newest version first, however the
// uploads of the driver's documents interleave: the files are read for the
// whole driver in one statement and handed out to their documents.
func TestDocumentsListTheirOwnFiles(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	other := env.Driver(company)
	types := []string{"passport", "visa_biometrics", "drivers_license"}
	uploaded := map[string][]uuid.UUID{}
	for _, typ := range []string{"passport", "visa_biometrics", "passport", "drivers_license", "visa_biometrics", "passport"} {
		f := mustUpload(t, hr, documentID(t, env, driver, typ), filePart(typ+".pdf", samplePDF(t, 2_000)))
		uploaded[typ] = append(uploaded[typ], f.ID)
	}
	mustUpload(t, hr, documentID(t, env, other, "visa_biometrics"), filePart("other.pdf", samplePDF(t, 2_000)))

	check := func(where string, docs map[string]documentJSON) {
		for typ, d := range docs {
			want := uploaded[typ] // oldest first
			if len(d.Files) != len(want) {
				t.Errorf("%s: %s has %d files, want %d", where, typ, len(d.Files), len(want))
				continue
			}
			for i, f := range d.Files {
				if w := want[len(want)-1-i]; f.ID != w || f.Version != len(want)-i || f.IsCurrent != (i == 0) {
					t.Errorf("%s: %s file %d is %+v, want %s version %d", where, typ, i, f, w, len(want)-i)
				}
			}
		}
		for _, typ := range types {
			if _, ok := docs[typ]; !ok {
				t.Errorf("%s: no %s", where, typ)
			}
		}
	}
	check("documents list", listDocuments(t, hr, driver))

	var one struct{ Documents []documentJSON }
	hr.Get("/api/v0/drivers/" + driver.String()).Expect(http.StatusOK).Decode(&one)
	byType := map[string]documentJSON{}
	for _, d := range one.Documents {
		byType[d.Type] = d
	}
	if len(byType) != 14 {
		t.Fatalf("the driver's read has %d documents", len(byType))
	}
	check("driver's read", byType)
}

func TestDocumentConcurrentUploads(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, env *webtest.Env, files *recordingStore) {
		company := env.Company("Acme", "free")
		hr := env.As(company, auth.RoleHRManager)
		driver := env.Driver(company)
		docID := documentID(t, env, driver, "passport")

		const n = 10
		var wg sync.WaitGroup
		results := make([]*webtest.Response, n)
		for i := range n {
			wg.Go(func() {
				body, h := multipartBody(t, filePart(fmt.Sprintf("scan-%d.pdf", i), samplePDF(t, 50_000)))
				results[i] = hr.Send(http.MethodPost, "/api/v0/documents/"+docID.String()+"/files", body, h)
			})
		}
		wg.Wait()
		var versions []int
		for _, res := range results {
			if res == nil {
				t.Fatal("an upload did not finish")
			}
			var f uploadedFile
			res.Expect(http.StatusCreated).Decode(&f)
			versions = append(versions, f.Version)
		}
		slices.Sort(versions)
		if !slices.Equal(versions, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
			t.Errorf("versions %v, want 1..10", versions)
		}
		if c := count(t, env, `SELECT count(*) FROM document_files WHERE document_id = $1 AND is_current`, docID); c != 1 {
			t.Errorf("%d current files, want 1", c)
		}
		if c := count(t, env, `
			SELECT count(*) FROM driver_documents d JOIN document_files f ON f.id = d.current_file_id
			WHERE d.id = $1 AND f.version = 10 AND f.is_current`, docID); c != 1 {
			t.Error("current_file_id does not point at version 10")
		}
		for _, p := range files.putPaths() {
			if ok, err := files.Exists(context.Background(), p); err != nil || !ok {
				t.Errorf("object %s missing (%v)", p, err)
			}
		}
	})
}

// ---- status -------------------------------------------------------------

func TestDocumentStatusThresholdsInCompanyTimeZone(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	// Pick a zone whose date differs from UTC's right now (at any instant
	// one of these two does), so a status taken in UTC would be off by one.
	zone := "Pacific/Kiritimati" // UTC+14
	if loc, _ := time.LoadLocation(zone); civil.DateOf(time.Now().In(loc)) == civil.DateOf(time.Now().UTC()) {
		zone = "Pacific/Pago_Pago" // UTC-11
	}
	if _, err := env.DB.Exec(context.Background(), `UPDATE companies SET timezone = $2 WHERE id = $1`, company, zone); err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation(zone)
	today := civil.DateOf(time.Now().In(loc))
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)

	cases := []struct {
		docType string
		days    int
		want    string
	}{
		{"passport", -1, "expired"},
		{"visa_biometrics", 0, "expiring_soon"},
		{"residence_permit", 5, "expiring_soon"},
		{"work_permit", 14, "expiring_soon"},
		{"a1_eu", 15, "warning"},
		{"a1_switzerland", 30, "warning"},
		{"declaration", 31, "valid"},
	}
	for _, c := range cases {
		mustUpload(t, hr, documentID(t, env, driver, c.docType), filePart("x.pdf", samplePDF(t, 1000)),
			field("valid_until", today.AddDays(c.days).String()))
	}
	// A file without expiry is valid; an expiry without a file is no_data.
	mustUpload(t, hr, documentID(t, env, driver, "health_insurance"), filePart("x.pdf", samplePDF(t, 1000)))
	hr.Put("/api/v0/documents/"+documentID(t, env, driver, "code_95").String(),
		map[string]any{"valid_until": today.AddDays(100).String()}).Expect(http.StatusOK)

	docs := listDocuments(t, hr, driver)
	for _, c := range cases {
		d := docs[c.docType]
		if d.Status != c.want || d.DaysUntilExpiry == nil || *d.DaysUntilExpiry != c.days {
			t.Errorf("%d days (%s): status %s days %s, want %s", c.days, zone, d.Status, intString(d.DaysUntilExpiry), c.want)
		}
	}
	if d := docs["health_insurance"]; d.Status != "valid" || d.DaysUntilExpiry != nil {
		t.Errorf("file without valid_until: %s %s", d.Status, intString(d.DaysUntilExpiry))
	}
	if d := docs["code_95"]; d.Status != "no_data" || d.DaysUntilExpiry == nil || *d.DaysUntilExpiry != 100 {
		t.Errorf("valid_until without file: %s %s", d.Status, intString(d.DaysUntilExpiry))
	}
	if d := docs["tachograph_card"]; d.Status != "no_data" || d.DaysUntilExpiry != nil || len(d.Files) != 0 || d.Files == nil {
		t.Errorf("untouched document: %+v", d)
	}
	// The SQL rule the driver list uses agrees, on current_file_id.
	rows, err := env.DB.Query(context.Background(), `
		SELECT d.type, konvoj_document_status(d.current_file_id IS NOT NULL, d.valid_until, konvoj_today(c.timezone))
		FROM driver_documents d JOIN companies c ON c.id = d.company_id WHERE d.driver_id = $1`, driver)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var typ, status string
		if err := rows.Scan(&typ, &status); err != nil {
			t.Fatal(err)
		}
		if status != docs[typ].Status {
			t.Errorf("%s: SQL status %s, API %s", typ, status, docs[typ].Status)
		}
	}
}

func intString(p *int) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// ---- refused uploads ----------------------------------------------------

func TestDocumentUploadRefusals(t *testing.T) {
	t.Parallel()
	const maxBytes = 64 << 10
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = maxBytes }))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")
	path := "/api/v0/documents/" + docID.String() + "/files"

	// A Windows program renamed to scan.pdf, sent as application/pdf.
	exe := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff"), bytes.Repeat([]byte{0}, 500)...)
	upload(t, hr, docID, part{name: "file", filename: "scan.pdf", contentType: "application/pdf", body: exe}).
		ExpectError(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	// Other types that are not allowed, and an empty file.
	avif := append([]byte("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"), bytes.Repeat([]byte{1}, 100)...)
	for name, body := range map[string][]byte{"a.avif": avif, "a.txt": []byte("plain text"), "a.html": []byte("<html><script>"), "empty.pdf": {}} {
		upload(t, hr, docID, filePart(name, body)).ExpectError(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	}

	// UPLOAD_MAX_BYTES: one byte over is 413, exactly the limit is fine.
	upload(t, hr, docID, filePart("big.pdf", samplePDF(t, maxBytes+1))).ExpectError(http.StatusRequestEntityTooLarge, "PayloadTooLarge")
	// A huge metadata part hits the cap of the whole body (the file limit
	// and 1 MiB). Only a little over it: the server closes the connection
	// with its answer, and a client still writing a much larger body may
	// see the connection reset before it reads the 413.
	upload(t, hr, docID, field("meta", `{"x":"`+strings.Repeat("a", maxBytes+1<<20+16<<10)+`"}`), filePart("a.pdf", samplePDF(t, 100))).
		ExpectError(http.StatusRequestEntityTooLarge, "PayloadTooLarge")

	// Input errors: field messages.
	m := upload(t, hr, docID, field("number", "123")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if errs, _ := m["errors"].(map[string]any); errs["file"] == nil {
		t.Errorf("no message for file: %v", m)
	}
	m = upload(t, hr, docID, filePart("a.pdf", samplePDF(t, 100)), field("number", strings.Repeat("9", 101)),
		field("country", "XX"), field("valid_from", "2026-02-30"), field("meta", `["not","an","object"]`)).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	errs, _ := m["errors"].(map[string]any)
	for _, f := range []string{"number", "country", "valid_from", "meta"} {
		if errs[f] == nil {
			t.Errorf("no message for %s: %v", f, m)
		}
	}
	m = upload(t, hr, docID, field("valid_from", "2026-05-01"), field("valid_until", "2026-04-30"), filePart("a.pdf", samplePDF(t, 100))).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if errs, _ := m["errors"].(map[string]any); errs["valid_until"] == nil {
		t.Errorf("no message for valid_until: %v", m)
	}
	upload(t, hr, docID, filePart("a.pdf", samplePDF(t, 100)), filePart("b.pdf", samplePDF(t, 100))).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	// Not multipart at all, or a broken body.
	hr.Post(path, map[string]string{"file": "x"}).ExpectError(http.StatusBadRequest, "BadRequest")
	hr.Send(http.MethodPost, path, strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF-1.7 and then nothing"),
		http.Header{"Content-Type": {"multipart/form-data; boundary=b"}}).ExpectError(http.StatusBadRequest, "BadRequest")

	// Nothing of any refused upload was kept.
	if n := count(t, env, `SELECT count(*) FROM document_files`); n != 0 {
		t.Errorf("%d file rows after refused uploads", n)
	}
	if n := count(t, env, `SELECT count(*) FROM audit_logs`); n != 0 {
		t.Errorf("%d audit rows after refused uploads", n)
	}
	assertNoFiles(t, env.App.Files)
	assertNoPending(t, env, docID) // valid_until before valid_from is refused inside the transaction

	f := mustUpload(t, hr, docID, filePart("max.pdf", samplePDF(t, maxBytes)))
	if f.SizeBytes != maxBytes || f.Version != 1 {
		t.Errorf("upload of exactly the limit: %+v", f)
	}
}

// assertNoFiles checks a local store holds no file at all.
func assertNoFiles(t *testing.T, s storage.Store) {
	t.Helper()
	local, ok := s.(*storage.Local)
	if !ok {
		return
	}
	err := filepath.WalkDir(local.Root(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("file left in the store: %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDocumentUploadFileNames(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")

	cases := []struct{ sent, want string }{
		{"../../etc/passwd.pdf", "passwd.pdf"},
		{`..\..\Windows\system32\scan.pdf`, "scan.pdf"},
		{`C:\Users\jan\Desktop\pas "nový".pdf`, `pas "nový".pdf`},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"}, // right-to-left override removed
		{"tab\tand.pdf", "taband.pdf"},
		{"*=UTF-8''ctl%00%07%1B%7F%C2%85.pdf", "ctl.pdf"}, // RFC 5987 form, carrying control characters
		{"..", "passport.pdf"},
		{strings.Repeat("ž", 300) + ".pdf", strings.Repeat("ž", 251) + ".pdf"},
		{"", "passport.pdf"},
	}
	for _, c := range cases {
		p := filePart(c.sent, samplePDF(t, 100))
		if c.sent == "" {
			p = part{name: "file", body: samplePDF(t, 100)} // a part without a file name
		}
		f := mustUpload(t, hr, docID, p)
		if f.OriginalFilename != c.want {
			t.Errorf("sent %q: original_filename %q, want %q", c.sent, f.OriginalFilename, c.want)
		}
		if !generatedName.MatchString(f.Filename) || f.StoragePath != fmt.Sprintf("%s/%s/passport/%s", company, driver, f.Filename) {
			t.Errorf("sent %q: stored as %q at %q", c.sent, f.Filename, f.StoragePath)
		}
	}
	// The file landed under the generated name inside the root, nowhere else.
	// (The store's root is a fresh temporary folder, so a name that escaped
	// it would land next to it: the walk covers the root's parent.)
	local := env.App.Files.(*storage.Local)
	err := filepath.WalkDir(filepath.Dir(local.Root()), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !generatedName.MatchString(d.Name()) {
			t.Errorf("unexpected stored name %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// HEIC is detected from its ftyp box, whatever the name says.
	f := mustUpload(t, hr, docID, filePart("IMG_0001.jpg", sampleHEIC()))
	if f.MimeType != "image/heic" || !strings.HasSuffix(f.Filename, ".heic") {
		t.Errorf("heic upload: %+v", f)
	}
	res := hr.Get("/api/v0/files/" + f.ID.String() + "/download").Expect(http.StatusOK)
	if res.Header.Get("Content-Type") != "image/heic" || !strings.Contains(res.Header.Get("Content-Disposition"), `filename="IMG_0001.heic"`) {
		t.Errorf("heic download headers: %v", res.Header)
	}
}

// ---- failures leave nothing behind ----------------------------------------

func TestDocumentUploadFailedCommitLeavesNoObject(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, env *webtest.Env, files *recordingStore) {
		ctx := context.Background()
		company := env.Company("Acme", "free")
		hr := env.As(company, auth.RoleHRManager)
		driver := env.Driver(company)
		docID := documentID(t, env, driver, "passport")

		// A deferred constraint trigger fails the COMMIT itself, after the
		// object is written and every statement has succeeded.
		_, err := env.DB.Exec(ctx, `
			CREATE FUNCTION test_refuse_commit() RETURNS trigger LANGUAGE plpgsql AS $$
			BEGIN RAISE EXCEPTION 'commit refused by test'; END $$;
			CREATE CONSTRAINT TRIGGER test_refuse_commit AFTER INSERT ON document_files
			DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION test_refuse_commit();`)
		if err != nil {
			t.Fatal(err)
		}
		upload(t, hr, docID, filePart("a.pdf", samplePDF(t, 200_000)), field("valid_until", "2030-01-01")).
			ExpectError(http.StatusInternalServerError, "ServerError")

		puts := files.putPaths()
		if len(puts) != 1 {
			t.Fatalf("%d Puts, want the 1 that was rolled back", len(puts))
		}
		if ok, err := files.Exists(ctx, puts[0]); err != nil || ok {
			t.Errorf("object %s still stored after the failed commit (%v)", puts[0], err)
		}
		assertNoFiles(t, files.Store)
		assertUntouched(t, env, docID)
	})
}

func TestDocumentUploadStorageFailure(t *testing.T) {
	t.Parallel()
	env := webtest.New(t, webtest.WithApp(func(o *app.Options) {
		o.Files = &recordingStore{Store: storagetest.NewLocal(t), failPut: errors.New("disk on fire")}
	}))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")
	upload(t, hr, docID, filePart("a.pdf", samplePDF(t, 1000)), field("number", "X1")).
		ExpectError(http.StatusInternalServerError, "ServerError")
	assertUntouched(t, env, docID)
}

// assertUntouched checks a document after a failed upload: no file row, no
// current file, no metadata change, no audit row.
func assertUntouched(t *testing.T, env *webtest.Env, docID uuid.UUID) {
	t.Helper()
	if n := count(t, env, `SELECT count(*) FROM document_files WHERE document_id = $1`, docID); n != 0 {
		t.Errorf("%d file rows after a failed upload", n)
	}
	if n := count(t, env, `SELECT count(*) FROM driver_documents WHERE id = $1 AND current_file_id IS NULL
		AND number IS NULL AND valid_until IS NULL`, docID); n != 1 {
		t.Error("document changed by a failed upload")
	}
	if n := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1`, docID); n != 0 {
		t.Errorf("%d audit rows after a failed upload", n)
	}
	assertNoPending(t, env, docID)
}

// assertNoPending checks that an upload to the document, committed or
// failed, left no pending object record (docs/security.md, "Uploads and
// crashes"): only a crash leaves one, for the sweeper.
func assertNoPending(t *testing.T, env *webtest.Env, docID uuid.UUID) {
	t.Helper()
	if n := count(t, env, `SELECT count(*) FROM pending_objects p JOIN driver_documents d ON d.company_id = p.company_id
		WHERE d.id = $1 AND p.folder = d.company_id || '/' || d.driver_id || '/' || d.type`, docID); n != 0 {
		t.Errorf("%d pending object records left after an upload", n)
	}
}

// ---- metadata update ------------------------------------------------------

func TestDocumentUpdateMetadata(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "medical_examination")
	path := "/api/v0/documents/" + docID.String()
	today := civil.DateOf(time.Now().In(mustLoc(t, "Europe/Prague")))

	var doc documentJSON
	hr.Put(path, map[string]any{"number": "M-1", "country": "sk", "valid_until": today.AddDays(10).String(), "meta": map[string]any{"doctor": "Dr. Nováková"}}).
		Expect(http.StatusOK).Decode(&doc)
	if doc.Status != "no_data" || *doc.DaysUntilExpiry != 10 || *doc.Country != "SK" || *doc.Number != "M-1" || doc.Files == nil {
		t.Errorf("after first update: %+v", doc)
	}
	mustUpload(t, hr, docID, filePart("a.pdf", samplePDF(t, 1000)))
	if d := listDocuments(t, hr, driver)["medical_examination"]; d.Status != "expiring_soon" {
		t.Errorf("after upload: %s", d.Status)
	}
	hr.Put(path, map[string]any{"valid_until": today.AddDays(40).String()}).Expect(http.StatusOK).Decode(&doc)
	if doc.Status != "valid" || *doc.DaysUntilExpiry != 40 || *doc.Number != "M-1" || len(doc.Files) != 1 {
		t.Errorf("after extending: %+v", doc)
	}
	var oldValues, newValues map[string]any
	if err := env.DB.QueryRow(context.Background(), `
		SELECT old_values, new_values FROM audit_logs WHERE entity_id = $1 AND action = 'document.updated'
		ORDER BY created_at DESC LIMIT 1`, docID).Scan(&oldValues, &newValues); err != nil {
		t.Fatal(err)
	}
	if len(newValues) != 2 || newValues["valid_until"] != today.AddDays(40).String() || newValues["status"] != "valid" ||
		oldValues["status"] != "expiring_soon" || len(oldValues) != 2 {
		t.Errorf("audit of the update: old %v new %v (want only valid_until and status)", oldValues, newValues)
	}

	// Nothing changed: 200, no audit row.
	before := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1`, docID)
	hr.Put(path, map[string]any{"number": "M-1", "country": "SK"}).Expect(http.StatusOK)
	if after := count(t, env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1`, docID); after != before {
		t.Errorf("an update without changes wrote %d audit rows", after-before)
	}
	// null clears; meta null resets to {}.
	hr.Put(path, map[string]any{"valid_until": nil, "number": "", "meta": nil}).Expect(http.StatusOK).Decode(&doc)
	if doc.ValidUntil != nil || doc.Number != nil || string(doc.Meta) != "{}" || doc.Status != "valid" || doc.DaysUntilExpiry != nil || *doc.Country != "SK" {
		t.Errorf("after clearing: %+v meta %s", doc, doc.Meta)
	}

	// Validation against the stored values too.
	hr.Put(path, map[string]any{"valid_from": "2026-06-01"}).Expect(http.StatusOK)
	m := hr.Put(path, map[string]any{"valid_until": "2026-05-31"}).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if errs, _ := m["errors"].(map[string]any); errs["valid_until"] == nil {
		t.Errorf("%v", m)
	}
	m = hr.Put(path, map[string]any{"number": 12, "country": "Czechia", "valid_from": "01.06.2026", "meta": "x"}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	errs, _ := m["errors"].(map[string]any)
	for _, f := range []string{"number", "country", "valid_from", "meta"} {
		if errs[f] == nil {
			t.Errorf("no message for %s: %v", f, m)
		}
	}
	hr.Put(path, "{not json").ExpectError(http.StatusBadRequest, "BadRequest")
}

func mustLoc(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// ---- permissions ----------------------------------------------------------

func TestDocumentPermissions(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	other := env.Company("Other", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company, fixtures.Email("jana@example.test"))
	otherDriver := env.Driver(company, fixtures.Email("petr@example.test"))
	docID := documentID(t, env, driver, "passport")
	file := mustUpload(t, hr, docID, filePart("a.pdf", samplePDF(t, 1000)))

	type call struct {
		name string
		do   func(c *webtest.Caller) *webtest.Response
	}
	calls := []call{
		{"list", func(c *webtest.Caller) *webtest.Response {
			return c.Get("/api/v0/drivers/" + driver.String() + "/documents")
		}},
		{"upload", func(c *webtest.Caller) *webtest.Response {
			return upload(t, c, docID, filePart("b.pdf", samplePDF(t, 500)))
		}},
		{"update", func(c *webtest.Caller) *webtest.Response {
			return c.Put("/api/v0/documents/"+docID.String(), map[string]any{"number": "P-" + uuid.NewString()[:6]})
		}},
		{"versions", func(c *webtest.Caller) *webtest.Response {
			return c.Get("/api/v0/documents/" + docID.String() + "/files/versions")
		}},
		{"download", func(c *webtest.Caller) *webtest.Response {
			return c.Get("/api/v0/files/" + file.ID.String() + "/download")
		}},
	}
	ok := map[string]int{"list": 200, "upload": 201, "update": 200, "versions": 200, "download": 200}
	callers := []struct {
		who    string
		caller *webtest.Caller
		want   map[string]string // call → "" (allowed) or the error name
	}{
		{"admin", env.As(company, auth.RoleAdmin), nil},
		{"hr_manager", hr, nil},
		{"driver (own)", env.As(company, auth.RoleDriver, "JANA@example.test"), nil},
		{"accountant", env.As(company, auth.RoleAccountant), map[string]string{
			"list": "Forbidden", "upload": "Forbidden", "update": "Forbidden", "versions": "Forbidden", "download": "Forbidden"}},
		{"dispatcher", env.As(company, auth.RoleDispatcher), map[string]string{
			"upload": "Forbidden", "update": "Forbidden", "versions": "Forbidden", "download": "Forbidden"}},
		{"driver (other)", env.As(company, auth.RoleDriver, "petr@example.test"), map[string]string{
			"list": "AccessDenied", "upload": "AccessDenied", "update": "AccessDenied", "versions": "AccessDenied", "download": "AccessDenied"}},
		{"driver (unlinked)", env.As(company, auth.RoleDriver, "nobody@example.test"), map[string]string{
			"list": "AccessDenied", "upload": "AccessDenied", "update": "AccessDenied", "versions": "AccessDenied", "download": "AccessDenied"}},
		{"admin of another company", env.As(other, auth.RoleAdmin), map[string]string{
			"list": "AccessDenied", "upload": "AccessDenied", "update": "AccessDenied", "versions": "AccessDenied", "download": "AccessDenied"}},
	}
	for _, cl := range callers {
		for _, c := range calls {
			res := c.do(cl.caller)
			if name := cl.want[c.name]; name != "" {
				if res.Status != http.StatusForbidden || !strings.Contains(string(res.Body), `"error":"`+name+`"`) {
					t.Errorf("%s %s: %d %s, want 403 %s", cl.who, c.name, res.Status, res.Body, name)
				}
			} else if res.Status != ok[c.name] {
				t.Errorf("%s %s: %d %s, want %d", cl.who, c.name, res.Status, res.Body, ok[c.name])
			}
		}
	}
	// The dispatcher sees statuses, not files.
	list := env.As(company, auth.RoleDispatcher).Get("/api/v0/drivers/" + driver.String() + "/documents").Expect(http.StatusOK)
	var raw struct{ Data []map[string]any }
	list.Decode(&raw)
	for _, d := range raw.Data {
		if _, has := d["files"]; has {
			t.Fatalf("dispatcher sees files: %v", d)
		}
		if d["type"] == "passport" && d["status"] != "valid" {
			t.Errorf("dispatcher sees passport status %v", d["status"])
		}
	}
	// The role check comes before the existence check.
	env.As(company, auth.RoleAccountant).Get("/api/v0/drivers/"+uuid.NewString()+"/documents").ExpectError(http.StatusForbidden, "Forbidden")
	// A dispatcher may upload vehicles' and trailers' documents only: an
	// unknown document and a driver's document are 403 Forbidden.
	env.As(company, auth.RoleDispatcher).Post("/api/v0/documents/"+uuid.NewString()+"/files", "{}").ExpectError(http.StatusForbidden, "Forbidden")
	env.As(company, auth.RoleDispatcher).Post("/api/v0/documents/"+docID.String()+"/files", "{}").ExpectError(http.StatusForbidden, "Forbidden")
	env.As(company, auth.RoleDispatcher).Put("/api/v0/documents/"+docID.String(), "{not json").ExpectError(http.StatusForbidden, "Forbidden")
	hr.Put("/api/v0/documents/"+uuid.NewString(), "{not json").ExpectError(http.StatusNotFound, "NotFound")
	// A forbidden upload is refused before its body is looked at.
	env.As(company, auth.RoleDriver, "petr@example.test").Post("/api/v0/documents/"+docID.String()+"/files", "{}").
		ExpectError(http.StatusForbidden, "AccessDenied")

	// Unknown and malformed ids are 404.
	for _, p := range []string{
		"/api/v0/drivers/" + uuid.NewString() + "/documents", "/api/v0/drivers/nope/documents",
		"/api/v0/documents/" + uuid.NewString() + "/files/versions", "/api/v0/documents/nope/files/versions",
		"/api/v0/files/" + uuid.NewString() + "/download", "/api/v0/files/nope/download",
	} {
		hr.Get(p).ExpectError(http.StatusNotFound, "NotFound")
	}
	hr.Put("/api/v0/documents/"+uuid.NewString(), map[string]any{}).ExpectError(http.StatusNotFound, "NotFound")
	upload(t, hr, uuid.New(), filePart("a.pdf", samplePDF(t, 100))).ExpectError(http.StatusNotFound, "NotFound")

	// A soft-deleted driver's documents and files are gone (the files stay stored).
	if _, err := env.DB.Exec(context.Background(), `UPDATE drivers SET deleted_at = now() WHERE id = $1`, driver); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if res := c.do(hr); res.Status != http.StatusNotFound {
			t.Errorf("deleted driver, %s: %d %s", c.name, res.Status, res.Body)
		}
	}
	if ok, err := env.App.Files.Exists(context.Background(), file.StoragePath); err != nil || !ok {
		t.Errorf("file of a deleted driver removed from storage (%v)", err)
	}
	_ = otherDriver
}

// TestDownloadNamesCarryDetectedType: documents and penalty evidence are
// downloaded under the detected type's extension, without a right-to-left
// override, whatever the client named the file (docs/security.md).
func TestDownloadNamesCarryDetectedType(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")
	disposition := func(res *webtest.Response) string {
		_, params, err := mime.ParseMediaType(res.Header.Get("Content-Disposition"))
		if err != nil {
			t.Fatalf("Content-Disposition %q: %v", res.Header.Get("Content-Disposition"), err)
		}
		return params["filename"]
	}
	for sent, want := range map[string]string{"x.html": "x.pdf", "scan\u202Efdp.html": "scanfdp.pdf", "ok.pdf": "ok.pdf"} {
		f := mustUpload(t, hr, docID, filePart(sent, samplePDF(t, 100)))
		if got := disposition(hr.Get("/api/v0/files/" + f.ID.String() + "/download").Expect(http.StatusOK)); got != want {
			t.Errorf("document sent as %q downloads as %q, want %q", sent, got, want)
		}
	}
	pen := exactJSON(t, hr.Post("/api/v0/drivers/"+driver.String()+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "800", "incident_date": pragueDay(0), "description": "radar"}).Expect(http.StatusCreated))
	ev := exactJSON(t, addEvidence(t, hr, pen["id"], filePart("radar.html", samplePNG())).Expect(http.StatusCreated))
	res := hr.Get(evidencePath(pen["id"]) + "/" + ev["id"].(string)).Expect(http.StatusOK)
	if got := disposition(res); got != "radar.png" {
		t.Errorf("evidence sent as radar.html downloads as %q", got)
	}
}
