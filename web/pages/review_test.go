package pages_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
)

// TestReviewQueuePage: a driver's upload waits in HR's queue (navigation
// and dashboard count, the image inline next to the fields), a reject
// without a reason comes back at its form, a reject with one is told to
// the driver on its document page, and a second submission of the same
// form decides nothing.
func TestReviewQueuePage(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	jan := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	path := documentPath(t, env, jan, "medical_examination")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO document_rules (company_id, document_type, required, lead_days, requires_review)
		VALUES ($1, 'medical_examination', true, 30, true)`, company); err != nil {
		t.Fatal(err)
	}
	hr.get("/document-reviews").expect(t, http.StatusOK).contains(t, "Uploads to review", `data-testid="review-empty"`)

	driver := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 100)...)
	driver.upload(path, "medical.png", png, map[string]string{"valid_until": "2030-05-01", "number": "M-7"}, true).expect(t, http.StatusSeeOther)
	driver.get(path).expect(t, http.StatusOK).
		contains(t, "Version 1 was uploaded. It waits for review by the office", `data-review="pending"`, "Waiting for review", `data-status="no_data"`)

	hr.get("/").expect(t, http.StatusOK).contains(t, `data-testid="nav-count">1<`, "1 waiting for approval")
	queue := hr.get("/document-reviews").expect(t, http.StatusOK).
		contains(t, "Medical examination of Jan Novák, version 1", `data-testid="review-image"`, `alt="The uploaded file: medical.png"`,
			"M-7", `data-testid="review-after-status"`)
	m := formToken.FindStringSubmatch(queue.Body)
	if m == nil {
		t.Fatal("no form token in the queue")
	}
	img := regexp.MustCompile(`src="(/files/[0-9a-f-]+/view)"`).FindStringSubmatch(queue.Body)
	if img == nil {
		t.Fatal("no inline file")
	}
	view := hr.get(img[1]).expect(t, http.StatusOK)
	if view.Header.Get("Content-Type") != "image/png" || view.Header.Get("X-Frame-Options") != "SAMEORIGIN" ||
		!regexp.MustCompile(`^inline; filename="medical.png"`).MatchString(view.Header.Get("Content-Disposition")) {
		t.Errorf("inline file headers: %v", view.Header)
	}
	action := regexp.MustCompile(`action="(/document-reviews/[0-9a-f-]+)"`).FindStringSubmatch(queue.Body)[1]
	// What static/live.js fetches again on an upload or a decision: the list alone.
	hr.htmx("review-list").get("/document-reviews").expect(t, http.StatusOK).
		contains(t, `id="review-list"`, "Medical examination of Jan Novák, version 1", `data-live-on="document.file_uploaded document.review_completed"`).
		lacks(t, "<html", "Uploads to review")
	hr.plain()

	// No reason: back at the form, nothing decided.
	hr.post(action, url.Values{"decision": {"reject"}, "reason": {" "}, "form_token": {m[1]}}).expect(t, http.StatusUnprocessableEntity).
		contains(t, `data-testid="review-reason-error"`, "Say why the upload is rejected", `aria-invalid="true"`)
	// With one: rejected, and the same form again decides nothing.
	hr.post(action, url.Values{"decision": {"reject"}, "reason": {"The photo is blurred."}, "form_token": {m[1]}}).expect(t, http.StatusSeeOther)
	hr.get("/document-reviews").expect(t, http.StatusOK).contains(t, "Rejected: Medical examination of Jan Novák.", `data-testid="review-empty"`)
	hr.post(action, url.Values{"decision": {"approve"}, "form_token": {m[1]}}).expect(t, http.StatusSeeOther)
	hr.get("/document-reviews").expect(t, http.StatusOK).contains(t, "This upload was already reviewed.")
	var status string
	if err := env.DB.QueryRow(context.Background(), `SELECT review_status FROM document_files f JOIN driver_documents d ON d.id = f.document_id
		WHERE d.driver_id = $1`, jan).Scan(&status); err != nil || status != "rejected" {
		t.Errorf("the version is %q (%v), want rejected", status, err)
	}

	driver.get(path).expect(t, http.StatusOK).
		contains(t, `data-review="rejected"`, "Version 1 was rejected. Reason: The photo is blurred.", `data-status="no_data"`)
	driver.get("/notifications").expect(t, http.StatusOK).contains(t, "Upload rejected", "Reason: The photo is blurred.")
	// Drivers do not review.
	driver.get("/document-reviews").expect(t, http.StatusForbidden)
}

// TestDriverDocumentPageWaitsForReview: on a type under review, the
// document page tells the driver above the upload form that the office
// checks the upload; the form's fields never change the document without
// a file, and with one they wait for HR like the file. HR's form says
// nothing of it, nor does a driver's of a type without review.
func TestDriverDocumentPageWaitsForReview(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	jan := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email("jan@acme.test"))
	if _, err := env.DB.Exec(context.Background(), `INSERT INTO document_rules (company_id, document_type, required, lead_days, requires_review)
		VALUES ($1, 'passport', true, 30, true)`, company); err != nil {
		t.Fatal(err)
	}
	path := documentPath(t, env, jan, "passport")
	validUntil := func() string {
		var s *string
		if err := env.DB.QueryRow(context.Background(), `SELECT valid_until::text FROM driver_documents WHERE driver_id = $1 AND type = 'passport'`, jan).
			Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return ""
		}
		return *s
	}
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 100)...)
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.upload(path, "passport.png", png, map[string]string{"valid_until": "2030-01-01"}, true).expect(t, http.StatusSeeOther)
	hr.get(path).expect(t, http.StatusOK).lacks(t, `data-testid="upload-review-hint"`)

	driver := signIn(t, env, company, auth.RoleDriver, "jan@acme.test", "en")
	driver.get(path).expect(t, http.StatusOK).contains(t, `data-testid="upload-review-hint"`, "The office checks this upload")
	driver.get(documentPath(t, env, jan, "code_95")).expect(t, http.StatusOK).lacks(t, `data-testid="upload-review-hint"`)

	driver.upload(path, "", nil, map[string]string{"valid_until": "2099-12-31"}, true).expect(t, http.StatusUnprocessableEntity)
	if got := validUntil(); got != "2030-01-01" {
		t.Errorf("the form without a file set the passport's end of validity to %q", got)
	}
	driver.upload(path, "passport.png", png, map[string]string{"valid_until": "2099-12-31"}, true).expect(t, http.StatusSeeOther)
	if got := validUntil(); got != "2030-01-01" {
		t.Errorf("a pending upload set the passport's end of validity to %q", got)
	}
	driver.get(path).expect(t, http.StatusOK).contains(t, `data-review="pending"`, `data-status="valid"`)
}
