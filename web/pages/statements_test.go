package pages_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestStatementsOfAPageUpload counts the SQL statements of an upload from
// the document page (a plain form post, answered with a redirect): the
// document is loaded once, checked and handed on, so the request reads no
// row twice and stays within its budget.
func TestStatementsOfAPageUpload(t *testing.T) {
	st := &webtest.Statements{}
	env := devEnv(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"))
	path := documentPath(t, env, driver, "passport")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.get(path).expect(t, http.StatusOK) // the caller's identity is cached: the upload counts its own statements
	st.Take()
	hr.upload(path, "passport.pdf", []byte("%PDF-1.7\nthe passport"), map[string]string{"number": "P 123"}, true).
		expect(t, http.StatusSeeOther)
	st.CheckStatements(t, "POST "+path, 12)
}
