package pages_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/config"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/web/webtest"
)

// formFile is one file of a multipart page form.
type formFile struct {
	name string
	body []byte
}

// sendForm posts a multipart form (text fields, then files in the part
// "file") with the CSRF token in the header, as a browser sending the
// page's form with its hidden field would be checked.
func (b *browser) sendForm(path string, fields url.Values, files ...formFile) page {
	b.t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	for k, vs := range fields {
		for _, v := range vs {
			_ = w.WriteField(k, v)
		}
	}
	for _, f := range files {
		fw, _ := w.CreateFormFile("file", f.name)
		_, _ = fw.Write(f.body)
	}
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, b.abs(path), &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("X-CSRF-Token", b.cookie("konvoj_csrf"))
	return b.do(req)
}

// follow opens where a redirect points.
func (b *browser) follow(t *testing.T, p page) page {
	t.Helper()
	if p.Status != http.StatusSeeOther {
		t.Fatalf("status %d, want 303; body:\n%s", p.Status, truncate(p.Body))
	}
	return b.get(p.Header.Get("Location"))
}

var (
	pngPhoto   = append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{7}, 200)...)
	formToken  = regexp.MustCompile(`name="form_token" value="([0-9a-f-]+)"`)
	thumbnail  = regexp.MustCompile(`<img src="(/penalties/[0-9a-f-]+/evidence/[0-9a-f-]+)"`)
	penaltyRef = regexp.MustCompile(`/drivers/[0-9a-f-]+/penalties/([0-9a-f-]+)$`)
)

// TestPenaltyPagesCreateDisputeResolve: HR records a penalty with a photo
// (the form sent twice records one); the driver sees it, is refused a bad
// file and an empty reason in the dispute form, then disputes with a
// photo and reads the review promise; HR finds it in the queue with the
// photo and the due date, is refused a bad new amount in that item's
// form, reduces it; the driver sees the outcome and the amount deducted.
func TestPenaltyPagesCreateDisputeResolve(t *testing.T) {
	env := devEnv(t, webtest.WithConfig(func(c *config.Config) { c.UploadMaxBytes = 64 << 10 }))
	ctx := context.Background()
	company := env.Company("Acme", "free")
	mail := "jan@acme.test"
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email(mail))
	list := "/drivers/" + driver.String() + "/penalties"
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")

	// The driver page leads HR to the penalties and the create form.
	hr.get("/drivers/"+driver.String()).expect(t, http.StatusOK).contains(t, `href="`+list+`"`)
	hr.get(list).expect(t, http.StatusOK).contains(t, "No penalties.", `href="`+list+`/new"`)
	form := hr.get(list+"/new").expect(t, http.StatusOK).contains(t, "New penalty for Jan Novák", `capture="environment"`, "multiple")
	token := formToken.FindStringSubmatch(form.Body)
	if token == nil {
		t.Fatal("no form token in the create form")
	}
	fields := url.Values{"form_token": {token[1]}, "penalty_type": {"speeding"}, "severity": {"minor"},
		"incident_date": {webtest.Today()}, "amount": {"abc"}, "description": {""}}
	// Refused input: the messages at their fields, nothing recorded.
	hr.sendForm(list+"/new", fields).expect(t, http.StatusUnprocessableEntity).
		contains(t, `id="penalty-amount-error"`, `id="penalty-description-error"`, `value="`+token[1]+`"`)
	// A wrong file type: said at the file input (415).
	fields.Set("amount", "1 250,50")
	fields.Set("description", "92 km/h in a 50 zone")
	hr.sendForm(list+"/new", fields, formFile{"radar.txt", []byte("plain text")}).expect(t, http.StatusUnsupportedMediaType).
		contains(t, `id="penalty-files-error"`, "This kind of file cannot be uploaded")
	if n := countRows(t, env, `SELECT count(*) FROM penalties WHERE driver_id = $1`, driver); n != 0 {
		t.Fatalf("%d penalties after refused forms", n)
	}
	// Sent twice: one penalty, the second submission goes to it.
	first := hr.sendForm(list+"/new", fields, formFile{"radar.png", pngPhoto})
	second := hr.sendForm(list+"/new", fields, formFile{"radar.png", pngPhoto})
	if first.Status != http.StatusSeeOther || second.Status != http.StatusSeeOther ||
		first.Header.Get("Location") != second.Header.Get("Location") {
		t.Fatalf("double submit: %d %q, %d %q", first.Status, first.Header.Get("Location"), second.Status, second.Header.Get("Location"))
	}
	if n := countRows(t, env, `SELECT count(*) FROM penalties WHERE driver_id = $1`, driver); n != 1 {
		t.Fatalf("%d penalties after a double submit, want 1", n)
	}
	if n := countRows(t, env, `SELECT count(*) FROM penalty_evidence`); n != 1 {
		t.Fatalf("%d evidence files after a double submit, want 1", n)
	}
	m := penaltyRef.FindStringSubmatch(first.Header.Get("Location"))
	if m == nil {
		t.Fatalf("created: %q", first.Header.Get("Location"))
	}
	penaltyPath := first.Header.Get("Location")
	hr.follow(t, first).expect(t, http.StatusOK).contains(t, "The penalty of CZK\u00a01,250.50 was recorded.", "radar.png")

	// The driver, in Czech, on its own penalties.
	me := signIn(t, env, company, auth.RoleDriver, mail, "cs")
	me.get("/drivers/"+driver.String()).expect(t, http.StatusOK).contains(t, `href="`+list+`"`, "Moje pokuty")
	me.get(list).expect(t, http.StatusOK).contains(t, "Moje pokuty", "Překročení rychlosti", "1\u00a0250,50\u00a0Kč", "Čeká na vás").
		lacks(t, list+"/new")
	me.get(penaltyPath).expect(t, http.StatusOK).
		contains(t, `accept="image/*,application/pdf"`, `capture="environment"`, "multiple", "Rozporovat pokutu", "Přijmout")
	// Refusals in the dispute form: a bad file (415), no reason (422).
	me.sendForm(penaltyPath+"/dispute", url.Values{"dispute_reason": {"the sign was hidden"}}, formFile{"a.txt", []byte("text")}).
		expect(t, http.StatusUnsupportedMediaType).contains(t, `id="dispute-files-error"`, "Tento typ souboru", "the sign was hidden")
	me.sendForm(penaltyPath+"/dispute", url.Values{"dispute_reason": {" "}}, formFile{"sign.png", pngPhoto}).
		expect(t, http.StatusUnprocessableEntity).contains(t, `id="dispute-reason-error"`)
	if n := countRows(t, env, `SELECT count(*) FROM penalties WHERE status = 'pending'`); n != 1 {
		t.Fatal("a refused dispute changed the penalty")
	}
	sent := me.sendForm(penaltyPath+"/dispute", url.Values{"dispute_reason": {"the sign was hidden"}}, formFile{"sign.png", pngPhoto})
	me.follow(t, sent).expect(t, http.StatusOK).
		contains(t, "Personální oddělení to posoudí do 5 pracovních dnů.", "Rozporována", "the sign was hidden", "sign.png").
		lacks(t, `data-testid="dispute-form"`)
	// Sent again: the state rule (409), said on the page in Czech.
	me.sendForm(penaltyPath+"/dispute", url.Values{"dispute_reason": {"again"}}).expect(t, http.StatusConflict).
		contains(t, `id="dispute-error"`, "Rozporovat lze jen čekající pokutu")

	// HR's queue: the driver, the reason, both photos, the due date.
	queue := hr.get("/penalties").expect(t, http.StatusOK).contains(t, "Jan Novák", "the sign was hidden", "Review by")
	thumbs := thumbnail.FindAllStringSubmatch(queue.Body, -1)
	if len(thumbs) != 2 {
		t.Fatalf("%d thumbnails in the queue, want 2", len(thumbs))
	}
	if res := hr.get(thumbs[0][1]); res.Status != http.StatusOK || res.Body != string(pngPhoto) || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("thumbnail: %d %q", res.Status, res.Header.Get("Content-Type"))
	}
	// The dispatcher may not list penalties; another company's HR gets 403.
	signIn(t, env, company, auth.RoleDispatcher, "dis@acme.test", "en").get(thumbs[0][1]).expect(t, http.StatusForbidden)
	other := env.Company("Other", "free")
	signIn(t, env, other, auth.RoleHRManager, "hr@other.test", "en").get(thumbs[0][1]).expect(t, http.StatusForbidden)

	// A reduce to the same amount is refused in that item's form.
	resolve := penaltyPath + "/resolve"
	hr.post(resolve, url.Values{"resolution_action": {"reduce"}, "new_amount": {"1250.50"}, "back": {"queue"}}).
		expect(t, http.StatusUnprocessableEntity).contains(t, `id="resolve-`+m[1]+`-amount-error"`, "The new amount must be below")
	done := hr.post(resolve, url.Values{"resolution_action": {"reduce"}, "new_amount": {"300"}, "resolution": {"partly right"}, "back": {"queue"}})
	hr.follow(t, done).expect(t, http.StatusOK).contains(t, "The dispute was resolved.", "No penalty in this status.")
	// Resolved again from the queue: the refusal is said above the list.
	hr.post(resolve, url.Values{"resolution_action": {"keep"}, "back": {"queue"}}).expect(t, http.StatusConflict).
		contains(t, `id="queue-error"`, "Only a disputed penalty can be resolved")

	// The driver sees the outcome and the amount now deducted.
	me.get(penaltyPath).expect(t, http.StatusOK).
		contains(t, "Rozhodnuta", "Strhávaná částka", "300,00\u00a0Kč", "partly right").lacks(t, "1\u00a0250,50")
	var amount string
	if err := env.DB.QueryRow(ctx, `SELECT ft.amount::text FROM penalties p JOIN finance_transactions ft ON ft.id = p.finance_id
		WHERE p.id = $1`, uuid.MustParse(m[1])).Scan(&amount); err != nil || amount != "-300.00" {
		t.Fatalf("finance record %s %v", amount, err)
	}
}

// TestPenaltyPagesEvidenceRules: the driver adds photos to its pending
// penalty but not to an accepted one (409 at the evidence form), and
// cannot open another driver's penalty or its files.
func TestPenaltyPagesEvidenceRules(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	mine, theirs := "eva@acme.test", "petr@acme.test"
	driver := env.Driver(company, fixtures.Email(mine))
	other := env.Driver(company, fixtures.Email(theirs), fixtures.Name("Petr", "Tajný"))
	hr := env.As(company, auth.RoleHRManager)
	create := func(d uuid.UUID) string {
		var pen struct{ ID uuid.UUID }
		hr.Post("/api/v0/drivers/"+d.String()+"/penalties", map[string]any{"penalty_type": "damage", "amount": "500",
			"incident_date": webtest.Today(), "description": "mirror"}).Expect(http.StatusCreated).Decode(&pen)
		return "/drivers/" + d.String() + "/penalties/" + pen.ID.String()
	}
	own, foreign := create(driver), create(other)
	me := signIn(t, env, company, auth.RoleDriver, mine, "en")

	me.sendForm(own+"/evidence", url.Values{"note": {"the mirror was broken before"}}, formFile{"m.png", pngPhoto}).
		expect(t, http.StatusSeeOther)
	me.sendForm(own+"/evidence", url.Values{}).expect(t, http.StatusUnprocessableEntity).contains(t, `id="evidence-files-error"`)
	// Accept asks first: the question, nothing accepted yet.
	me.post(own+"/accept", nil).expect(t, http.StatusOK).contains(t, `data-testid="accept-confirm"`, "CZK\u00a0500.00 will be deducted from your pay",
		`name="confirm" value="yes"`, `data-penalty-status="pending"`).lacks(t, `data-testid="dispute-form"`)
	me.follow(t, me.post(own+"/accept", url.Values{"confirm": {"yes"}})).expect(t, http.StatusOK).contains(t, "You accepted the penalty.", "Accepted").
		lacks(t, `data-testid="evidence-form"`)
	me.sendForm(own+"/evidence", url.Values{}, formFile{"late.png", pngPhoto}).expect(t, http.StatusConflict).
		contains(t, "Evidence can be added to a pending or disputed penalty only")
	me.post(own+"/accept", nil).expect(t, http.StatusConflict).contains(t, `id="accept-error"`, "Only a pending penalty can be accepted")

	// Another driver's penalty: the 403 page, which names nobody.
	me.get(foreign).expect(t, http.StatusForbidden).lacks(t, "Tajný")
	me.get("/drivers/"+other.String()+"/penalties").expect(t, http.StatusForbidden)
	me.sendForm(foreign+"/dispute", url.Values{"dispute_reason": {"x"}}).expect(t, http.StatusForbidden)
	// A driver's queue holds only its own penalties.
	signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en").
		post(foreign+"/resolve", url.Values{"resolution_action": {"keep"}}).expect(t, http.StatusConflict)
	me.get("/penalties?status=pending").expect(t, http.StatusOK).lacks(t, "Tajný")
	if strings.Contains(me.get("/penalties?status=accepted").Body, "Tajný") {
		t.Fatal("a driver's queue shows another driver")
	}
}

func countRows(t *testing.T, env *webtest.Env, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := env.DB.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// TestPenaltyClosedPeriodPages is the reproduction: the accountant
// closes last month (forced, the speeding penalty still pending); the
// driver, in Czech, is still asked on the home page to accept or dispute
// it, and disputes it with a photo, which is kept; HR reduces it; the
// driver's pay page shows the correction in words as a correction of that
// penalty, linked to it, in the net so far; the penalty page says where
// the difference went; the ledger shows it too, and the closed period's
// record is offered no action.
func TestPenaltyClosedPeriodPages(t *testing.T) {
	env := devEnv(t)
	company := env.Company("Acme", "free")
	mail := "jan@acme.test"
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"), fixtures.Email(mail))
	api := env.As(company, auth.RoleHRManager)
	base := "/api/v0/drivers/" + driver.String()
	today := civil.DateOf(time.Now().In(pragueZone))
	incident := today.MonthStart().AddMonths(-1).AddDays(4)
	pen := api.Post(base+"/penalties", map[string]any{"penalty_type": "speeding", "amount": "1000.00",
		"incident_date": incident.String(), "description": "Radar D1"}).Expect(http.StatusCreated).JSON()
	api.Post(base+"/finance", map[string]any{"transaction_type": "bonus", "amount": "2000.00", "transaction_date": today.String()}).
		Expect(http.StatusCreated)
	var period string
	if err := env.DB.QueryRow(context.Background(), `SELECT period_id FROM finance_transactions WHERE id = $1`, pen["finance_id"]).Scan(&period); err != nil {
		t.Fatal(err)
	}
	env.As(company, auth.RoleAccountant).Post(base+"/finance/periods/"+period+"/close", map[string]any{"force": true}).Expect(http.StatusOK)

	me := signIn(t, env, company, auth.RoleDriver, mail, "cs")
	cs := i18n.CS
	penaltyPath := "/drivers/" + driver.String() + "/penalties/" + pen["id"].(string)
	payPath := "/drivers/" + driver.String() + "/pay"
	me.get("/").expect(t, http.StatusOK).contains(t, `data-testid="todo-penalty"`, `href="`+penaltyPath+`"`, esc(cs.T("home.todo.penalty.action")))
	me.get(penaltyPath).expect(t, http.StatusOK).contains(t, `data-testid="dispute-form"`, esc(cs.T("penalty.accept.submit")))
	sent := me.sendForm(penaltyPath+"/dispute", url.Values{"dispute_reason": {"Radar byl špatně nastavený."}}, formFile{"radar.png", pngPhoto})
	me.follow(t, sent).expect(t, http.StatusOK).contains(t, "radar.png", esc(cs.T("penalty.status.disputed")))
	if n := countRows(t, env, `SELECT count(*) FROM penalty_evidence WHERE penalty_id = $1`, pen["id"]); n != 1 {
		t.Fatalf("%d evidence files after the dispute, want the photo", n)
	}

	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.post(penaltyPath+"/resolve", url.Values{"resolution_action": {"reduce"}, "new_amount": {"400"}, "back": {"penalty"}}).
		expect(t, http.StatusSeeOther)

	// The pay page: this month's bonus and the +600 correction, in words.
	pay := me.get(payPath).expect(t, http.StatusOK)
	pay.contains(t, `data-testid="pay-correction"`, `href="`+penaltyPath+`"`, esc(cs.T("pay.correction")),
		esc(cs.T("finance.row.correction", "date", cs.Date(incident))), czk(cs, "600.00"))
	pay.lacks(t, "penalty_correction", ">adjustment<", "finance.type.")
	if i := strings.Index(pay.Body, `data-testid="pay-net"`); i < 0 || !strings.Contains(pay.Body[i:i+300], czk(cs, "2600.00")) {
		t.Errorf("net so far is not 2 600,00 Kč: %s", truncate(pay.Body))
	}
	me.get("/").expect(t, http.StatusOK).contains(t, czk(cs, "2600.00")).lacks(t, `data-testid="todo-penalty"`)
	me.get(penaltyPath).expect(t, http.StatusOK).
		contains(t, `data-testid="penalty-correction"`, esc(cs.T("penalty.correction", "date", cs.Date(today))), `href="`+payPath+`"`)

	// The ledger: the correction names the penalty; the record in the
	// closed period is offered nothing.
	acc := signIn(t, env, company, auth.RoleAccountant, "acc@acme.test", "en")
	en := i18n.EN
	ledger := acc.get("/drivers/"+driver.String()+"/finance").expect(t, http.StatusOK)
	ledger.contains(t, `data-testid="row-correction"`, esc(en.T("finance.row.correction", "date", en.Date(incident))), en.T("finance.type.adjustment"))
	if i := strings.Index(ledger.Body, `data-id="`+pen["finance_id"].(string)+`"`); i < 0 || !strings.Contains(ledger.Body[i:], `data-testid="row-locked"`) {
		t.Errorf("the closed period's penalty record is not locked in the ledger")
	}
}
