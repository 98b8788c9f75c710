package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"regexp"
	"strings"
	"testing"

	"github.com/playwright-community/playwright-go"

	"github.com/konvoj/konvoj/internal/auth"
)

// photoPNG is a small real photo stand-in (a gradient), so thumbnails
// render.
func photoPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for x := range 64 {
		for y := range 48 {
			img.Set(x, y, color.RGBA{R: uint8(x * 4), G: uint8(y * 5), B: 160, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// HR records a penalty with a photo; the driver, on a phone, sees it in its
// penalties and opens it from its home page's to-dos, disputes it with a reason and a photo and is told HR will
// review within 5 business days; HR finds it in the dispute queue with the
// photo and reduces it; the driver's penalty page and pay page then show
// the reduced amount. Every new page is photographed at both widths in English and
// Czech and checked with axe-core.
func TestPenaltyDisputeOnPhone(t *testing.T) {
	app := newApp(t)
	company := app.Company(t, "Acme Transport", "en")
	ids := app.seedDrivers(t, company, []seedDriver{
		{First: "Petr", Last: "Malý", Email: "petr.maly@acme.test", Citizenship: "CZ", Office: "Praha", Hired: "2023-02-01"},
	})
	own := "/drivers/" + ids["petr.maly@acme.test"].String()
	photo := photoPNG(t)

	// HR: from the driver's page to a new penalty, with a photo.
	hr := app.SignIn(t, company, auth.RoleHRManager, Person{Email: "hana@acme.test", FirstName: "Hana", LastName: "Horáková"})
	_, err := hr.Goto(app.URL + own)
	must(t, err)
	must(t, hr.GetByTestId("driver-penalties").Click())
	must(t, waitURL(hr, app.URL+own+"/penalties"))
	must(t, expect.Locator(hr.GetByTestId("penalties-empty")).ToBeVisible())
	must(t, hr.GetByTestId("new-penalty").Click())
	must(t, waitURL(hr, app.URL+own+"/penalties/new"))
	_, err = hr.GetByTestId("penalty-penalty_type").SelectOption(playwright.SelectOptionValues{Values: &[]string{"speeding"}})
	must(t, err)
	must(t, hr.GetByTestId("penalty-amount").Fill("1500"))
	must(t, hr.GetByTestId("penalty-location").Fill("D1, km 112"))
	must(t, hr.GetByTestId("penalty-description-input").Fill("Measured 92 km/h where 50 km/h is allowed."))
	must(t, hr.GetByTestId("penalty-files").SetInputFiles([]playwright.InputFile{{Name: "radar.png", MimeType: "image/png", Buffer: photo}}))
	app.Screenshots(t, hr, "penalty-new")
	app.CheckA11y(t, hr)
	must(t, hr.GetByTestId("penalty-submit").Click())
	must(t, waitURL(hr, regexp.MustCompile(`/penalties/[0-9a-f-]{36}$`)))
	penaltyURL := hr.URL()
	must(t, expect.Locator(hr.GetByTestId("flash-success")).ToHaveText("The penalty of CZK\u00a01,500.00 was recorded."))
	must(t, expect.Locator(hr.GetByTestId("evidence-thumb")).ToHaveCount(1))

	// The driver on a phone: its penalties list, then, from its home
	// page's to-dos, the pending one.
	me := app.SignInAt(t, phone, "/", company, auth.RoleDriver, Person{Email: "petr.maly@acme.test", FirstName: "Petr", LastName: "Malý"})
	_, err = me.Goto(app.URL + own)
	must(t, err)
	must(t, me.GetByTestId("driver-penalties").Click())
	must(t, waitURL(me, app.URL+own+"/penalties"))
	row := me.Locator("[data-testid=penalty-list] a")
	must(t, expect.Locator(row).ToHaveCount(1))
	must(t, expect.Locator(row.Locator("[data-penalty-status]")).ToHaveText("Waiting for you"))
	must(t, expect.Locator(row.GetByTestId("penalty-amount")).ToHaveText("-CZK\u00a01,500.00"))
	app.Screenshots(t, me, "penalties-driver")
	app.CheckA11y(t, me)
	_, err = me.Goto(app.URL + "/")
	must(t, err)
	todo := me.GetByTestId("todo-penalty")
	must(t, expect.Locator(todo).ToHaveCount(1))
	must(t, todo.Click())
	must(t, waitURL(me, penaltyURL))
	must(t, expect.Locator(me.GetByTestId("dispute-files")).ToHaveAttribute("capture", "environment"))
	must(t, expect.Locator(me.GetByTestId("dispute-files")).ToHaveAttribute("accept", "image/*,application/pdf"))
	app.Screenshots(t, me, "penalty-pending")
	app.CheckA11y(t, me)

	// The dispute, with a reason and a photo.
	must(t, me.GetByTestId("dispute-reason-input").Fill("The speed limit sign was hidden behind a parked lorry."))
	must(t, me.GetByTestId("dispute-files").SetInputFiles([]playwright.InputFile{{Name: "IMG_3107.png", MimeType: "image/png", Buffer: photo}}))
	must(t, me.GetByTestId("dispute-submit").Click())
	must(t, waitURL(me, penaltyURL))
	must(t, expect.Locator(me.GetByTestId("review-notice")).ToContainText("HR will review within 5 business days."))
	must(t, expect.Locator(me.Locator("[data-testid=penalty-status] [data-penalty-status]")).ToHaveText("Disputed"))
	must(t, expect.Locator(me.GetByTestId("evidence-file")).ToHaveCount(2))
	app.Screenshots(t, me, "penalty-disputed")
	app.CheckA11y(t, me)

	// HR: the dispute queue, with the reason and the photo.
	must(t, navLink(t, hr, "Disputes").Click())
	must(t, waitURL(hr, app.URL+"/penalties"))
	item := hr.Locator("[data-testid=queue] > li")
	must(t, expect.Locator(item).ToHaveCount(1))
	must(t, expect.Locator(item.GetByTestId("queue-driver")).ToHaveText("Petr Malý"))
	must(t, expect.Locator(item.GetByTestId("queue-reason")).ToHaveText("The speed limit sign was hidden behind a parked lorry."))
	must(t, expect.Locator(item.GetByTestId("queue-due")).ToContainText("Review by"))
	thumbs := item.GetByTestId("evidence-thumb")
	must(t, expect.Locator(thumbs).ToHaveCount(2))
	// decode waits for the image to load (the tests run in parallel, so it
	// may still be loading when it appears) and fails if it cannot.
	if w, err := thumbs.Last().Evaluate("img => img.decode().then(() => img.naturalWidth)", nil); err != nil || w != 64 {
		t.Errorf("the photo does not show in the queue: %v %v", w, err)
	}
	app.Screenshots(t, hr, "disputes")
	app.CheckA11y(t, hr)

	// Reduce: a new amount not below the current one is refused in place.
	must(t, item.GetByTestId("queue-resolve").Click())
	form := item.GetByTestId("resolve-form")
	must(t, form.Locator("input[value=reduce]").Check())
	must(t, form.Locator("input[name=new_amount]").Fill("1500"))
	must(t, form.Locator("button[type=submit]").Click())
	must(t, expect.Locator(hr.Locator("[data-testid=queue] [data-testid=field-error]")).ToContainText("The new amount must be below"))
	app.Screenshots(t, hr, "disputes-refused")
	form = hr.Locator("[data-testid=queue] [data-testid=resolve-form]")
	must(t, form.Locator("input[value=reduce]").Check())
	must(t, form.Locator("input[name=new_amount]").Fill("500"))
	must(t, form.Locator("input[name=resolution]").Fill("The sign was partly hidden."))
	must(t, form.Locator("button[type=submit]").Click())
	must(t, waitURL(hr, app.URL+"/penalties"))
	must(t, expect.Locator(hr.GetByTestId("flash-success")).ToHaveText("The dispute was resolved."))
	must(t, expect.Locator(hr.GetByTestId("queue-empty")).ToBeVisible())

	// The driver's penalty now shows the reduced amount and the outcome.
	_, err = me.Reload()
	must(t, err)
	must(t, expect.Locator(me.GetByTestId("penalty-amount")).ToHaveText("-CZK\u00a0500.00"))
	must(t, expect.Locator(me.GetByTestId("outcome")).ToContainText("Amount deducted: CZK\u00a0500.00"))
	must(t, expect.Locator(me.GetByTestId("outcome")).ToContainText("The sign was partly hidden."))
	app.Screenshots(t, me, "penalty-resolved")
	app.CheckA11y(t, me)

	// The driver's pay page: this month's penalty deducts the reduced
	// amount, and the net so far says so (the penalty is the month's only
	// transaction).
	_, err = me.Goto(app.URL + own + "/pay")
	must(t, err)
	payRow := me.Locator("[data-testid=pay-row]", playwright.PageLocatorOptions{Has: me.GetByTestId("pay-penalty")})
	must(t, expect.Locator(payRow).ToHaveCount(1))
	must(t, expect.Locator(payRow.Locator("[data-negative=true]")).ToContainText("CZK\u00a0500.00"))
	must(t, expect.Locator(payRow.GetByTestId("pay-penalty")).ToHaveAttribute("href", strings.TrimPrefix(penaltyURL, app.URL)))
	must(t, expect.Locator(me.Locator("[data-testid=pay-net] [data-negative=true]")).ToContainText("CZK\u00a0500.00"))
	app.Screenshots(t, me, "pay-after-dispute")
	app.CheckA11y(t, me)
	_, err = me.Goto(penaltyURL)
	must(t, err)

	// The same pages in Czech.
	// (The language switch is in the header at desktop width.)
	for _, b := range []playwright.Page{me, hr} {
		must(t, b.SetViewportSize(desktop.Width, desktop.Height))
		must(t, b.GetByRole(*playwright.AriaRoleButton, playwright.PageGetByRoleOptions{Name: "Čeština"}).First().Click())
	}
	must(t, me.SetViewportSize(phone.Width, phone.Height))
	must(t, expect.Locator(me.GetByTestId("outcome")).ToContainText("Strhávaná částka: 500,00\u00a0Kč"))
	app.Screenshots(t, me, "penalty-resolved-cs")
	_, err = me.Goto(app.URL + own + "/penalties")
	must(t, err)
	must(t, expect.Locator(me.GetByTestId("penalties-title")).ToHaveText("Moje pokuty"))
	app.Screenshots(t, me, "penalties-driver-cs")
	app.CheckA11y(t, me)
	for _, shot := range []struct{ path, name string }{
		{"/penalties?status=resolved", "disputes-cs"},
		{own + "/penalties/new", "penalty-new-cs"},
		{strings.TrimPrefix(penaltyURL, app.URL), "penalty-hr-cs"},
	} {
		_, err = hr.Goto(app.URL + shot.path)
		must(t, err)
		must(t, expect.Locator(hr.Locator("html")).ToHaveAttribute("lang", "cs"))
		app.Screenshots(t, hr, shot.name)
		app.CheckA11y(t, hr)
	}
}
