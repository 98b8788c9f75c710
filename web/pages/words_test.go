package pages_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/audit"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

var (
	technicalBlock = regexp.MustCompile(`(?s)<details[^>]*data-testid="audit-technical".*?</details>`)
	htmlTag        = regexp.MustCompile(`(?s)<[^>]*>`)
	snakeCase      = regexp.MustCompile(`\b[a-z]+_[a-z0-9_]+\b`)
	hexHash        = regexp.MustCompile(`\b[0-9a-f]{32,}\b`)
)

// visibleText is the text of the audit table a person reads without
// opening a row's technical details.
func visibleText(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, `data-testid="audit-table"`)
	j := strings.Index(body[max(i, 0):], "</table>")
	if i < 0 || j < 0 {
		t.Fatalf("no audit table: %s", truncate(body))
	}
	table := technicalBlock.ReplaceAllString(body[i:i+j], "")
	return htmlTag.ReplaceAllString(table, " ")
}

// TestWordsNotCodes: the ledger, its export and the audit log speak the
// reader's language: categories in words, amounts as money, every action
// and field in words and values formatted, nothing a technician reads
// (hashes, storage, ids, JSON) unless a row's technical details are
// opened; the log filters by action and exports what it shows.
func TestWordsNotCodes(t *testing.T) {
	w := newFinanceWorld(t)
	cs := i18n.CS
	jan := w.jan.String()
	ledger := "/drivers/" + jan + "/finance"
	day := webtest.Today()
	for _, body := range []map[string]any{
		{"transaction_type": "bonus", "category": "performance_bonus", "amount": "1500", "transaction_date": day},
		{"transaction_type": "business_trip", "category": "business_trip", "amount": "800.50", "transaction_date": day},
		{"transaction_type": "deduction", "category": "Stravné", "amount": "-2000", "transaction_date": day},
	} {
		w.api.Post("/api/v0/drivers/"+jan+"/finance", body).Expect(http.StatusCreated)
	}
	w.api.Post("/api/v0/drivers/"+jan+"/penalties", map[string]any{"penalty_type": "damage", "amount": "2000",
		"incident_date": day, "description": "Zrcátko"}).Expect(http.StatusCreated)
	hr := signIn(t, w.env, w.company, auth.RoleHRManager, "hana@acme.test", "cs")
	hr.upload(documentPath(t, w.env, w.jan, "drivers_license"), "ridicak.pdf", []byte("%PDF-1.7\nlicence"),
		map[string]string{"number": "EK 1", "valid_until": "2031-05-01"}, true).expect(t, http.StatusSeeOther)

	// The ledger: categories in words (one typed by people as typed),
	// amounts as money.
	hr.get(ledger).expect(t, http.StatusOK).
		contains(t, "Prémie za výkon", "Služební cesta", "Stravné", czk(cs, "-2000.00"), czk(cs, "1500.00"), cs.T("finance.category.damage_fine")).
		lacks(t, "performance_bonus", ">business_trip<", ">damage_fine<")
	// Its export: the same words.
	exp := hr.get(ledger+"/export?format=csv").expect(t, http.StatusOK)
	if !strings.Contains(exp.Body, "Prémie za výkon") || strings.Contains(exp.Body, "performance_bonus") ||
		strings.Contains(exp.Body, ",business_trip,") {
		t.Errorf("the export holds codes: %s", exp.Body)
	}

	// The audit log in Czech: every row's action in words, values
	// formatted, no codes, hashes or JSON outside the technical details.
	page := hr.get("/audit").expect(t, http.StatusOK)
	// (The API's test caller is named "Test hr_manager".)
	text := strings.ReplaceAll(visibleText(t, page.Body), "Test hr_manager", "")
	for _, bad := range []*regexp.Regexp{snakeCase, hexHash} {
		if m := bad.FindAllString(text, 5); m != nil {
			t.Errorf("the log shows %q: %s", m, text)
		}
	}
	for _, a := range audit.Actions {
		if strings.Contains(a, ".") && strings.Contains(text, a) {
			t.Errorf("the log shows the action code %s", a)
		}
	}
	if strings.ContainsAny(text, "{}") {
		t.Errorf("the log shows JSON: %s", text)
	}
	for _, want := range []string{cs.T("audit.action.penalty.created"), cs.T("audit.action.document.uploaded"), "Prémie za výkon",
		czk(cs, "-2000.00"), cs.T("penalty.type.damage"), "1.\u00a05.\u00a02031", cs.T("doc.status.valid")} {
		if !strings.Contains(text, want) {
			t.Errorf("the log lacks %q: %s", want, text)
		}
	}
	// What a technician reads is there, folded away.
	page.contains(t, `data-testid="audit-technical"`, "hash_sha256", "storage_disk")

	// The action filter: a select of actions in words; the log and its
	// export keep to it.
	page.contains(t, `<option value="penalty.created">`+cs.T("audit.action.penalty.created")+`</option>`)
	one := hr.get("/audit?action=penalty.created").expect(t, http.StatusOK).
		contains(t, cs.T("audit.total", "count", "1"), `<option value="penalty.created" selected`,
			esc(withFormat("/audit/export?action=penalty.created", "csv")))
	if n := strings.Count(one.Body, `data-testid="audit-row"`); n != 1 {
		t.Errorf("%d rows for one action", n)
	}
	recs := readCSV(t, hr.get("/audit/export?action=penalty.created&format=csv").expect(t, http.StatusOK))
	if len(recs) != 2 || recs[0][0] != cs.T("audit.when") || recs[1][2] != cs.T("audit.action.penalty.created") ||
		recs[1][4] != "Jan Novák" || !strings.Contains(recs[1][6], czk(cs, "2000.00")) || snakeCase.MatchString(strings.Join(recs[1][2:], " ")) {
		t.Errorf("filtered export %q", recs)
	}
	all := readCSV(t, hr.get("/audit/export?format=csv").expect(t, http.StatusOK))
	if got := strings.Count(page.Body, `data-testid="audit-row"`); len(all) != got+1 {
		t.Errorf("the export has %d rows, the page %d", len(all)-1, got)
	}
	hr.get("/audit/export?format=pdf").expect(t, http.StatusUnprocessableEntity)
	signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "cs").get("/audit/export?format=csv").expect(t, http.StatusForbidden)
}

func withFormat(u, format string) string { return u + "&format=" + url.QueryEscape(format) }

func readCSV(t *testing.T, p page) [][]string {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix([]byte(p.Body), []byte("\ufeff")))).ReadAll()
	if err != nil {
		t.Fatalf("CSV: %v", err)
	}
	return recs
}
