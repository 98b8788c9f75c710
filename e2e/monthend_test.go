package e2e

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/playwright-community/playwright-go"
	"github.com/shopspring/decimal"
	"github.com/xuri/excelize/v2"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Month-end as an accountant and a driver live it (issue 46): the
// accountant closes last month for every driver from the month-end page,
// which names the pending transactions the forced close closes over;
// reopens one driver's period with a reason; downloads the month's payroll
// and reads a driver's net from the XLSX. The driver, on a phone, disputes
// a penalty of the closed month with a photo; HR reduces it; the driver's
// pay page shows the correction in this month and downloads the payslip, a
// PDF whose text holds the driver's name with its diacritics. Every new
// screen is photographed at 1280 and 390 px in English and Czech, checked
// with axe-core and must not be wider than the phone.
func TestMonthEndCloseReopenPayrollAndPayslip(t *testing.T) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		t.Fatal("pdftotext (poppler-utils) is missing; scripts/install-deps.sh installs it")
	}
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Jiří", Last: "Šťastný", Email: "jiri@acme.test", Office: "Praha"},
		{First: "Petra", Last: "Svobodová", Email: "petra@acme.test", Office: "Ostrava"},
	})
	jiri, petra := ids["jiri@acme.test"].String(), ids["petra@acme.test"].String()
	en, cs := i18n.EN, i18n.CS
	money := func(l i18n.Lang, s string) string { return l.Money(decimal.RequireFromString(s), "CZK") }

	// Last month, whose end has passed in the company's time zone: each
	// driver's salary, still pending, and Jiří's speeding penalty of the
	// 10th (its record pending too).
	now := companyNow()
	monthStart := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, now.Location()).AddDate(0, -1, 0)
	month := monthStart.Format("2006-01")
	incident := civil.NewDate(monthStart.Year(), monthStart.Month(), 10)
	salary := func(driver, amount string) string {
		var out struct {
			PeriodID string `json:"period_id"`
		}
		app.api(t, company, http.MethodPost, "/api/v0/drivers/"+driver+"/finance",
			map[string]any{"transaction_type": "base_salary", "amount": amount, "transaction_date": monthStart.AddDate(0, 0, 20).Format(time.DateOnly)},
			http.StatusCreated, &out)
		return out.PeriodID
	}
	jiriPeriod, petraPeriod := salary(jiri, "30000.00"), salary(petra, "28000.00")
	var penalty struct {
		ID string `json:"id"`
	}
	app.api(t, company, http.MethodPost, "/api/v0/drivers/"+jiri+"/penalties", map[string]any{
		"penalty_type": "speeding", "amount": "1000.00", "incident_date": incident.String(),
		"location": "D1, km 112", "description": "Measured 92 km/h where 50 km/h is allowed.",
	}, http.StatusCreated, &penalty)
	penaltyPath := "/drivers/" + jiri + "/penalties/" + penalty.ID

	// The accountant: from the home page's periods to close to the
	// month-end page of last month, open periods only.
	acc := app.SignIn(t, company, auth.RoleAccountant, Person{Email: "eva@acme.test", FirstName: "Eva", LastName: "Účetní"})
	must(t, acc.GetByTestId("month-end-link").Click())
	must(t, waitURL(acc, app.URL+"/finance/month-end?month="+month+"&status=open"))
	row := func(period string) playwright.Locator {
		return acc.Locator(`[data-testid=monthend-row][data-id="` + period + `"]`)
	}
	must(t, expect.Locator(acc.GetByTestId("monthend-row")).ToHaveCount(2))
	must(t, expect.Locator(row(jiriPeriod).GetByTestId("row-pending")).ToHaveText("2"))
	must(t, expect.Locator(row(jiriPeriod).GetByTestId("row-net")).ToHaveText(money(en, "29000.00")))
	must(t, expect.Locator(row(petraPeriod).GetByTestId("row-pending")).ToHaveText("1"))
	app.Screenshots(t, acc, "monthend")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)

	// Close every period of the filter: the confirmation names the three
	// pending transactions in two periods, and closes them only when told.
	must(t, acc.GetByTestId("select-all-matching").Check())
	must(t, acc.GetByTestId("bulk-close").Click())
	confirm := acc.GetByTestId("monthend-confirm")
	must(t, expect.Locator(confirm).ToHaveAttribute("data-action", "close"))
	must(t, expect.Locator(acc.GetByTestId("confirm-pending")).ToContainText(en.T("monthend.confirm.pending", "count", "3", "periods", "2")))
	must(t, expect.Locator(acc.GetByTestId("confirm-submit")).ToHaveText(en.T("monthend.confirm.do.close", "count", "2")))
	app.Screenshots(t, acc, "monthend-confirm")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
	must(t, acc.GetByTestId("confirm-force").Check())
	must(t, acc.GetByTestId("confirm-submit").Click())
	results := acc.GetByTestId("monthend-results")
	must(t, expect.Locator(results.Locator("h2")).ToHaveText(en.T("monthend.results.close", "done", "2", "total", "2")))
	must(t, expect.Locator(acc.Locator("[data-testid=monthend-result][data-ok=true]")).ToHaveCount(2))
	// None is open any more: the page says none matches the filter.
	must(t, expect.Locator(acc.GetByTestId("monthend-empty")).ToContainText(en.T("monthend.empty.filtered")))
	app.Screenshots(t, acc, "monthend-results")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)

	// The payroll of the month as XLSX: Jiří's net is his salary less the
	// penalty.
	dl, err := acc.ExpectDownload(func() error { return acc.GetByTestId("payroll-xlsx").Click() })
	must(t, err)
	if got := dl.SuggestedFilename(); got != "payroll-"+month+".xlsx" {
		t.Errorf("payroll file name %q, want payroll-%s.xlsx", got, month)
	}
	if got := payrollNet(t, dl, "Jiří Šťastný"); got != "29000.00" {
		t.Errorf("Jiří's net in the payroll XLSX: %s, want 29000.00", got)
	}

	// Petra's period reopened from her periods page, with a reason.
	must(t, results.GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: "Petra Svobodová"}).Click())
	must(t, waitURL(acc, app.URL+"/drivers/"+petra+"/finance/periods"))
	period := acc.Locator(`[data-testid=period-row][data-id="` + petraPeriod + `"]`)
	must(t, expect.Locator(period).ToHaveAttribute("data-status", "closed"))
	must(t, expect.Locator(period.GetByTestId("reopen-form")).ToBeVisible())
	app.Screenshots(t, acc, "periods-reopen")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
	const reason = "The overtime of the 28th is missing."
	must(t, period.GetByTestId("reopen-reason").Fill(reason))
	must(t, period.GetByTestId("reopen-period").Click())
	must(t, expect.Locator(period).ToHaveAttribute("data-status", "open"))
	var audited string
	must(t, app.DB.QueryRow(context.Background(), `SELECT new_values->>'reason' FROM audit_logs
		WHERE entity_type = 'finance_period' AND entity_id = $1 AND action = 'period.reopened'`, petraPeriod).Scan(&audited))
	if audited != reason {
		t.Errorf("the reopen's audit row holds the reason %q, want %q", audited, reason)
	}
	// Its close confirmation lists the pending salary; cancelled, the
	// period stays open.
	must(t, period.GetByTestId("close-period").Click())
	must(t, expect.Locator(acc.GetByTestId("pending-row")).ToHaveCount(1))
	must(t, expect.Locator(acc.GetByTestId("confirm-close-button")).ToHaveText(en.T("finance.close.anyway")))
	app.Screenshots(t, acc, "period-close-confirm")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
	must(t, acc.GetByTestId("confirm-close").GetByRole(*playwright.AriaRoleLink, playwright.LocatorGetByRoleOptions{Name: en.T("form.cancel")}).Click())
	must(t, expect.Locator(period).ToHaveAttribute("data-status", "open"))

	// The driver, on a phone: the penalty of the closed month is still
	// its to-do, and it disputes it with a photo.
	me := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "jiri@acme.test", FirstName: "Jiří", LastName: "Šťastný"})
	must(t, me.GetByTestId("todo-penalty").Click())
	must(t, waitURL(me, app.URL+penaltyPath))
	if small := smallTargets(t, me, "[data-testid=dispute-form], [data-testid=accept-form], [data-testid=evidence-form]"); len(small) > 0 {
		t.Errorf("the driver's penalty controls under 44 px on a phone: %q", small)
	}
	must(t, me.GetByTestId("dispute-reason-input").Fill("I was not driving that day: the lorry was in the workshop."))
	must(t, me.GetByTestId("dispute-files").SetInputFiles([]playwright.InputFile{{Name: "IMG_2044.png", MimeType: "image/png", Buffer: photoPNG(t)}}))
	must(t, me.GetByTestId("dispute-submit").Click())
	must(t, waitURL(me, app.URL+penaltyPath))
	must(t, expect.Locator(me.Locator("[data-testid=penalty-status] [data-penalty-status]")).ToHaveText("Disputed"))
	must(t, expect.Locator(me.GetByTestId("evidence-file")).ToHaveCount(1))

	// HR reduces it to 400.00 from the dispute queue.
	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err = hr.Goto(app.URL + "/penalties")
	must(t, err)
	item := hr.Locator("[data-testid=queue] > li")
	must(t, expect.Locator(item).ToHaveCount(1))
	must(t, expect.Locator(item.GetByTestId("evidence-thumb")).ToHaveCount(1))
	must(t, item.GetByTestId("queue-resolve").Click())
	form := item.GetByTestId("resolve-form")
	must(t, form.Locator("input[value=reduce]").Check())
	must(t, form.Locator("input[name=new_amount]").Fill("400"))
	must(t, form.Locator("input[name=resolution]").Fill("The workshop confirmed part of the day."))
	must(t, form.Locator("button[type=submit]").Click())
	must(t, expect.Locator(hr.GetByTestId("flash-success")).ToHaveText("The dispute was resolved."))

	// The driver's pay page: this month holds the correction of +600.00,
	// linked to the penalty; the payslip downloads on the phone.
	_, err = me.Goto(app.URL + "/drivers/" + jiri + "/pay")
	must(t, err)
	corr := me.Locator("[data-testid=pay-row]", playwright.PageLocatorOptions{Has: me.GetByTestId("pay-correction")})
	must(t, expect.Locator(corr).ToHaveCount(1))
	must(t, expect.Locator(corr.GetByTestId("pay-correction")).ToHaveAttribute("href", penaltyPath))
	must(t, expect.Locator(corr).ToContainText(money(en, "600.00")))
	must(t, expect.Locator(corr).ToContainText(en.T("finance.row.correction", "date", en.Date(incident))))
	must(t, expect.Locator(me.GetByTestId("pay-net")).ToHaveText(money(en, "600.00")))
	if small := smallTargets(t, me, "main"); len(small) > 0 {
		t.Errorf("the pay page's controls under 44 px on a phone: %q", small)
	}
	slip := me.GetByTestId("pay-period").First().GetByTestId("payslip-download")
	app.Screenshots(t, me, "pay-correction")
	app.CheckA11y(t, me)
	fitsPhone(t, me)
	dl, err = me.ExpectDownload(func() error { return slip.Click() })
	must(t, err)
	if got := dl.SuggestedFilename(); got != "DRV-0001-Jiri-Stastny-"+now.Format("2006-01")+".pdf" {
		t.Errorf("payslip file name %q", got)
	}
	path, err := dl.Path()
	must(t, err)
	out, err := exec.Command(pdftotext, "-enc", "UTF-8", path, "-").CombinedOutput()
	if err != nil {
		t.Fatalf("pdftotext %s: %v\n%s", dl.SuggestedFilename(), err, out)
	}
	if text := string(out); !strings.Contains(text, "Jiří Šťastný") || !strings.Contains(text, en.T("finance.category.penalty_correction")) {
		t.Errorf("the payslip's text lacks the driver's name or the correction:\n%s", text)
	}
	// The correction's whole row leads to the penalty, which says a
	// correction was posted.
	box, err := corr.BoundingBox()
	must(t, err)
	must(t, corr.Click(playwright.LocatorClickOptions{Position: &playwright.Position{X: box.Width - 12, Y: box.Height - 12}}))
	must(t, waitURL(me, app.URL+penaltyPath))
	must(t, expect.Locator(me.GetByTestId("penalty-correction")).ToBeVisible())

	// The driver's pay page in Czech.
	_, err = me.Goto(app.URL + "/drivers/" + jiri + "/pay")
	must(t, err)
	toCzech(t, me, app.URL+"/drivers/"+jiri+"/pay")
	must(t, expect.Locator(corr.GetByTestId("pay-correction")).ToHaveText(cs.T("pay.correction")))
	app.Screenshots(t, me, "pay-correction-cs")
	app.CheckA11y(t, me)

	// The accountant in Czech: the month's page (Jiří's closed period did
	// not move with the correction), Petra's close confirmation, then the
	// whole month closed again: Petra's closed, Jiří's skipped.
	_, err = acc.Goto(app.URL + "/finance/month-end")
	must(t, err)
	toCzech(t, acc, app.URL+"/finance/month-end")
	must(t, expect.Locator(acc.GetByTestId("monthend-row")).ToHaveCount(2))
	must(t, expect.Locator(row(jiriPeriod)).ToHaveAttribute("data-status", "closed"))
	must(t, expect.Locator(row(jiriPeriod).GetByTestId("row-net")).ToHaveText(money(cs, "29000.00")))
	must(t, expect.Locator(row(petraPeriod)).ToHaveAttribute("data-status", "open"))
	app.Screenshots(t, acc, "monthend-cs")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)

	_, err = acc.Goto(app.URL + "/drivers/" + petra + "/finance/periods")
	must(t, err)
	must(t, period.GetByTestId("close-period").Click())
	must(t, expect.Locator(acc.GetByTestId("confirm-close-button")).ToHaveText(cs.T("finance.close.anyway")))
	app.Screenshots(t, acc, "period-close-confirm-cs")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)

	_, err = acc.Goto(app.URL + "/finance/month-end")
	must(t, err)
	must(t, acc.GetByTestId("select-all-matching").Check())
	must(t, acc.GetByTestId("bulk-close").Click())
	must(t, expect.Locator(acc.GetByTestId("confirm-pending")).ToContainText(cs.T("monthend.confirm.pending", "count", "1", "periods", "1")))
	must(t, expect.Locator(acc.GetByTestId("confirm-skip")).ToBeVisible())
	app.Screenshots(t, acc, "monthend-confirm-cs")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
	must(t, acc.GetByTestId("confirm-force").Check())
	must(t, acc.GetByTestId("confirm-submit").Click())
	must(t, expect.Locator(results.Locator("h2")).ToHaveText(cs.T("monthend.results.close", "done", "1", "total", "2")))
	must(t, expect.Locator(acc.GetByTestId("monthend-refusal")).ToHaveCount(1))
	must(t, expect.Locator(acc.GetByTestId("monthend-refusal")).ToContainText("„"+cs.T("state.period.closed")+"“"))
	app.Screenshots(t, acc, "monthend-results-cs")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)

	_, err = acc.Goto(app.URL + "/drivers/" + petra + "/finance/periods")
	must(t, err)
	must(t, expect.Locator(period.GetByTestId("reopen-form")).ToBeVisible())
	app.Screenshots(t, acc, "periods-reopen-cs")
	app.CheckA11y(t, acc)
	fitsPhone(t, acc)
}

// payrollNet reads the net of the driver's row from a downloaded payroll
// XLSX, finding the columns by their English headers.
func payrollNet(t *testing.T, dl playwright.Download, driver string) string {
	t.Helper()
	path, err := dl.Path()
	must(t, err)
	raw, err := os.ReadFile(path)
	must(t, err)
	x, err := excelize.OpenReader(bytes.NewReader(raw))
	must(t, err)
	defer x.Close()
	rows, err := x.GetRows(x.GetSheetName(0), excelize.Options{RawCellValue: true})
	must(t, err)
	if len(rows) < 2 {
		t.Fatalf("payroll XLSX: %q", rows)
	}
	name, net := -1, -1
	for i, h := range rows[0] {
		switch h {
		case i18n.EN.T("payroll.col.name"):
			name = i
		case i18n.EN.T("payroll.col.net"):
			net = i
		}
	}
	if name < 0 || net < 0 {
		t.Fatalf("payroll XLSX headers %q lack the name or the net", rows[0])
	}
	for _, r := range rows[1:] {
		if len(r) > net && r[name] == driver {
			n, err := decimal.NewFromString(r[net])
			must(t, err)
			return n.StringFixed(2)
		}
	}
	t.Fatalf("payroll XLSX has no row of %s: %q", driver, rows)
	return ""
}

// smallTargets lists the controls inside the elements matching scope that
// are less than 44 px high on a phone (a thumb's tap target), as
// "tag name: height". A link stretched over its row (an absolute ::after)
// counts with the row's height.
func smallTargets(t *testing.T, page playwright.Page, scope string) []string {
	t.Helper()
	defer restoreViewport(t, page)()
	must(t, page.SetViewportSize(phone.Width, phone.Height))
	res, err := page.Evaluate(`scope => [...document.querySelectorAll(scope)]
		.flatMap(s => [...s.querySelectorAll('a, button, input:not([type=hidden]), select, textarea, summary')])
		.filter(el => el.getClientRects().length > 0)
		.map(el => [el, getComputedStyle(el, '::after').position === 'absolute' && el.offsetParent ? el.offsetParent : el])
		.filter(([el, box]) => box.getBoundingClientRect().height < 44)
		.map(([el, box]) => el.tagName.toLowerCase() + ' ' + (el.dataset.testid || el.name || el.textContent.trim().slice(0, 30)) +
			': ' + Math.round(box.getBoundingClientRect().height))`, scope)
	must(t, err)
	var out []string
	for _, v := range res.([]any) {
		out = append(out, v.(string))
	}
	return out
}
