package pages_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/payslips/payslipstest"
)

// TestPayslipDownloads: the driver's pay page offers each period's
// payslip as a button a thumb can hit (full width on a phone, 44 px high),
// named for screen readers by its period; the link downloads the PDF with
// the driver's name in its letters. Staff find the same link on the
// periods page. Another driver's payslip, an unknown period and a
// dispatcher are refused.
func TestPayslipDownloads(t *testing.T) {
	w := newFinanceWorld(t)
	jiri := w.env.Driver(w.company, fixtures.Name("Jiří", "Dvořák"), fixtures.Email("jiri@acme.test"))
	w.tx(t, jiri, "base_salary", "30000.00", 0)
	w.tx(t, w.jan, "base_salary", "20000.00", 0)
	var period, janPeriod string
	ctx := context.Background()
	if err := w.env.DB.QueryRow(ctx, `SELECT id FROM finance_periods WHERE driver_id = $1`, jiri).Scan(&period); err != nil {
		t.Fatal(err)
	}
	if err := w.env.DB.QueryRow(ctx, `SELECT id FROM finance_periods WHERE driver_id = $1`, w.jan).Scan(&janPeriod); err != nil {
		t.Fatal(err)
	}
	link := "/drivers/" + jiri.String() + "/finance/periods/" + period + "/payslip"

	driver := signIn(t, w.env, w.company, auth.RoleDriver, "jiri@acme.test", "cs")
	pay := driver.get("/drivers/"+jiri.String()+"/pay").expect(t, http.StatusOK)
	pay.contains(t, `href="`+link+`"`, `data-testid="payslip-download"`, "Stáhnout výplatní pásku")
	button := regexp.MustCompile(`<a [^>]*data-testid="payslip-download"[^>]*>`).FindString(pay.Body)
	for _, want := range []string{`w-full`, `py-3`, `sm:w-auto`, `aria-label="Stáhnout výplatní pásku: `} {
		if !strings.Contains(html.UnescapeString(button), want) {
			t.Errorf("the payslip button %s lacks %q", button, want)
		}
	}

	res := driver.get(link).expect(t, http.StatusOK)
	if ct := res.Header.Get("Content-Type"); ct != "application/pdf" {
		t.Fatalf("Content-Type %q, want application/pdf", ct)
	}
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `-Jiri-Dvorak-`) || !strings.HasPrefix(cd, "attachment;") {
		t.Fatalf("Content-Disposition %q", cd)
	}
	text := payslipstest.Text(t, []byte(res.Body))
	for _, want := range []string{"Jiří Dvořák", "Výplatní páska", payslipstest.Squash(czk(i18n.CS, "30000.00"))} {
		if !strings.Contains(text, want) {
			t.Errorf("the payslip lacks %q:\n%s", want, text)
		}
	}
	driver.get("/drivers/"+w.jan.String()+"/finance/periods/"+janPeriod+"/payslip").expect(t, http.StatusForbidden)
	driver.get("/drivers/"+jiri.String()+"/finance/periods/"+janPeriod+"/payslip").expect(t, http.StatusNotFound)

	acc := signIn(t, w.env, w.company, auth.RoleAccountant, "acc@acme.test", "en")
	acc.get("/drivers/"+jiri.String()+"/finance/periods").expect(t, http.StatusOK).
		contains(t, `href="`+link+`"`, "Download payslip", `aria-label="Download payslip: `)
	acc.get(link).expect(t, http.StatusOK)
	signIn(t, w.env, w.company, auth.RoleDispatcher, "disp@acme.test", "en").get(link).expect(t, http.StatusForbidden)
}
