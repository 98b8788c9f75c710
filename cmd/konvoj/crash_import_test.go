package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/faults"
)

// TestKilledImportEndsFailed kills the real binary (SIGKILL, from inside,
// at faults.MidImport) while the job of a 1,500-row import writes its rows,
// its transaction holding the first 500 drivers; restarts the production
// binary after moving the import's times back by the time the rule allows
// (docs/import-export.md: a cut-off import ends failed within two
// minutes); and checks that the import answers failed, interrupted, and
// that no driver, document record or audit row of it exists.
func TestKilledImportEndsFailed(t *testing.T) {
	prod, inject := crashBinaries(t)
	h := newCrashHarness(t, prod, inject, "local")
	ctx := context.Background()
	counts := func() string {
		var s string
		if err := h.db.QueryRow(ctx, `SELECT (SELECT count(*) FROM drivers) || '/' || (SELECT count(*) FROM driver_documents)
			|| '/' || (SELECT count(*) FROM audit_logs)`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := counts()

	p := h.start(t, h.inject, faultEnv+"="+string(faults.MidImport))
	var file strings.Builder
	file.WriteString("first_name,last_name,email\n")
	for i := range 1500 {
		fmt.Fprintf(&file, "Jan,Novák%d,jan%d@example.test\n", i, i)
	}
	res, body := h.sendImport(t, p, []byte(file.String()))
	if res != http.StatusAccepted {
		t.Fatalf("import: %d %s", res, body)
	}
	var im struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal(body, &im); err != nil {
		t.Fatal(err)
	}
	if !p.waitKilled(t) {
		t.Fatalf("the server did not die by SIGKILL at %s:\n%s", faults.MidImport, p.logs.String())
	}
	var status string
	var progress int
	if err := h.db.QueryRow(ctx, `SELECT status, progress FROM imports WHERE id = $1`, im.ID).Scan(&status, &progress); err != nil {
		t.Fatal(err)
	}
	if status != "running" || progress < 50 {
		t.Fatalf("the kill left the import %s at %d %%: the test no longer cuts it off while it writes", status, progress)
	}
	if got := counts(); got != before {
		t.Fatalf("the killed import left drivers/documents/audit rows %s, before %s", got, before)
	}

	h.age(t, 2*time.Minute)
	p = h.start(t, h.prod)
	deadline := time.Now().Add(30 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, p.base+"/api/v0/imports/"+im.ID, nil)
		req.Header.Set("Authorization", "Bearer "+h.token)
		res, err := p.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var got struct {
			Status     string     `json:"status"`
			Failure    *string    `json:"failure"`
			FinishedAt *time.Time `json:"finished_at"`
		}
		if err := json.Unmarshal(body, &got); err != nil || res.StatusCode != http.StatusOK {
			t.Fatalf("GET import: %d %s", res.StatusCode, body)
		}
		if got.Status == "failed" {
			if got.Failure == nil || !strings.Contains(*got.Failure, "interrupted") || got.FinishedAt == nil {
				t.Errorf("failed import %s", body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("30 s after the restart the import is still %s: %s", got.Status, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got := counts(); got != before {
		t.Errorf("after the restart drivers/documents/audit rows %s, before %s", got, before)
	}
	p.stop(t)
}

// sendImport posts a CSV file to the driver import, as a real run.
func (h *crashHarness) sendImport(t *testing.T, p *crashProcess, data []byte) (int, []byte) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", "drivers.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = mw.WriteField("dry_run", "false")
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, p.base+"/api/v0/imports/drivers", &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+h.token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}
