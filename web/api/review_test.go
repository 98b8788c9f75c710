package api_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// reviewedFile is a file object with its review fields.
type reviewedFile struct {
	ID           uuid.UUID  `json:"id"`
	Version      int        `json:"version"`
	IsCurrent    bool       `json:"is_current"`
	ReviewStatus string     `json:"review_status"`
	ReviewReason *string    `json:"review_reason"`
	ReviewedBy   *uuid.UUID `json:"reviewed_by"`
	ReviewedAt   *time.Time `json:"reviewed_at"`
}

// versionJSON is an entry of the versions list (reviewed_by: a name).
type versionJSON struct {
	ID           uuid.UUID `json:"id"`
	Version      int       `json:"version"`
	IsCurrent    bool      `json:"is_current"`
	ReviewStatus string    `json:"review_status"`
	ReviewReason *string   `json:"review_reason"`
	ReviewedBy   *string   `json:"reviewed_by"`
}

func reviewPath(docID, fileID uuid.UUID) string {
	return "/api/v0/documents/" + docID.String() + "/files/" + fileID.String() + "/review"
}

// reviewWorld is a company whose medical examinations need review, with a
// driver (Jan, signed in) whose other required documents are valid and
// whose medical examination has expired: Jan is not ready.
type reviewWorld struct {
	env          *webtest.Env
	company      uuid.UUID
	hr, driver   *webtest.Caller
	jan, medical uuid.UUID
}

func newReviewWorld(t *testing.T) reviewWorld {
	t.Helper()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	jan := drvCreate(t, hr, map[string]any{"first_name": "Jan", "last_name": "Novák", "email": "jan@example.cz", "citizenship": "CZ"})
	for _, typ := range []string{"passport", "drivers_license", "tachograph_card", "code_95"} {
		drvSetDocument(t, env, jan.ID, typ, nil)
	}
	drvSetDocument(t, env, jan.ID, "medical_examination", drvDays(-3))
	hr.Put(rulesPath(company), map[string]any{"rules": []any{
		map[string]any{"document_type": "medical_examination", "requires_review": true},
	}}).Expect(http.StatusOK)
	driver := env.As(company, auth.RoleDriver, "jan@example.cz")
	driver.Get("/api/v0/notifications").Expect(http.StatusOK) // its user row
	return reviewWorld{env: env, company: company, hr: hr, driver: driver, jan: jan.ID,
		medical: documentID(t, env, jan.ID, "medical_examination")}
}

func (w reviewWorld) ready(t *testing.T) any {
	t.Helper()
	return w.hr.Get("/api/v0/drivers/" + w.jan.String()).Expect(http.StatusOK).JSON()["is_ready"]
}

// driverUpload is the driver's photo of a new medical examination, valid
// for a year.
func (w reviewWorld) driverUpload(t *testing.T) reviewedFile {
	t.Helper()
	var f reviewedFile
	upload(t, w.driver, w.medical, filePart("medical.png", samplePNG()), field("valid_until", dateIn(365)),
		field("number", "MED-2")).Expect(http.StatusCreated).Decode(&f)
	return f
}

func dateIn(days int) string {
	loc, _ := time.LoadLocation("Europe/Prague")
	return time.Now().In(loc).AddDate(0, 0, days).Format(time.DateOnly)
}

type notificationJSON struct {
	Kind  string `json:"kind"`
	Stage string `json:"stage"`
	Title string `json:"title"`
	Body  string `json:"body"`
}

func notificationsOf(t *testing.T, c *webtest.Caller) []notificationJSON {
	t.Helper()
	var page struct{ Data []notificationJSON }
	c.Get("/api/v0/notifications").Expect(http.StatusOK).Decode(&page)
	return page.Data
}

// TestDocumentReviewApprove: a driver's upload of a type under review is
// pending and changes neither the document's status nor the driver's
// readiness; approving it makes it current, the driver ready, and tells
// the driver in-app and by e-mail.
func TestDocumentReviewApprove(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	if w.ready(t) != false {
		t.Fatal("Jan is ready with an expired medical examination")
	}
	oldCurrent := listDocuments(t, w.hr, w.jan)["medical_examination"].Files[0].ID

	f := w.driverUpload(t)
	if f.ReviewStatus != "pending" || f.IsCurrent || f.ReviewedBy != nil || f.ReviewedAt != nil || f.Version != 2 {
		t.Fatalf("the driver's upload: %+v, want pending, not current, version 2", f)
	}
	doc := listDocuments(t, w.driver, w.jan)["medical_examination"]
	if doc.Status != "expired" || doc.Number != nil || doc.ValidUntil == nil || *doc.ValidUntil != dateIn(-3) {
		t.Errorf("a pending upload changed the document: status %s, number %v, valid_until %v", doc.Status, doc.Number, doc.ValidUntil)
	}
	if w.ready(t) != false {
		t.Error("a pending upload made the driver ready")
	}
	var versions struct{ Data []versionJSON }
	w.driver.Get("/api/v0/documents/" + w.medical.String() + "/files/versions").Expect(http.StatusOK).Decode(&versions)
	if len(versions.Data) != 2 || versions.Data[0].ReviewStatus != "pending" || versions.Data[1].ReviewStatus != "approved" ||
		versions.Data[1].ID != oldCurrent || !versions.Data[1].IsCurrent {
		t.Errorf("versions: %+v", versions.Data)
	}

	var approved reviewedFile
	w.hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "approve"}).Expect(http.StatusOK).Decode(&approved)
	if approved.ReviewStatus != "approved" || !approved.IsCurrent || approved.ReviewedBy == nil || *approved.ReviewedBy != w.hr.UserID ||
		approved.ReviewedAt == nil || approved.ReviewReason != nil {
		t.Errorf("approved: %+v", approved)
	}
	doc = listDocuments(t, w.hr, w.jan)["medical_examination"]
	if doc.Status != "valid" || doc.Number == nil || *doc.Number != "MED-2" || doc.ValidUntil == nil || *doc.ValidUntil != dateIn(365) {
		t.Errorf("after approval: status %s, number %v, valid_until %v", doc.Status, doc.Number, doc.ValidUntil)
	}
	for _, v := range doc.Files {
		if v.IsCurrent != (v.ID == f.ID) {
			t.Errorf("version %d current %v after approving version 2", v.Version, v.IsCurrent)
		}
	}
	if w.ready(t) != true {
		t.Error("the driver is not ready after the approval")
	}

	// Again: it is not pending any more.
	w.hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "reject", "reason": "Too late."}).ExpectError(http.StatusConflict, "Conflict")

	n := notificationsOf(t, w.driver)
	if len(n) != 1 || n[0].Kind != "document_review" || n[0].Stage != "approved" || !strings.Contains(n[0].Title, "Upload approved") {
		t.Errorf("the driver's notifications: %+v", n)
	}
	if got := count(t, w.env, `SELECT count(*) FROM outbox WHERE company_id = $1 AND recipient = 'jan@example.cz' AND kind = 'review_outcome'`, w.company); got != 1 {
		t.Errorf("%d review e-mails to the driver, want 1", got)
	}
	if got := count(t, w.env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action = 'document.review_approved'
		AND new_values->>'status' = 'valid' AND old_values->>'status' = 'expired'`, w.medical); got != 1 {
		t.Errorf("%d audit rows of the approval, want 1", got)
	}
}

// TestDocumentReviewReject: a rejection keeps the old version current,
// records the reason and tells the driver why, in-app and by e-mail in the
// driver's language.
func TestDocumentReviewReject(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	// The driver reads Polish (the company's language is Czech).
	w.hr.Put("/api/v0/drivers/"+w.jan.String(), map[string]any{"language": "pl"}).Expect(http.StatusOK)
	before := listDocuments(t, w.hr, w.jan)["medical_examination"]
	f := w.driverUpload(t)

	reason := "The photo is blurred; the date cannot be read."
	var rejected reviewedFile
	w.hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "reject", "reason": "  " + reason + " "}).Expect(http.StatusOK).Decode(&rejected)
	if rejected.ReviewStatus != "rejected" || rejected.IsCurrent || rejected.ReviewReason == nil || *rejected.ReviewReason != reason ||
		rejected.ReviewedBy == nil || rejected.ReviewedAt == nil {
		t.Errorf("rejected: %+v", rejected)
	}
	after := listDocuments(t, w.hr, w.jan)["medical_examination"]
	if after.Status != "expired" || *after.ValidUntil != *before.ValidUntil || after.Number != nil {
		t.Errorf("a rejection changed the document: %+v", after)
	}
	for _, v := range after.Files {
		if v.IsCurrent != (v.ID == before.Files[0].ID) {
			t.Errorf("version %d current %v after a rejection", v.Version, v.IsCurrent)
		}
	}
	if w.ready(t) != false {
		t.Error("a rejected upload made the driver ready")
	}
	var versions struct{ Data []versionJSON }
	w.driver.Get("/api/v0/documents/" + w.medical.String() + "/files/versions").Expect(http.StatusOK).Decode(&versions)
	if versions.Data[0].ReviewStatus != "rejected" || versions.Data[0].ReviewReason == nil || *versions.Data[0].ReviewReason != reason ||
		versions.Data[0].ReviewedBy == nil || *versions.Data[0].ReviewedBy == "" {
		t.Errorf("the driver's versions: %+v", versions.Data[0])
	}

	n := notificationsOf(t, w.driver)
	if len(n) != 1 || n[0].Stage != "rejected" || n[0].Body != "Reason: "+reason {
		t.Errorf("the driver's notifications: %+v", n)
	}
	var lang, subject, text string
	if err := w.env.DB.QueryRow(context.Background(), `SELECT language, subject, text_body FROM outbox
		WHERE company_id = $1 AND recipient = 'jan@example.cz' AND kind = 'review_outcome'`, w.company).Scan(&lang, &subject, &text); err != nil {
		t.Fatalf("the driver's e-mail: %v", err)
	}
	if lang != "pl" || !strings.Contains(subject, "odrzucony") || !strings.Contains(text, "Powód: "+reason) {
		t.Errorf("the driver's e-mail: %s %q %q", lang, subject, text)
	}
	// HR is not notified of its own decision (only called to review the upload).
	if n := notificationsOf(t, w.hr); len(n) != 1 || n[0].Stage != "requested" {
		t.Errorf("HR's notifications: %+v", n)
	}

	// An upload by HR needs no review.
	var byHR reviewedFile
	upload(t, w.hr, w.medical, filePart("medical.pdf", samplePDF(t, 500)), field("valid_until", dateIn(200))).Expect(http.StatusCreated).Decode(&byHR)
	if byHR.ReviewStatus != "approved" || !byHR.IsCurrent {
		t.Errorf("HR's upload: %+v", byHR)
	}
	if w.ready(t) != true {
		t.Error("HR's upload did not make the driver ready")
	}
}

// TestDocumentReviewRefusals: bad input, a version not pending, the wrong
// roles and companies.
func TestDocumentReviewRefusals(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	f := w.driverUpload(t)
	path := reviewPath(w.medical, f.ID)
	admin := w.env.As(w.company, auth.RoleAdmin)

	w.driver.Post(path, map[string]any{"decision": "approve"}).ExpectError(http.StatusForbidden, "Forbidden")
	w.env.As(w.company, auth.RoleDispatcher).Post(path, map[string]any{"decision": "approve"}).ExpectError(http.StatusForbidden, "Forbidden")
	other := w.env.Company("Other", "free")
	w.env.As(other, auth.RoleAdmin).Post(path, map[string]any{"decision": "approve"}).ExpectError(http.StatusForbidden, "AccessDenied")

	for _, c := range []struct {
		body  map[string]any
		field string
	}{
		{map[string]any{"decision": "reject"}, "reason"},
		{map[string]any{"decision": "reject", "reason": "   "}, "reason"},
		{map[string]any{"decision": "maybe"}, "decision"},
		{map[string]any{}, "decision"},
		{map[string]any{"decision": 1}, "decision"},
		{map[string]any{"decision": "reject", "reason": strings.Repeat("x", 1001)}, "reason"},
		{map[string]any{"decision": "reject", "reason": "a\u0000b"}, "reason"},
	} {
		body := admin.Post(path, c.body).ExpectError(http.StatusUnprocessableEntity, "ValidationError")
		if errs, _ := body["errors"].(map[string]any); errs[c.field] == nil {
			t.Errorf("%v: errors %v, want the field %s", c.body, body["errors"], c.field)
		}
	}
	// Another document's path, an unknown version, not a UUID.
	passport := documentID(t, w.env, w.jan, "passport")
	admin.Post(reviewPath(passport, f.ID), map[string]any{"decision": "approve"}).ExpectError(http.StatusNotFound, "NotFound")
	admin.Post(reviewPath(w.medical, uuid.New()), map[string]any{"decision": "approve"}).ExpectError(http.StatusNotFound, "NotFound")
	admin.Post("/api/v0/documents/"+w.medical.String()+"/files/nope/review", map[string]any{"decision": "approve"}).ExpectError(http.StatusNotFound, "NotFound")
	// A version that was never pending.
	old := listDocuments(t, w.hr, w.jan)["medical_examination"].Files[1]
	admin.Post(reviewPath(w.medical, old.ID), map[string]any{"decision": "approve"}).ExpectError(http.StatusConflict, "Conflict")
	if got := count(t, w.env, `SELECT count(*) FROM document_files WHERE id = $1 AND review_status = 'pending'`, f.ID); got != 1 {
		t.Error("a refused review changed the version")
	}
}

// TestDocumentReviewConcurrent: two reviews of one version at the same
// time: one wins, the other gets 409, and the document follows the winner.
func TestDocumentReviewConcurrent(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	admin := w.env.As(w.company, auth.RoleAdmin)
	admin.Get("/api/v0/drivers").Expect(http.StatusOK)
	for round := 0; round < 3; round++ {
		f := w.driverUpload(t)
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, c := range []*webtest.Caller{w.hr, admin} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				body := map[string]any{"decision": "approve"}
				if i == 1 {
					body = map[string]any{"decision": "reject", "reason": "Blurred."}
				}
				statuses[i] = c.Post(reviewPath(w.medical, f.ID), body).Status
			}()
		}
		wg.Wait()
		ok, conflict := 0, 0
		for _, s := range statuses {
			switch s {
			case http.StatusOK:
				ok++
			case http.StatusConflict:
				conflict++
			}
		}
		if ok != 1 || conflict != 1 {
			t.Fatalf("round %d: statuses %v, want one 200 and one 409", round, statuses)
		}
		var status string
		var current bool
		if err := w.env.DB.QueryRow(context.Background(), `SELECT review_status, is_current FROM document_files WHERE id = $1`, f.ID).Scan(&status, &current); err != nil {
			t.Fatal(err)
		}
		if (status == "approved") != current || status == "pending" {
			t.Errorf("round %d: the version is %s, current %v", round, status, current)
		}
		if got := count(t, w.env, `SELECT count(*) FROM audit_logs WHERE entity_id = $1 AND action LIKE 'document.review_%' AND new_values->>'file_id' = $2`, w.medical, f.ID.String()); got != 1 {
			t.Errorf("round %d: %d audit rows of the review, want 1", round, got)
		}
	}
}

// TestDriverCannotSkipReview: with requires_review on for a type, a driver
// may not change the document's fields by PUT (403 Forbidden, the document,
// its status and the driver's readiness unchanged, no audit row); the new
// fields come with an upload and wait for HR like the file. HR still
// edits them, and a driver still edits a type without review.
func TestDriverCannotSkipReview(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	w.hr.Put(rulesPath(w.company), map[string]any{"rules": []any{
		map[string]any{"document_type": "passport", "requires_review": true},
	}}).Expect(http.StatusOK)
	passport := documentID(t, w.env, w.jan, "passport")
	docPath := func(id uuid.UUID) string { return "/api/v0/documents/" + id.String() }
	audits := func() int {
		return count(t, w.env, `SELECT count(*) FROM audit_logs WHERE entity_id IN ($1, $2)`, passport, w.medical)
	}
	before, auditsBefore := listDocuments(t, w.hr, w.jan), audits()

	for _, c := range []struct {
		doc  uuid.UUID
		body map[string]any
	}{
		{passport, map[string]any{"valid_until": "2099-12-31"}},
		{passport, map[string]any{"number": "X-1", "valid_from": "2020-01-01"}},
		{passport, map[string]any{"meta": map[string]any{"note": "x"}}},
		{w.medical, map[string]any{"valid_until": "2099-12-31"}},
		{w.medical, map[string]any{"valid_until": nil}},
	} {
		body := w.driver.Put(docPath(c.doc), c.body).ExpectError(http.StatusForbidden, "Forbidden")
		if msg, _ := body["message"].(string); !strings.Contains(msg, "Upload a new file") {
			t.Errorf("%v: message %q", c.body, msg)
		}
	}
	after := listDocuments(t, w.hr, w.jan)
	for _, typ := range []string{"passport", "medical_examination"} {
		b, a := before[typ], after[typ]
		same := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
		if a.Status != b.Status || !same(a.ValidUntil, b.ValidUntil) || !same(a.ValidFrom, b.ValidFrom) || a.Number != nil ||
			string(a.Meta) != string(b.Meta) {
			t.Errorf("a refused PUT changed the %s: %+v, was %+v", typ, a, b)
		}
	}
	if after["medical_examination"].Status != "expired" || w.ready(t) != false {
		t.Error("a refused PUT made the medical examination count")
	}
	if got := audits(); got != auditsBefore {
		t.Errorf("a refused PUT wrote %d audit rows", got-auditsBefore)
	}

	// The upload path: the fields sent with the file wait with it.
	var f reviewedFile
	upload(t, w.driver, passport, filePart("passport.png", samplePNG()), field("valid_until", "2099-12-31"), field("number", "P-9")).
		Expect(http.StatusCreated).Decode(&f)
	if doc := listDocuments(t, w.hr, w.jan)["passport"]; f.ReviewStatus != "pending" || doc.ValidUntil != nil || doc.Number != nil {
		t.Errorf("a pending upload changed the passport: %+v (upload %+v)", doc, f)
	}

	// HR and admins edit; a driver edits a type without review.
	doc := w.hr.Put(docPath(w.medical), map[string]any{"valid_until": "2099-12-31"}).Expect(http.StatusOK).JSON()
	if doc["valid_until"] != "2099-12-31" || doc["status"] != "valid" || w.ready(t) != true {
		t.Errorf("HR's PUT: %v", doc)
	}
	w.driver.Put(docPath(documentID(t, w.env, w.jan, "code_95")), map[string]any{"number": "C95-1"}).Expect(http.StatusOK)
}

// TestDriverUploadAnswerHasNoStoragePath: where the server keeps a file
// (storage_path, storage_disk) is not in the answers a driver gets (its
// upload, its versions list, its documents list); HR's upload answer
// carries it.
func TestDriverUploadAnswerHasNoStoragePath(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	code95 := documentID(t, w.env, w.jan, "code_95")
	for _, doc := range []uuid.UUID{w.medical, code95} { // pending and approved at once
		res := upload(t, w.driver, doc, filePart("scan.png", samplePNG())).Expect(http.StatusCreated)
		m := res.JSON()
		for _, k := range []string{"storage_path", "storage_disk"} {
			if _, ok := m[k]; ok {
				t.Errorf("the driver's upload answer carries %s: %v", k, m[k])
			}
		}
		if folder := w.company.String() + "/" + w.jan.String(); strings.Contains(string(res.Body), folder) {
			t.Errorf("the driver's upload answer names the storage folder: %s", res.Body)
		}
		versions := w.driver.Get("/api/v0/documents/" + doc.String() + "/files/versions").Expect(http.StatusOK)
		if strings.Contains(string(versions.Body), "storage_") || strings.Contains(string(versions.Body), w.company.String()) {
			t.Errorf("the driver's versions list: %s", versions.Body)
		}
	}
	if list := w.driver.Get("/api/v0/drivers/" + w.jan.String() + "/documents").Expect(http.StatusOK); strings.Contains(string(list.Body), "storage_") {
		t.Errorf("the driver's documents list carries a storage field")
	}
	m := upload(t, w.hr, code95, filePart("scan.png", samplePNG())).Expect(http.StatusCreated).JSON()
	if p, _ := m["storage_path"].(string); !strings.HasPrefix(p, w.company.String()+"/"+w.jan.String()+"/code_95/") || m["storage_disk"] == nil {
		t.Errorf("HR's upload answer: storage_path %v, storage_disk %v", m["storage_path"], m["storage_disk"])
	}
}
