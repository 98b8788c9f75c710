package api

import (
	"io"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/web"
)

// Payslips (docs/finance.md, "Payslips").
func (h *Handlers) mountPayslips(g *web.Routes) {
	g.GET("/drivers/:id/finance/periods/:period_id/payslip", h.payslip)
	g.GET("/finance/payslips", h.monthPayslips)
}

// payslip downloads a period's payslip as a PDF: the permission of the
// driver's periods, the driver its own.
func (h *Handlers) payslip(c echo.Context) error {
	f, err := h.Finance.Payslip(c.Request().Context(), web.Principal(c), web.PathID(c, "id"), web.PathID(c, "period_id"))
	if err != nil {
		return err
	}
	return web.File(c, "application/pdf", f.Name, f.PDF)
}

// monthPayslips streams every driver's payslip of a month as one ZIP,
// "payslips-YYYY-MM.zip".
func (h *Handlers) monthPayslips(c echo.Context) error {
	return h.Finance.WritePayslips(c.Request().Context(), web.Principal(c), c.QueryParam("period_start"), func(month civil.Date) (io.Writer, error) {
		return web.StartFile(c, "application/zip", "payslips-"+month.Time().Format("2006-01")+".zip"), nil
	})
}
