package pages

import (
	"strings"

	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/civil"
	"github.com/konvoj/konvoj/internal/drivers"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/phones"
	"github.com/konvoj/konvoj/views"
	"github.com/konvoj/konvoj/web"
)

// newDriver is the empty create form (HR and admins; others get the 403
// page, the same answer the service gives their create).
func (p *Pages) newDriver(c echo.Context) error {
	pr := web.Principal(c)
	if err := p.svc.Drivers.CheckCreate(pr); err != nil {
		return err
	}
	d, err := p.driverForm(c, pr, map[string]string{"status": "active"}, nil)
	if err != nil {
		return err
	}
	d.Creating, d.Action, d.CancelURL = true, "/drivers/new", "/drivers"
	return p.render(c, http.StatusOK, "driver.new.title", views.DriverFormPage(d))
}

// createDriver creates a driver from the form through the service. Refused
// values come back as the form with the service's messages, translated.
func (p *Pages) createDriver(c echo.Context) error {
	pr := web.Principal(c)
	var values map[string]string
	created, err := p.svc.Drivers.Create(c.Request().Context(), pr, formInput(c, &values))
	if errs, ok := formErrors(i18n.From(c.Request().Context()), err, "email"); ok {
		d, ferr := p.driverForm(c, pr, values, errs)
		if ferr != nil {
			return ferr
		}
		d.Creating, d.Action, d.CancelURL = true, "/drivers/new", "/drivers"
		return p.formAnswer(c, "driver.new.title", d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "driver.created", "name", fullName(created))
	return p.redirect(c, driverURL(created.ID))
}

// editDriver is the edit form: every field for HR, the fields a driver may
// change on its own record for a driver.
func (p *Pages) editDriver(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	cur, err := p.svc.Drivers.Get(ctx, pr, auth.DriversUpdate, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	d, err := p.driverForm(c, pr, driverValues(cur), nil)
	if err != nil {
		return err
	}
	p.describeEdit(&d, pr, cur)
	return p.render(c, http.StatusOK, "driver.edit", views.DriverFormPage(d))
}

// updateDriver saves the edit form: the fields the form sent, as a partial
// update. A driver sending other fields than its own gets the service's
// 403, as through the API.
func (p *Pages) updateDriver(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	id := web.PathID(c, "id")
	var values map[string]string
	updated, err := p.svc.Drivers.Update(ctx, pr, id, formInput(c, &values))
	if errs, ok := formErrors(i18n.From(ctx), err, "email"); ok {
		// The form again, named after the driver as it is.
		cur, gerr := p.svc.Drivers.Get(ctx, pr, auth.DriversUpdate, id)
		if gerr != nil {
			return gerr
		}
		d, ferr := p.driverForm(c, pr, values, errs)
		if ferr != nil {
			return ferr
		}
		p.describeEdit(&d, pr, cur)
		return p.formAnswer(c, "driver.edit", d)
	}
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "driver.updated")
	return p.redirect(c, driverURL(updated.ID))
}

func (p *Pages) describeEdit(d *views.DriverFormData, pr auth.Principal, cur drivers.Driver) {
	d.Action = driverURL(cur.ID) + "/edit"
	d.CancelURL = driverURL(cur.ID)
	d.Name, d.Number = fullName(cur), cur.InternalNumber
	d.Editable = drivers.EditableFields(pr)
}

// formAnswer answers a refused save with 422: the form alone for htmx (it
// swaps the form), the whole page otherwise.
func (p *Pages) formAnswer(c echo.Context, titleKey string, d views.DriverFormData) error {
	if isHTMX(c) && c.Request().Header.Get("HX-Target") == "driver-form" {
		return p.fragment(c, http.StatusUnprocessableEntity, views.DriverForm(d))
	}
	return p.render(c, http.StatusUnprocessableEntity, titleKey, views.DriverFormPage(d))
}

// driverForm fills the form's choices and the given values and messages.
func (p *Pages) driverForm(c echo.Context, pr auth.Principal, values map[string]string, errs map[string][]string) (views.DriverFormData, error) {
	lang := i18n.From(c.Request().Context())
	d := views.DriverFormData{CSRF: csrfToken(c), Values: values, Errors: errs, Countries: countryChoices(lang),
		BirthMin: civil.NewDate(drivers.EarliestBirthYear, time.January, 1).String(), BirthMax: pr.Today().String()}
	for _, s := range drivers.Statuses {
		d.Statuses = append(d.Statuses, views.Option{Value: s, Label: lang.T("driver.status." + s)})
	}
	for _, l := range drivers.Languages {
		if name, ok := i18n.Parse(l); ok {
			d.Languages = append(d.Languages, views.Option{Value: l, Label: name.Name()})
		}
	}
	offices, err := p.svc.Drivers.Offices(c.Request().Context(), pr)
	if err != nil {
		return d, err
	}
	for _, o := range offices {
		d.Offices = append(d.Offices, views.Option{Value: o.ID.String(), Label: o.Name})
	}
	return d, nil
}

// driverInput turns the posted form into the service's input: every
// driver field the form sent, as text (an empty text clears an optional
// field, as null does in the API; the service validates everything).
// values keeps what was sent, to show the form again.
// formInput is driverInput as the service reads it, after its access
// checks; values keeps what the form sent, to show it again.
func formInput(c echo.Context, values *map[string]string) func(*drivers.Input) error {
	return func(in *drivers.Input) error {
		var err error
		*in, *values, err = driverInput(c)
		return err
	}
}

func driverInput(c echo.Context) (drivers.Input, map[string]string, error) {
	form, err := c.FormParams()
	if err != nil {
		return drivers.Input{}, nil, apperr.BadRequest("msg.common.form_unreadable")
	}
	if err := web.CheckText(form); err != nil {
		return drivers.Input{}, nil, err
	}
	var in drivers.Input
	values := map[string]string{}
	for _, name := range views.DriverFormFields() {
		sent, ok := form[name]
		if !ok || len(sent) == 0 {
			continue
		}
		// A checkbox sends a hidden "false" and, when ticked, "true": the
		// last value counts.
		v := sent[len(sent)-1]
		values[name] = v
		var value any = v
		switch name {
		case "contract_indefinite":
			value = v == "true"
		case "tags":
			value = drivers.ParseTags(v)
		}
		if err := in.Set(name, value); err != nil {
			return drivers.Input{}, nil, err
		}
	}
	return in, values, nil
}

// formErrors is refusalOf for the forms of one record that answer 422
// (drivers, document types and rules, webhooks): the service's validation
// messages, and a duplicate (409 DuplicateEntry) at the field named unique,
// the form's one unique value (a driver's e-mail, a document type's code);
// any other refusal is the error page.
func formErrors(lang i18n.Lang, err error, unique string) (map[string][]string, bool) {
	r, ok := refusalOf(lang, err, noFile)
	switch {
	case ok && r.status == http.StatusUnprocessableEntity:
		// A refused tag (tags.2) is shown at the one tags input.
		for name, msgs := range r.fields {
			if strings.HasPrefix(name, "tags.") {
				r.fields["tags"] = append(r.fields["tags"], msgs...)
				delete(r.fields, name)
			}
		}
		return r.fields, true
	case ok && apperr.KindOf(err) == apperr.KindDuplicate:
		return map[string][]string{unique: r.fields[""]}, true
	}
	return nil, false
}

// driverValues are a stored driver's fields as the form shows them.
func driverValues(d drivers.Driver) map[string]string {
	v := map[string]string{
		"first_name": d.FirstName, "last_name": d.LastName, "middle_name": deref(d.MiddleName),
		"birth_date": isoDate(d.BirthDate), "citizenship": deref(d.Citizenship), "rodne_cislo": deref(d.RodneCislo),
		"email": d.Email, "phone": phones.Display(deref(d.Phone)), "registration_address": deref(d.RegistrationAddress),
		"residence_address": deref(d.ResidenceAddress), "status": d.Status,
		"hire_date": isoDate(d.HireDate), "fire_date": isoDate(d.FireDate),
		"contract_from": isoDate(d.ContractFrom), "contract_to": isoDate(d.ContractTo),
		"contract_indefinite": strconv.FormatBool(d.ContractIndefinite), "work_location": deref(d.WorkLocation),
		"bank_country": deref(d.BankCountry), "bank_account": deref(d.BankAccount),
		"iban": deref(d.IBAN), "swift": deref(d.SWIFT),
		"tags": strings.Join(d.Tags, ", "), "language": deref(d.Language),
	}
	if d.OfficeID != nil {
		v["office_id"] = d.OfficeID.String()
	}
	return v
}

// confirmDeleteDriver asks before deleting (HR and admins only).
func (p *Pages) confirmDeleteDriver(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	d, err := p.svc.Drivers.Get(ctx, pr, auth.DriversDelete, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	return p.render(c, http.StatusOK, "driver.delete", views.DeleteDriver(views.DeleteDriverData{
		Name: fullName(d), Number: d.InternalNumber, Action: driverURL(d.ID) + "/delete",
		CSRF: csrfToken(c), CancelURL: driverURL(d.ID),
	}))
}

// deleteDriver soft-deletes the driver and returns to the list.
func (p *Pages) deleteDriver(c echo.Context) error {
	pr := web.Principal(c)
	ctx := c.Request().Context()
	d, err := p.svc.Drivers.Delete(ctx, pr, web.PathID(c, "id"))
	if err != nil {
		return err
	}
	p.flash(c, views.FlashSuccess, "driver.deleted", "name", fullName(d))
	return p.redirect(c, "/drivers")
}
