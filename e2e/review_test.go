package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

// photo is a real PNG of w×h pixels (a browser decodes it), as a phone's
// camera would hand in a picture of a document.
func photo(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: 160, A: 255})
		}
	}
	var buf bytes.Buffer
	must(t, png.Encode(&buf, img))
	return buf.Bytes()
}

// isReady is the driver's is_ready as the API answers it.
func (a *App) isReady(t *testing.T, company, driver uuid.UUID) bool {
	t.Helper()
	var d map[string]any
	a.api(t, company, http.MethodGet, "/api/v0/drivers/"+driver.String(), nil, http.StatusOK, &d)
	ready, ok := d["is_ready"].(bool)
	if !ok {
		t.Fatalf("driver %s: is_ready is %v", driver, d["is_ready"])
	}
	return ready
}

// A driver on a phone photographs a medical examination, a type whose
// uploads HR reviews: the upload waits and the driver is not ready yet.
// HR opens the review queue, sees the picture (loaded, not a broken image)
// beside the document's fields and approves it: the driver is ready, on
// the pages and in the API. A second upload is rejected with a reason,
// which the driver reads on the phone; the approved version stays.
func TestDriverUploadReviewedByHR(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	app.api(t, company, http.MethodPut, "/api/v0/companies/"+company.String()+"/document-rules",
		map[string]any{"rules": []map[string]any{{"document_type": "medical_examination", "requires_review": true}}}, http.StatusOK, nil)
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01",
			Docs: map[string]int{"passport": 900, "drivers_license": 1200, "tachograph_card": 700, "code_95": 1500}},
	})
	petr := ids["petr.maly@acme.test"]
	own := "/drivers/" + petr.String()
	if app.isReady(t, company, petr) {
		t.Fatal("the driver is ready without a medical examination")
	}

	// The driver, on the phone: from the to-do to the document, a photo.
	me := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	todo := me.GetByTestId("todo-document").Filter(playwright.LocatorFilterOptions{HasText: "Hand in: Medical examination"})
	must(t, todo.Click())
	must(t, waitURL(me, regexp.MustCompile(regexp.QuoteMeta(own)+`/documents/[0-9a-f-]+$`)))
	docURL := me.URL()
	must(t, expect.Locator(me.Locator("h1")).ToHaveText("Medical examination"))
	validUntil := dateIn(365)
	must(t, me.GetByTestId("upload-camera").SetInputFiles([]playwright.InputFile{{Name: "IMG_2041.png", MimeType: "image/png", Buffer: photo(t, 240, 160)}}))
	must(t, expect.Locator(me.GetByTestId("upload-file-name")).ToHaveText("Selected file: IMG_2041.png"))
	must(t, me.GetByTestId("upload-number").Fill("MUDR-2041"))
	must(t, me.GetByTestId("upload-valid_until").Fill(validUntil))
	must(t, me.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(me.GetByTestId("upload-notice")).ToContainText("Version 1 was uploaded. It waits for review by the office"))
	must(t, expect.Locator(me.GetByTestId("review-state")).ToHaveAttribute("data-review", "pending"))
	must(t, expect.Locator(me.Locator("[data-testid=document-status] [data-status]")).ToHaveAttribute("data-status", "no_data"))
	must(t, expect.Locator(me.GetByTestId("version-1").GetByTestId("version-review")).ToHaveText("Waiting for review"))
	app.Screenshots(t, me, "review-driver-pending")
	app.CheckA11y(t, me)
	if app.isReady(t, company, petr) {
		t.Fatal("a pending upload made the driver ready")
	}

	// HR: the driver is among those not ready; the queue shows the photo.
	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	notReady := hr.GetByTestId("not-ready-driver").Filter(playwright.LocatorFilterOptions{HasText: "Petr Malý"})
	must(t, expect.Locator(notReady).ToContainText("Medical examination"))
	must(t, expect.Locator(hr.GetByTestId("home-review-count")).ToHaveText("1 waiting for approval"))
	must(t, hr.GetByTestId("home-review-open").Click())
	must(t, waitURL(hr, app.URL+"/document-reviews"))
	item := hr.GetByTestId("review-item")
	must(t, expect.Locator(item).ToHaveCount(1))
	must(t, expect.Locator(item.Locator("h2")).ToHaveText("Medical examination of Petr Malý, version 1"))
	img := item.GetByTestId("review-image")
	must(t, expect.Locator(img).ToBeVisible())
	must(t, expect.Locator(img).ToHaveAttribute("alt", "The uploaded file: IMG_2041.png"))
	// Loaded and decoded: a broken image would have no natural size.
	size, err := img.Evaluate(`img => img.decode().then(() => [img.naturalWidth, img.naturalHeight])`, nil)
	must(t, err)
	if fmt.Sprint(size) != "[240 160]" {
		t.Errorf("the shown image is %v, want the uploaded 240×160", size)
	}
	fields := item.GetByTestId("review-fields")
	must(t, expect.Locator(fields).ToContainText("MUDR-2041"))
	must(t, expect.Locator(fields).ToContainText(i18n.EN.Date(civil.DateOf(companyNow().AddDate(0, 0, 365)))))
	must(t, expect.Locator(item.Locator("[data-testid=review-after-status] [data-status]")).ToHaveAttribute("data-status", "valid"))
	// On a laptop the picture and the fields stand side by side.
	imgBox, err := img.BoundingBox()
	must(t, err)
	fieldsBox, err := fields.BoundingBox()
	must(t, err)
	if fieldsBox.X < imgBox.X+imgBox.Width || fieldsBox.Y > imgBox.Y+imgBox.Height {
		t.Errorf("the fields (%+v) are not beside the image (%+v)", *fieldsBox, *imgBox)
	}
	app.Screenshots(t, hr, "review-queue")
	app.CheckA11y(t, hr)

	must(t, item.GetByTestId("review-approve").Click())
	must(t, waitURL(hr, app.URL+"/document-reviews"))
	must(t, expect.Locator(hr.GetByTestId("flash-success")).ToContainText("Approved: Medical examination of Petr Malý."))
	must(t, expect.Locator(hr.GetByTestId("review-empty")).ToBeVisible())
	if !app.isReady(t, company, petr) {
		t.Fatal("the approved medical examination did not make the driver ready")
	}
	_, err = hr.Goto(app.URL + "/")
	must(t, err)
	must(t, expect.Locator(hr.GetByTestId("not-ready-driver").Filter(playwright.LocatorFilterOptions{HasText: "Petr Malý"})).ToHaveCount(0))

	// The driver sees the approved version and nothing left to hand in.
	_, err = me.Goto(docURL)
	must(t, err)
	must(t, expect.Locator(me.Locator("[data-testid=document-status] [data-status]")).ToHaveAttribute("data-status", "valid"))
	must(t, expect.Locator(me.GetByTestId("document-number")).ToHaveText("MUDR-2041"))
	must(t, expect.Locator(me.GetByTestId("review-state")).ToHaveCount(0))
	_, err = me.Goto(app.URL + "/")
	must(t, err)
	must(t, expect.Locator(me.GetByTestId("todo-document").Filter(playwright.LocatorFilterOptions{HasText: "Medical examination"})).ToHaveCount(0))

	// A second photo, rejected with a reason the driver reads on the phone.
	_, err = me.Goto(docURL)
	must(t, err)
	must(t, me.GetByTestId("upload-camera").SetInputFiles([]playwright.InputFile{{Name: "IMG_2077.png", MimeType: "image/png", Buffer: photo(t, 120, 200)}}))
	must(t, me.GetByTestId("upload-number").Fill("MUDR-2077"))
	must(t, me.GetByTestId("upload-valid_until").Fill(dateIn(700)))
	must(t, me.GetByTestId("upload-submit").Click())
	must(t, expect.Locator(me.GetByTestId("upload-notice")).ToContainText("Version 2 was uploaded. It waits for review"))

	_, err = hr.Goto(app.URL + "/document-reviews")
	must(t, err)
	must(t, expect.Locator(item.Locator("h2")).ToHaveText("Medical examination of Petr Malý, version 2"))
	must(t, expect.Locator(item.GetByTestId("review-image")).ToBeVisible())
	reason := "The photo is blurred; the date cannot be read. Please take it again in daylight."
	must(t, item.GetByTestId("review-reason").Fill(reason))
	must(t, item.GetByTestId("review-reject").Click())
	must(t, waitURL(hr, app.URL+"/document-reviews"))
	must(t, expect.Locator(hr.GetByTestId("flash-success")).ToContainText("Rejected: Medical examination of Petr Malý. The driver was told why."))
	if !app.isReady(t, company, petr) {
		t.Fatal("a rejected upload took the driver's readiness away")
	}

	_, err = me.Goto(docURL)
	must(t, err)
	state := me.GetByTestId("review-state")
	must(t, expect.Locator(state).ToHaveAttribute("data-review", "rejected"))
	must(t, expect.Locator(state).ToContainText("Version 2 was rejected. Reason: "+reason))
	must(t, expect.Locator(state).ToBeInViewport())
	must(t, expect.Locator(me.GetByTestId("version-2").GetByTestId("version-reason")).ToHaveText("Reason: "+reason))
	must(t, expect.Locator(me.Locator("[data-testid=document-status] [data-status]")).ToHaveAttribute("data-status", "valid"))
	must(t, expect.Locator(me.GetByTestId("document-number")).ToHaveText("MUDR-2041"))
	if overflow, _ := me.Evaluate(`() => document.documentElement.scrollWidth > window.innerWidth`); overflow == true {
		t.Error("on the phone the document page scrolls sideways")
	}
	app.Screenshots(t, me, "review-driver-rejected")
	app.CheckA11y(t, me)
	_, err = me.Goto(app.URL + "/notifications")
	must(t, err)
	must(t, expect.Locator(me.GetByTestId("notifications")).ToContainText(reason))
}
