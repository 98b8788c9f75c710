package api_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/mrz"
	"github.com/konvoj/konvoj/web/webtest"
)

// td3 is a passport's zone (TD3) with right check digits.
func td3(issuer, number, birth, expiry string) string {
	pad := func(s string, n int) string { return s + strings.Repeat("<", n-len(s)) }
	l1 := pad("P<"+issuer+"NOVAK<<JAN", 44)
	num := pad(number, 9)
	l2 := num + string(mrz.CheckDigit(num)) + issuer + birth + string(mrz.CheckDigit(birth)) + "M" + expiry + string(mrz.CheckDigit(expiry)) +
		strings.Repeat("<", 14) + "<"
	l2 += string(mrz.CheckDigit(l2[0:10] + l2[13:20] + l2[21:43]))
	return l1 + "\n" + l2
}

// An upload or a metadata update that carries meta.mrz is checked: its
// check digits, then its agreement with the number, valid_until and
// country sent or stored; wrong is 422 at meta.mrz, worded.
func TestDocumentMRZIsChecked(t *testing.T) {
	t.Parallel()
	env := webtest.New(t)
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	docID := documentID(t, env, driver, "passport")
	path := "/api/v0/documents/" + docID.String()
	good := td3("CZE", "40123456", "850412", "310515")

	refused := func(m map[string]any, want string) {
		t.Helper()
		errs, _ := m["errors"].(map[string]any)
		got := fmt.Sprint(errs["meta.mrz"])
		if errs["meta.mrz"] == nil || !strings.Contains(got, want) {
			t.Errorf("meta.mrz: %v, want a message with %q", m, want)
		}
	}
	// A zone that agrees with what is sent: stored as sent.
	var doc documentJSON
	hr.Put(path, map[string]any{"number": "40 123 456", "country": "CZ", "valid_until": "2031-05-15", "meta": map[string]any{"mrz": good}}).
		Expect(http.StatusOK).Decode(&doc)
	var meta map[string]string
	if err := json.Unmarshal(doc.Meta, &meta); err != nil || meta["mrz"] != good {

		t.Errorf("meta after a good zone: %s", doc.Meta)
	}
	// The same zone against the stored values, sent alone.
	hr.Put(path, map[string]any{"meta": map[string]any{"mrz": good, "note": "again"}}).Expect(http.StatusOK)

	// A wrong check digit (the number's), the TD1 specimen's composite, a
	// zone that is no zone, meta.mrz that is not text.
	bad := []byte(good)
	bad[45+9] = '0' // the number's digit
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": string(bad)}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError"),
		"check digit")
	specimen := "I<UTOD231458907<<<<<<<<<<<<<<<\n7408122F1204159UTO<<<<<<<<<<<7\nERIKSSON<<ANNA<MARIA<<<<<<<<<<"
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": specimen}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError"),
		"the lines as a whole")
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": "P<CZE\nshort"}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError"),
		"2 lines of 44")
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": 12}}).ExpectError(http.StatusUnprocessableEntity, "ValidationError"),
		"2 lines of 44")

	// Right digits, wrong document: the number, the expiry, the country,
	// sent or stored.
	refused(hr.Put(path, map[string]any{"number": "40123457", "meta": map[string]any{"mrz": good}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "document number: the MRZ reads 40123456")
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": td3("CZE", "40123456", "850412", "310516")}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "end of validity: the MRZ reads 2031-05-16")
	refused(hr.Put(path, map[string]any{"meta": map[string]any{"mrz": td3("SVK", "40123456", "850412", "310515")}}).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError"), "issuing country: the MRZ reads SVK")

	// An upload with its metadata: the same checks, nothing stored when
	// refused.
	m := upload(t, hr, docID, filePart("p.pdf", samplePDF(t, 100)), field("number", "99"), field("meta", `{"mrz":`+jsonString(good)+`}`)).
		ExpectError(http.StatusUnprocessableEntity, "ValidationError")
	refused(m, "document number")
	if n := count(t, env, `SELECT count(*) FROM document_files WHERE document_id = $1`, docID); n != 0 {
		t.Errorf("%d files after a refused upload", n)
	}
	mustUpload(t, hr, docID, filePart("p.pdf", samplePDF(t, 100)), field("number", "40123456"), field("meta", `{"mrz":`+jsonString(good)+`}`))
}

func jsonString(s string) string {
	return `"` + strings.ReplaceAll(s, "\n", `\n`) + `"`
}
