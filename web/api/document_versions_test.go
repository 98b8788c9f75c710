package api_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
)

// versionDetails is an entry of the versions list with the version's own
// number and validity.
type versionDetails struct {
	Version      int     `json:"version"`
	IsCurrent    bool    `json:"is_current"`
	ReviewStatus string  `json:"review_status"`
	Number       *string `json:"number"`
	ValidFrom    *string `json:"valid_from"`
	ValidUntil   *string `json:"valid_until"`
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// TestDocumentVersionsKeepTheirDetails: each version keeps the number and
// validity it gave the document. An upload without details keeps the
// fields it leaves out (the contract); details=replace makes them the new
// version's own and clears what it leaves out; a metadata update corrects
// the current version only; a pending version shows what approving it
// would set.
func TestDocumentVersionsKeepTheirDetails(t *testing.T) {
	t.Parallel()
	w := newReviewWorld(t)
	hr := w.hr
	insurance := documentID(t, w.env, w.jan, "travel_insurance")
	versions := func(doc string) []versionDetails {
		t.Helper()
		var page struct{ Data []versionDetails }
		hr.Get("/api/v0/documents/" + doc + "/files/versions").Expect(http.StatusOK).Decode(&page)
		return page.Data
	}
	pdf := samplePDF(t, 2000)
	mustUpload(t, hr, insurance, filePart("v1.pdf", pdf), field("number", "POL-1"),
		field("valid_from", "2024-11-18"), field("valid_until", "2025-11-30"))
	// Without details the left-out fields stay (valid_from, number).
	mustUpload(t, hr, insurance, filePart("v2.pdf", pdf), field("valid_until", "2026-11-30"))
	// details=replace: the renewal's own number and end; no start given.
	mustUpload(t, hr, insurance, filePart("v3.pdf", pdf), field("details", "replace"), field("number", "POL-3"),
		field("valid_until", "2027-11-30"))
	doc := listDocuments(t, hr, w.jan)["travel_insurance"]
	if str(doc.Number) != "POL-3" || doc.ValidFrom != nil || str(doc.ValidUntil) != "2027-11-30" {
		t.Errorf("after the replacing renewal: number %s, valid %s – %s", str(doc.Number), str(doc.ValidFrom), str(doc.ValidUntil))
	}
	want := [][3]string{
		{"POL-3", "null", "2027-11-30"},
		{"POL-1", "2024-11-18", "2026-11-30"},
		{"POL-1", "2024-11-18", "2025-11-30"},
	}
	check := func(when string, got []versionDetails, want [][3]string) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d versions, want %d", when, len(got), len(want))
		}
		for i, v := range got {
			if g := [3]string{str(v.Number), str(v.ValidFrom), str(v.ValidUntil)}; g != want[i] {
				t.Errorf("%s: version %d has %v, want %v", when, v.Version, g, want[i])
			}
		}
	}
	check("uploads", versions(insurance.String()), want)

	// A correction of the document corrects its current version only.
	hr.Put("/api/v0/documents/"+insurance.String(), map[string]any{"number": "POL-3A", "valid_from": "2026-12-01"}).Expect(http.StatusOK)
	want[0] = [3]string{"POL-3A", "2026-12-01", "2027-11-30"}
	check("a correction", versions(insurance.String()), want)

	body := upload(t, hr, insurance, filePart("v4.pdf", pdf), field("details", "everything")).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	if _, ok := body["errors"].(map[string]any)["details"]; !ok {
		t.Errorf("details=everything: %v", body)
	}
	check("a refused upload", versions(insurance.String()), want)

	// A driver's upload under review: the version shows what it would set,
	// before and after approval; the document changes only on approval.
	f := w.driverUpload(t)
	got := versions(w.medical.String())
	if got[0].ReviewStatus != "pending" || str(got[0].Number) != "MED-2" || str(got[0].ValidUntil) != dateIn(365) {
		t.Errorf("pending version: %+v", got[0])
	}
	if str(got[1].Number) != "null" || str(got[1].ValidUntil) != dateIn(-3) {
		t.Errorf("the current version before approval: number %s until %s", str(got[1].Number), str(got[1].ValidUntil))
	}
	hr.Post(reviewPath(w.medical, f.ID), map[string]any{"decision": "approve"}).Expect(http.StatusOK)
	got = versions(w.medical.String())
	if !got[0].IsCurrent || str(got[0].Number) != "MED-2" || str(got[0].ValidUntil) != dateIn(365) {
		t.Errorf("approved version: %+v", got[0])
	}
	// A driver sees the same details of its own versions.
	var own struct{ Data []versionDetails }
	w.env.As(w.company, auth.RoleDriver, "jan@example.cz").Get("/api/v0/documents/" + w.medical.String() + "/files/versions").
		Expect(http.StatusOK).Decode(&own)
	if len(own.Data) != 2 || str(own.Data[0].Number) != "MED-2" {
		t.Errorf("the driver's versions: %+v", own.Data)
	}
}
