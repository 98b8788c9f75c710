package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/konvoj/konvoj/internal/faults"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/postgres/pgtest"
	"github.com/konvoj/konvoj/internal/storage/storagetest"
	"github.com/konvoj/konvoj/internal/uploads"
)

// faultEnv is the variable the faultinject build reads (internal/faults).
const faultEnv = "KONVOJ_FAULT"

// crashUploadSize is the size of the uploads the test kills: the default
// UPLOAD_MAX_BYTES.
const crashUploadSize = 20 << 20

// TestKilledUploadsLeaveNothing kills the real binary (SIGKILL, from
// inside, at the points of internal/faults) during a 20 MiB upload, at
// every point of the upload, on local storage and on an S3 server; restarts
// it normally; and checks after its sweep at start that no spool file is
// left in its TMPDIR, no .tmp in the storage folder, no stored object
// without a row and no pending record, and that every upload answered 201
// before, including one on the killed process, is still there
// (docs/security.md, "Uploads and crashes"). An hour is made to pass by
// moving the leftovers' times back: the sweeper keeps what is younger.
func TestKilledUploadsLeaveNothing(t *testing.T) {
	prod, inject := crashBinaries(t)
	t.Run("production build holds no fault points", func(t *testing.T) {
		prodBytes, err := os.ReadFile(prod)
		if err != nil {
			t.Fatal(err)
		}
		injectBytes, err := os.ReadFile(inject)
		if err != nil {
			t.Fatal(err)
		}
		for _, marker := range []string{faultEnv, "faults.kill", "faults.(*killReader)"} {
			if bytes.Contains(prodBytes, []byte(marker)) {
				t.Errorf("the production binary contains %q", marker)
			}
			if !bytes.Contains(injectBytes, []byte(marker)) {
				t.Errorf("the faultinject binary lacks %q: the check above proves nothing", marker)
			}
		}
	})
	for _, disk := range []string{"local", "s3"} {
		t.Run(disk, func(t *testing.T) {
			t.Parallel()
			h := newCrashHarness(t, prod, inject, disk)
			for _, point := range faults.Points {
				t.Run(string(point), func(t *testing.T) { h.killAt(t, point) })
			}
		})
	}
}

// crashBinaries builds the binary as in production and with the fault
// points (-tags faultinject).
func crashBinaries(t *testing.T) (prod, inject string) {
	t.Helper()
	dir := t.TempDir()
	prod, inject = filepath.Join(dir, "konvoj"), filepath.Join(dir, "konvoj-faultinject")
	for bin, tags := range map[string]string{prod: "", inject: "faultinject"} {
		if out, err := exec.Command("go", "build", "-tags", tags, "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("go build -tags %q: %v\n%s", tags, err, out)
		}
	}
	return prod, inject
}

// crashHarness runs the binary against one database and one store.
type crashHarness struct {
	prod, inject string
	db           *pgxpool.Pool
	env          []string
	tmp          string
	localRoot    string         // local storage: the folder
	s3           *s3mem.Backend // s3: the server's objects
	token        string
	docID        uuid.UUID
	acked        map[uuid.UUID]string // file id → SHA-256 of the uploads answered 201
	n            int
}

func newCrashHarness(t *testing.T, prod, inject, disk string) *crashHarness {
	db, dbURL := pgtest.NewWithURL(t, nil)
	h := &crashHarness{prod: prod, inject: inject, db: db, tmp: t.TempDir(), acked: map[uuid.UUID]string{}}
	const secret = "crash-test-secret-0123456789abcdef0123"
	h.env = []string{"DATABASE_URL=" + dbURL, "JWT_SECRET=" + secret, "TMPDIR=" + h.tmp, "LOG_FORMAT=json",
		"RATE_LIMIT_STORE=none", "STORAGE_DISK=" + disk}
	switch disk {
	case "local":
		h.localRoot = filepath.Join(t.TempDir(), "files")
		h.env = append(h.env, "STORAGE_LOCAL_DIR="+h.localRoot)
	case "s3":
		h.s3 = s3mem.New()
		if err := h.s3.CreateBucket(storagetest.Bucket); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(gofakes3.New(h.s3).Server())
		t.Cleanup(srv.Close)
		cfg := storagetest.S3Config(srv.URL)
		h.env = append(h.env, "S3_ENDPOINT="+cfg.Endpoint, "S3_REGION="+cfg.Region, "S3_BUCKET="+cfg.Bucket,
			"S3_ACCESS_KEY_ID="+cfg.AccessKeyID, "S3_SECRET_ACCESS_KEY="+cfg.SecretAccessKey, "S3_USE_PATH_STYLE=true")
	}
	company := fixtures.Company(t, db)
	driver := fixtures.Driver(t, db, company)
	if err := db.QueryRow(context.Background(), `SELECT id FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, driver).
		Scan(&h.docID); err != nil {
		t.Fatal(err)
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": uuid.NewString(), "email": "hr@example.test", "exp": time.Now().Add(time.Hour).Unix(),
		"app_metadata": map[string]any{"company_id": company.String()}, "user_metadata": map[string]any{"role": "hr_manager"},
	}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	h.token = tok
	return h
}

// killAt: one upload answered 201, then the process dies at point during
// the next one; a normal restart sweeps.
func (h *crashHarness) killAt(t *testing.T, point faults.Point) {
	// The first pass of the point completes; the second kills.
	p := h.start(t, h.inject, faultEnv+"="+string(point)+":2")
	h.upload(t, p)
	if _, err := h.send(p, h.pdf()); err == nil {
		t.Fatalf("the upload killed at %s was answered", point)
	}
	if !p.waitKilled(t) {
		t.Fatalf("the server did not die by SIGKILL at %s:\n%s", point, p.logs.String())
	}

	// What the crash left, so the checks after the sweep prove something.
	left := h.leftovers(t)
	want := map[faults.Point][]string{
		faults.MidBody: {"spool"}, faults.BodyReceived: {"spool"},
		faults.MidStore: {"spool", "pending"}, faults.ObjectStored: {"spool", "pending", "orphan"},
		faults.BeforeCommit: {"spool", "pending", "orphan"},
	}[point]
	if point == faults.MidStore && h.localRoot != "" {
		want = append(want, "tmp")
	}
	for _, w := range want {
		if len(left[w]) == 0 {
			t.Errorf("the kill at %s left no %s (left: %v): the test no longer reproduces the crash", point, w, left)
		}
	}

	// An hour passes: the leftovers' times move back.
	h.age(t, 2*time.Hour)
	p = h.start(t, h.prod)
	p.waitLog(t, `"msg":"uploads swept"`)
	if left := h.leftovers(t); len(left) > 0 {
		t.Errorf("after the sweep at start, left behind: %v", left)
	}
	h.checkAcked(t, p)
	p.stop(t)
}

// leftovers lists what a crash may leave: spool files, .tmp files in the
// storage folder, stored objects without a row, pending records.
func (h *crashHarness) leftovers(t *testing.T) map[string][]string {
	t.Helper()
	left := map[string][]string{}
	spools, err := filepath.Glob(filepath.Join(h.tmp, uploads.SpoolPattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(spools) > 0 {
		left["spool"] = spools
	}
	var objects []string
	if h.localRoot != "" {
		err := filepath.WalkDir(h.localRoot, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if strings.HasSuffix(p, ".tmp") {
				left["tmp"] = append(left["tmp"], p)
				return nil
			}
			rel, _ := filepath.Rel(h.localRoot, p)
			objects = append(objects, filepath.ToSlash(rel))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	} else {
		list, err := h.s3.ListBucket(storagetest.Bucket, nil, gofakes3.ListBucketPage{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list.Contents {
			objects = append(objects, c.Key)
		}
	}
	ctx := context.Background()
	for _, o := range objects {
		var n int
		if err := h.db.QueryRow(ctx, `SELECT count(*) FROM document_files WHERE storage_path = $1`, o).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			left["orphan"] = append(left["orphan"], o)
		}
	}
	rows, err := h.db.Query(ctx, `SELECT id::text FROM pending_objects`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		left["pending"] = append(left["pending"], id)
	}
	return left
}

// age moves the times of the temporary files, of the pending records and
// of the imports back by d.
func (h *crashHarness) age(t *testing.T, d time.Duration) {
	t.Helper()
	old := time.Now().Add(-d)
	for _, root := range []string{h.tmp, h.localRoot} {
		if root == "" {
			continue
		}
		err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			return os.Chtimes(p, old, old)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.db.Exec(context.Background(), `UPDATE pending_objects SET created_at = created_at - make_interval(secs => $1)`,
		d.Seconds()); err != nil {
		t.Fatal(err)
	}
	// Every time of the imports.
	var set []string
	rows, err := h.db.Query(context.Background(), `SELECT column_name FROM information_schema.columns
		WHERE table_name = 'imports' AND data_type = 'timestamp with time zone'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		set = append(set, c+" = "+c+" - make_interval(secs => $1)")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.Exec(context.Background(), `UPDATE imports SET `+strings.Join(set, ", "), d.Seconds()); err != nil {
		t.Fatal(err)
	}
}

// checkAcked downloads every upload answered 201 and compares its hash.
func (h *crashHarness) checkAcked(t *testing.T, p *crashProcess) {
	t.Helper()
	for id, sum := range h.acked {
		req, _ := http.NewRequest(http.MethodGet, p.base+"/api/v0/files/"+id.String()+"/download", nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		res, err := p.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		hash := sha256.New()
		_, err = io.Copy(hash, res.Body)
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK || hex.EncodeToString(hash.Sum(nil)) != sum {
			t.Errorf("acknowledged upload %s: %d, hash %x, want %s (%v)", id, res.StatusCode, hash.Sum(nil), sum, err)
		}
	}
}

// pdf is a new 20 MiB PDF body, different each time.
func (h *crashHarness) pdf() []byte {
	h.n++
	b := bytes.Repeat([]byte(fmt.Sprintf("%08d", h.n)), crashUploadSize/8)
	copy(b, "%PDF-1.7\n")
	return b
}

// upload sends a new 20 MiB file and checks it is answered 201; the file is
// remembered as acknowledged.
func (h *crashHarness) upload(t *testing.T, p *crashProcess) {
	t.Helper()
	data := h.pdf()
	res, err := h.send(p, data)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("upload: %d %s", res.StatusCode, body)
	}
	var f struct {
		ID uuid.UUID `json:"id"`
	}
	if err := json.Unmarshal(body, &f); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	h.acked[f.ID] = hex.EncodeToString(sum[:])
}

func (h *crashHarness) send(p *crashProcess, data []byte) (*http.Response, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "passport.pdf")
	if err != nil {
		return nil, err
	}
	if _, err := fw.Write(data); err != nil {
		return nil, err
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	req, err := http.NewRequest(http.MethodPost, p.base+"/api/v0/documents/"+h.docID.String()+"/files", &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return p.client.Do(req)
}

// crashProcess is a running konvoj serve.
type crashProcess struct {
	cmd    *exec.Cmd
	base   string
	client *http.Client
	logs   *syncBuffer
	done   chan struct{}
	state  *os.ProcessState
}

// start runs bin serve with the harness's environment and extra, and waits
// until it answers.
func (h *crashHarness) start(t *testing.T, bin string, extra ...string) *crashProcess {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), h.env...), append(extra, "HTTP_ADDR=127.0.0.1:"+port)...)
	p := &crashProcess{cmd: cmd, base: "http://127.0.0.1:" + port, logs: &syncBuffer{}, done: make(chan struct{}),
		client: &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}}
	cmd.Stderr = p.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-p.done
	})
	waitHealthy(t, p.base+"/healthz")
	return p
}

// waitKilled waits for the process to end and reports whether SIGKILL
// ended it.
func (p *crashProcess) waitKilled(t *testing.T) bool {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server is still running")
	}
	ws, ok := p.state.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

// stop ends the process with SIGTERM, as an operator would.
func (p *crashProcess) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not stop on SIGTERM")
	}
}

// waitLog waits until the process has logged s.
func (p *crashProcess) waitLog(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(p.logs.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s in the log within 30 s:\n%s", s, p.logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// syncBuffer is a bytes.Buffer safe for a writing process and a reading
// test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
