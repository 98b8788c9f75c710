package pages

import (
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) mountPayslips(r *web.Routes) {
	r.GET("/drivers/:id/finance/periods/:period_id/payslip", p.payslip)
}

// payslipURL is the address of a period's payslip, which the pay page and
// the periods page link to.
func payslipURL(driverID, periodID string) string {
	return "/drivers/" + driverID + "/finance/periods/" + periodID + "/payslip"
}

// payslip downloads a period's payslip, the API's PDF on the same service
// (docs/finance.md, "Payslips"): whoever reads the driver's periods, the
// driver its own; a refusal is the error page.
func (p *Pages) payslip(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	f, err := p.svc.Finance.Payslip(ctx, pr, web.PathID(c, "id"), web.PathID(c, "period_id"))
	if err != nil {
		return err
	}
	return web.File(c, "application/pdf", f.Name, f.PDF)
}

// payslipLink is the download link of a period's payslip as the pay and
// periods pages show it.
func payslipLink(driverID, periodID, span, currency string) views.PayslipLink {
	return views.PayslipLink{URL: payslipURL(driverID, periodID), Period: span, Currency: currency}
}
