// The transaction form: a new transaction and its save, the edit of one
// and its save.

package pages

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/finance"
	"github.com/konvoj/konvoj/internal/forms"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/money"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

func (p *Pages) transactionForm(c echo.Context, header views.DriverHeader, values map[string]string, errs map[string][]string) views.TransactionFormData {
	lang := i18n.From(c.Request().Context())
	d := views.TransactionFormData{Driver: header, CSRF: csrfToken(c), Values: values, Errors: errs, CancelURL: header.URL + "/finance"}
	for _, t := range finance.TransactionTypes {
		if t == finance.TypePenalty {
			continue // penalties are made with their penalty
		}
		d.Types = append(d.Types, views.Option{Value: t, Label: lang.T("finance.type." + t)})
	}
	for _, code := range money.Choices(web.Principal(c).CompanyCurrency, values["currency"]) {
		d.Currencies = append(d.Currencies, views.Option{Value: code, Label: code})
	}
	return d
}

// transactionFormFields are the fields the form shows again as sent.
var transactionFormFields = []string{"transaction_type", "amount", "transaction_date", "currency", "category", "reference", "description"}

// transactionInput reads the posted form as the service's input, through
// the API's reader (web.Bind): every field sent, as text (an empty text
// clears an optional field); values are what the form shows again.
func transactionInput(c echo.Context) (finance.TransactionInput, map[string]string, error) {
	var in finance.TransactionInput
	if err := web.Bind(c, &in); err != nil {
		return finance.TransactionInput{}, nil, err
	}
	form, _ := c.FormParams() // parsed by Bind
	values := map[string]string{}
	for _, name := range transactionFormFields {
		if sent := form[name]; len(sent) > 0 {
			values[name] = sent[len(sent)-1]
		}
	}
	return in, values, nil
}

// transactionAnswer answers a refused save: the form alone for htmx (it
// swaps the form), the whole page otherwise, with the refusal's status.
func (p *Pages) transactionAnswer(c echo.Context, status int, d views.TransactionFormData) error {
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "transaction-form" {
		return p.fragment(c, status, views.TransactionForm(d))
	}
	title := "finance.edit.crumb"
	if d.Creating {
		title = "finance.new"
	}
	return p.render(c, status, title, views.TransactionFormPage(d))
}

func (p *Pages) newTransaction(c echo.Context) error {
	pr := web.Principal(c)
	driverID := web.PathID(c, "id")
	if err := p.svc.Finance.TransactionForm(c.Request().Context(), pr, driverID); err != nil {
		return err
	}
	header, err := p.driverHeader(c, pr, driverID)
	if err != nil {
		return err
	}
	d := p.transactionForm(c, header, map[string]string{
		"transaction_date": pr.Today().String(), "currency": pr.CompanyCurrency,
	}, nil)
	d.Creating, d.Action, d.Token = true, ledgerURL(driverID)+"/new", forms.NewToken()
	return p.render(c, http.StatusOK, "finance.new", views.TransactionFormPage(d))
}

// createTransaction records a transaction from the form. The form's
// one-time token is claimed first: a second submission of the same form
// creates nothing and goes where the first went (docs/web-app.md,
// "Sending a form twice").
func (p *Pages) createTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	if err := p.svc.Finance.TransactionForm(ctx, pr, driverID); err != nil {
		return err
	}
	in, values, err := transactionInput(c)
	if err != nil {
		return err
	}
	token := c.FormValue("form_token")
	claim, err := p.svc.Forms.Claim(ctx, pr, token)
	if err != nil {
		return err
	}
	if !claim.Fresh {
		p.flash(c, views.FlashInfo, "finance.flash.already_saved")
		return p.redirect(c, claim.Done)
	}
	_, err = p.svc.Finance.CreateTransaction(ctx, pr, driverID, finance.Given(in))
	if err != nil {
		if rerr := p.svc.Forms.Release(ctx, pr, claim); rerr != nil {
			return rerr
		}
	}
	if r, ok := refusalOf(i18n.From(ctx), err, noFile); ok {
		header, herr := p.driverHeader(c, pr, driverID)
		if herr != nil {
			return herr
		}
		d := p.transactionForm(c, header, values, r.fields)
		d.Creating, d.Action, d.Token = true, ledgerURL(driverID)+"/new", token
		return p.transactionAnswer(c, r.status, d)
	}
	if err != nil {
		return err
	}
	to := ledgerURL(driverID)
	if err := p.svc.Forms.Finish(ctx, pr, claim, to); err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.created")
	return p.redirect(c, to)
}

func transactionValues(t finance.Transaction) map[string]string {
	return map[string]string{
		"transaction_type": t.TransactionType, "amount": t.Amount.Decimal().StringFixed(2),
		"transaction_date": t.TransactionDate.String(), "currency": t.Currency, "category": deref(t.Category),
		"reference": deref(t.Reference), "description": deref(t.Description),
	}
}

// transactionToChange loads the transaction of the path that a form
// changes, through load (the edit's or the delete's check), with its
// driver's header. A transaction inside a closed or paid period is refused
// at its ledger row instead: answered says the page is written then.
func (p *Pages) transactionToChange(c echo.Context, load func(context.Context, auth.Principal, uuid.UUID, uuid.UUID) (finance.Transaction, error)) (
	t finance.Transaction, header views.DriverHeader, answered bool, err error) {
	pr := web.Principal(c)
	driverID := web.PathID(c, "id")
	if t, err = load(c.Request().Context(), pr, driverID, web.PathID(c, "transaction_id")); err != nil {
		return t, header, false, err
	}
	locked, err := p.periodLock(c, pr, driverID, t)
	if err != nil {
		return t, header, false, err
	}
	if locked != nil {
		return t, header, true, p.ledgerRefusal(c, pr, driverID, ledgerURL(driverID), t.ID.String(), locked)
	}
	header, err = p.driverHeader(c, pr, driverID)
	return t, header, false, err
}

func (p *Pages) editTransaction(c echo.Context) error {
	t, header, answered, err := p.transactionToChange(c, p.svc.Finance.TransactionToEdit)
	if answered || err != nil {
		return err
	}
	driverID := t.DriverID
	d := p.transactionForm(c, header, transactionValues(t), nil)
	d.Action, d.Locked = ledgerURL(driverID)+"/"+t.ID.String()+"/edit", t.Status != finance.StatusPending
	return p.render(c, http.StatusOK, "finance.edit.crumb", views.TransactionFormPage(d))
}

// updateTransaction saves the edit form: the fields it sent, as a partial
// update (an approved transaction's locked fields are not sent).
func (p *Pages) updateTransaction(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	driverID := web.PathID(c, "id")
	id := web.PathID(c, "transaction_id")
	var values map[string]string
	var unreadable error // a form that does not parse: the error page, not the form
	t, err := p.svc.Finance.UpdateTransaction(ctx, pr, driverID, id, func(in *finance.TransactionInput) error {
		var err error
		*in, values, err = transactionInput(c)
		unreadable = err
		return err
	})
	if r, ok := refusalOf(i18n.From(ctx), err, noFile); unreadable == nil && ok {
		cur, gerr := p.svc.Finance.GetTransaction(ctx, pr, driverID, id)
		if gerr != nil {
			return gerr
		}
		header, herr := p.driverHeader(c, pr, driverID)
		if herr != nil {
			return herr
		}
		all := transactionValues(cur)
		for k, v := range values {
			all[k] = v
		}
		d := p.transactionForm(c, header, all, r.fields)
		d.Action, d.Locked = ledgerURL(driverID)+"/"+cur.ID.String()+"/edit", cur.Status != finance.StatusPending
		return p.transactionAnswer(c, r.status, d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "finance.flash.updated")
	return p.redirect(c, ledgerURL(t.DriverID))
}
