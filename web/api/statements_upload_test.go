package api_test

import (
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// TestStatementsOfAnUpload counts the SQL statements of an upload through
// the API: the document is loaded once, checked and handed on, so the
// request reads no row twice and stays within its budget.
func TestStatementsOfAnUpload(t *testing.T) {
	t.Parallel()
	st := &webtest.Statements{}
	env := webtest.New(t, webtest.WithTracer(st))
	company := env.Company("Acme", "free")
	hr := env.As(company, auth.RoleHRManager)
	driver := env.Driver(company)
	doc := documentID(t, env, driver, "passport")
	hr.Get("/api/v0/drivers/" + driver.String()) // the caller's identity is cached: the upload counts its own statements
	st.Take()
	mustUpload(t, hr, doc, filePart("passport.pdf", samplePDF(t, 2_000)))
	st.CheckStatements(t, "POST /documents/{id}/files", 11) // 8, and the live event: the document read back (2) and written (1)
}
