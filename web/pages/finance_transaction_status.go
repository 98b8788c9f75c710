// A transaction's status from its ledger row: approve, pay or cancel, and
// the delete with its confirmation.

package pages

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// moveTransaction approves, pays or cancels one transaction from its row;
// a refusal shows in the row, in the ledger the form came from.
func (p *Pages) moveTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "transaction_id")
	back := localBack(c.FormValue("back"), ledgerURL(driverID), ledgerURL(driverID))
	status := strings.TrimSpace(c.FormValue("status"))
	t, err := p.svc.Finance.UpdateTransaction(ctx, pr, driverID, id, finance.Given(finance.TransactionInput{Status: &status}))
	if _, ok := refusalOf(i18n.From(ctx), err, noFile); ok {
		return p.ledgerRefusal(c, pr, driverID, back, id.String(), err)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.moved."+t.Status)
	return p.redirect(c, back)
}

// confirmDeleteTransaction asks before deleting (HR and admins; others
// get the 403 page, the answer the service gives their delete).
func (p *Pages) confirmDeleteTransaction(c echo.Context) error {
	t, header, answered, err := p.transactionToChange(c, p.svc.Finance.TransactionToDelete)
	if answered || err != nil {
		return err
	}
	pr, driverID := web.Principal(c), t.DriverID
	lang := i18n.From(c.Request().Context())
	row := p.ledgerRow(lang, pr, t, pr.Today(), nil)
	if row.DeleteBlocked != "" {
		// The rules forbid it: say why in the ledger, at the row.
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), row.ID, finance.DeleteAllowed(t, pr.Today()))
	}
	return p.render(c, http.StatusOK, "finance.delete.title", views.DeleteTransaction(views.DeleteTransactionData{
		Driver: header, Row: row, Action: row.URL + "/delete", CSRF: csrfToken(c), CancelURL: ledgerURL(driverID),
	}))
}

func (p *Pages) deleteTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID, id := web.PathID(c, "id"), web.PathID(c, "transaction_id")
	err := p.svc.Finance.DeleteTransaction(ctx, pr, driverID, id)
	if _, ok := refusalOf(i18n.From(ctx), err, noFile); ok {
		return p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), id.String(), err)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.deleted")
	return p.redirect(c, ledgerURL(driverID))
}
