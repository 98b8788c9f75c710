package pages_test

import (
	"net/http"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/fixtures"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestStatementsOfAPageUpload counts the SQL statements of an upload from
// the document page, a plain form post (answered with a redirect) and the
// script's request (answered with the document panel): the document is
// loaded once, checked and handed on, so neither reads a row twice, and
// each stays within its budget.
func TestStatementsOfAPageUpload(t *testing.T) {
	st := &webtest.Statements{}
	env := devEnv(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	driver := env.Driver(company, fixtures.Name("Jan", "Novák"))
	path := documentPath(t, env, driver, "passport")
	hr := signIn(t, env, company, auth.RoleHRManager, "hana@acme.test", "en")
	hr.get(path).expect(t, http.StatusOK) // the caller's identity is cached: the uploads count their own statements
	st.Take()
	hr.upload(path, "passport.pdf", []byte("%PDF-1.7\nthe passport"), map[string]string{"number": "P 123"}, true).
		expect(t, http.StatusSeeOther)
	st.CheckStatements(t, "POST "+path, 13) // 11, and the live event: the document read back (2)

	hr.Header.Set("HX-Request", "true")
	hr.upload(path, "renewed.pdf", []byte("%PDF-1.7\nthe renewed passport"), map[string]string{"number": "P 456"}, true).
		expect(t, http.StatusOK).contains(t, `id="document-panel"`, "Version 2 was uploaded.", "renewed.pdf", "P 456")
	st.CheckStatements(t, "POST "+path+" (the script's request)", 15)
}
