package api_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

func evidencePath(penalty any) string { return "/api/v0/penalties/" + penalty.(string) + "/evidence" }

func addEvidence(t *testing.T, c *webtest.Caller, penalty any, parts ...part) *webtest.Response {
	t.Helper()
	body, h := multipartBody(t, parts...)
	return c.Send(http.MethodPost, evidencePath(penalty), body, h)
}

// TestPenaltyEvidenceFiles: the driver adds a photo to its own pending
// penalty; the file is listed, downloaded byte for byte, shown in the
// penalty object and audited; refusals answer in the check order and leave
// nothing behind.
func TestPenaltyEvidenceFiles(t *testing.T) {
	t.Parallel()
	const maxBytes = 64 << 10
	env := webtest.New(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = maxBytes }))
	ctx := context.Background()
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	acc := env.As(company, auth.RoleAccountant)
	mine, other := "eva@example.test", "petr@example.test"
	driver := env.Driver(company, fixtures.Email(mine))
	otherDriver := env.Driver(company, fixtures.Email(other))
	me := env.As(company, auth.RoleDriver, mine)
	newPenalty := func(d uuid.UUID) map[string]any {
		return exactJSON(t, hr.Post("/api/v0/drivers/"+d.String()+"/penalties", map[string]any{
			"penalty_type": "speeding", "amount": "800", "incident_date": pragueDay(0), "description": "radar"}).Expect(http.StatusCreated))
	}
	pen := newPenalty(driver)
	if files, ok := pen["evidence_files"].([]any); !ok || len(files) != 0 {
		t.Fatalf("new penalty evidence_files %v", pen["evidence_files"])
	}

	photo := samplePNG()
	f := exactJSON(t, addEvidence(t, me, pen["id"], filePart("radar.png", photo), field("note", "  the sign was hidden ")).
		Expect(http.StatusCreated))
	if f["original_filename"] != "radar.png" || f["mime"] != "image/png" || fmt.Sprint(f["size"]) != fmt.Sprint(len(photo)) ||
		f["note"] != "the sign was hidden" || f["uploaded_by"] == nil || f["created_at"] == nil {
		t.Fatalf("added %v", f)
	}
	// Listed, in the penalty object, downloaded exactly, for the driver and
	// for the accountant (who may list penalties).
	for _, c := range []*webtest.Caller{me, acc} {
		list := exactJSON(t, c.Get(evidencePath(pen["id"])).Expect(http.StatusOK))
		if data := list["data"].([]any); len(data) != 1 || asObject(t, data[0])["id"] != f["id"] {
			t.Fatalf("list %v", list)
		}
		got := exactJSON(t, c.Get("/api/v0/drivers/"+driver.String()+"/penalties/"+pen["id"].(string)).Expect(http.StatusOK))
		if files := got["evidence_files"].([]any); len(files) != 1 || asObject(t, files[0])["id"] != f["id"] {
			t.Fatalf("penalty evidence_files %v", got["evidence_files"])
		}
		res := c.Get(evidencePath(pen["id"]) + "/" + f["id"].(string)).Expect(http.StatusOK)
		sum := sha256.Sum256(photo)
		if !bytes.Equal(res.Body, photo) || res.Header.Get("Content-Type") != "image/png" ||
			res.Header.Get("ETag") != `"`+hex.EncodeToString(sum[:])+`"` ||
			res.Header.Get("Content-Disposition") != `attachment; filename="radar.png"; filename*=UTF-8''radar.png` {
			t.Fatalf("download %d %q %v", res.Status, res.Body, res.Header)
		}
	}
	var auditRows int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM audit_logs WHERE entity_type = 'penalty' AND entity_id = $1
		AND action = 'penalty.evidence_added' AND new_values->>'original_filename' = 'radar.png'`, pen["id"]).Scan(&auditRows); err != nil || auditRows != 1 {
		t.Fatalf("audit rows %d %v", auditRows, err)
	}

	// Another driver's penalty: 403 AccessDenied, for adding and reading.
	theirs := newPenalty(otherDriver)
	before := env.Checksum()
	addEvidence(t, me, theirs["id"], filePart("a.png", photo)).ExpectError(http.StatusForbidden, "AccessDenied")
	me.Get(evidencePath(theirs["id"])).ExpectError(http.StatusForbidden, "AccessDenied")
	// The accountant may read but not add: 403 Forbidden (role before record).
	addEvidence(t, acc, pen["id"], filePart("a.png", photo)).ExpectError(http.StatusForbidden, "Forbidden")
	acc.Post(evidencePath(uuid.NewString()), nil).ExpectError(http.StatusForbidden, "Forbidden")
	// Unknown penalty, not a UUID, a file of another penalty: 404.
	addEvidence(t, hr, uuid.NewString(), filePart("a.png", photo)).ExpectError(http.StatusNotFound, "NotFound")
	hr.Get("/api/v0/penalties/nope/evidence").ExpectError(http.StatusNotFound, "NotFound")
	hr.Get(evidencePath(theirs["id"])+"/"+f["id"].(string)).ExpectError(http.StatusNotFound, "NotFound")
	if after := env.Checksum(); after != before {
		t.Fatal("a refused evidence request (role, other driver, unknown penalty) changed data")
	}
	// Another company's penalty: 403 AccessDenied (the record exists).
	away := env.Company("Away", "free")
	awayDriver := env.Driver(away)
	awayPen := exactJSON(t, env.As(away, auth.RoleHRManager).Post("/api/v0/drivers/"+awayDriver.String()+"/penalties", map[string]any{
		"penalty_type": "other", "amount": "1", "incident_date": pragueDay(0), "description": "x"}).Expect(http.StatusCreated))
	before = env.Checksum()
	addEvidence(t, hr, awayPen["id"], filePart("a.png", photo)).ExpectError(http.StatusForbidden, "AccessDenied")
	hr.Get(evidencePath(awayPen["id"])).ExpectError(http.StatusForbidden, "AccessDenied")
	// Input: a bad type 415, too big 413, no file 422.
	addEvidence(t, me, pen["id"], filePart("a.txt", []byte("plain text"))).ExpectError(http.StatusUnsupportedMediaType, "UnsupportedMediaType")
	addEvidence(t, me, pen["id"], filePart("big.pdf", samplePDF(t, maxBytes+1))).ExpectError(http.StatusRequestEntityTooLarge, "PayloadTooLarge")
	m := addEvidence(t, me, pen["id"], field("note", "no file")).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if errs, _ := m["errors"].(map[string]any); errs["file"] == nil {
		t.Errorf("no message for file: %v", m)
	}
	if after := env.Checksum(); after != before {
		t.Fatal("a refused evidence upload changed data")
	}

	// A resolved penalty: the driver is refused (409), HR may still add.
	exactJSON(t, me.Put("/api/v0/drivers/"+driver.String()+"/penalties/"+pen["id"].(string)+"/dispute",
		map[string]any{"dispute_reason": "hidden sign"}).Expect(http.StatusOK))
	addEvidence(t, me, pen["id"], filePart("more.png", photo)).Expect(http.StatusCreated)
	exactJSON(t, hr.Put("/api/v0/drivers/"+driver.String()+"/penalties/"+pen["id"].(string)+"/resolve",
		map[string]any{"resolution_action": "keep", "resolution": "seen"}).Expect(http.StatusOK))
	before = env.Checksum()
	addEvidence(t, me, pen["id"], filePart("late.png", photo)).ExpectError(http.StatusConflict, "Conflict")
	if after := env.Checksum(); after != before {
		t.Fatal("the refused upload to a resolved penalty changed data")
	}
	addEvidence(t, hr, pen["id"], filePart("hr.pdf", samplePDF(t, 100))).Expect(http.StatusCreated)

	// Every stored file has its row, and no row lacks its file.
	var rows int
	if err := env.DB.QueryRow(ctx, `SELECT count(*) FROM penalty_evidence WHERE penalty_id = $1`, pen["id"]).Scan(&rows); err != nil || rows != 3 {
		t.Fatalf("%d evidence rows (%v), want 3", rows, err)
	}
}

// TestPenaltyEvidenceConcurrentUploads: uploads to one penalty at the same
// moment are all kept, each with its own stored file.
func TestPenaltyEvidenceConcurrentUploads(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	mail := "eva@example.test"
	driver := env.Driver(company, fixtures.Email(mail))
	me := env.As(company, auth.RoleDriver, mail)
	pen := exactJSON(t, hr.Post("/api/v0/drivers/"+driver.String()+"/penalties", map[string]any{
		"penalty_type": "other", "amount": "100", "incident_date": pragueDay(0), "description": "x"}).Expect(http.StatusCreated))
	me.Get(evidencePath(pen["id"])).Expect(http.StatusOK) // the driver's user row exists before the race

	const n = 6
	var wg sync.WaitGroup
	status := make([]int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := me
			if i%2 == 1 {
				c = hr
			}
			body, h := multipartBody(t, filePart("p.pdf", samplePDF(t, 2000)))
			status[i] = c.Send(http.MethodPost, evidencePath(pen["id"]), body, h).Status
		}()
	}
	wg.Wait()
	for i, s := range status {
		if s != http.StatusCreated {
			t.Errorf("upload %d: %d", i, s)
		}
	}
	list := exactJSON(t, hr.Get(evidencePath(pen["id"])).Expect(http.StatusOK))
	ids := map[any]bool{}
	for _, item := range list["data"].([]any) {
		o := asObject(t, item)
		ids[o["id"]] = true
		hr.Get(evidencePath(pen["id"]) + "/" + o["id"].(string)).Expect(http.StatusOK)
	}
	if len(ids) != n {
		t.Fatalf("%d evidence files listed, want %d", len(ids), n)
	}
}
