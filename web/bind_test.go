package web

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/konvoj/konvoj/internal/money"
)

// bindSample is an input struct as the services write them.
type bindSample struct {
	Name      *string     `json:"name"`
	Note      *string     `json:"note"`
	Code      string      `json:"code"`
	Force     bool        `json:"force"`
	Amount    money.Input `json:"amount"`
	Untouched *string     `json:"untouched"`
	Skipped   string      `json:"-"`
}

func bindRequest(path, contentType, body string) echo.Context {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set(echo.HeaderContentType, contentType)
	return echo.New().NewContext(req, httptest.NewRecorder())
}

// TestBindReadsTheFormByTheJSONNames: a page's form fills the service's
// input as the API's JSON of the same names would, an amount as people
// type it, and leaves what it does not send.
func TestBindReadsTheFormByTheJSONNames(t *testing.T) {
	form := url.Values{"name": {"first", "Anna"}, "note": {""}, "code": {"X1"}, "force": {"true"},
		"amount": {"1 250,50"}, "-": {"no"}}
	c := bindRequest("/drivers/1", echo.MIMEApplicationForm, form.Encode())
	keep := "kept"
	in := bindSample{Untouched: &keep}
	if err := Bind(c, &in); err != nil {
		t.Fatal(err)
	}
	amount, err := in.Amount.Parse()
	switch {
	case in.Name == nil || *in.Name != "Anna":
		t.Errorf("name: %v, want the last value sent", in.Name)
	case in.Note == nil || *in.Note != "":
		t.Errorf("note: %v, want an empty text (it clears the field)", in.Note)
	case in.Code != "X1" || !in.Force || in.Skipped != "":
		t.Errorf("code %q, force %v, skipped %q", in.Code, in.Force, in.Skipped)
	case in.Untouched == nil || *in.Untouched != "kept":
		t.Errorf("a field not sent changed: %v", in.Untouched)
	case err != nil || amount.Decimal().StringFixed(2) != "1250.50":
		t.Errorf("amount %v, %v; want 1250.50", amount, err)
	}
}

// TestBindReadsJSONOnTheAPI: on the API the same input comes from JSON.
func TestBindReadsJSONOnTheAPI(t *testing.T) {
	c := bindRequest("/api/v0/drivers/1", echo.MIMEApplicationJSON, `{"name":"Anna","force":true,"amount":"12.30"}`)
	var in bindSample
	if err := Bind(c, &in); err != nil {
		t.Fatal(err)
	}
	if in.Name == nil || *in.Name != "Anna" || !in.Force || !in.Amount.Given() {
		t.Errorf("read %+v", in)
	}
	c = bindRequest("/api/v0/drivers/1", echo.MIMEApplicationForm, "name=Anna")
	if err := Bind(c, &in); err == nil {
		t.Error("a form on the API was read; want 400")
	}
}
