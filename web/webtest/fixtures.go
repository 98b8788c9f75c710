package webtest

import (
	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/fixtures"
)

// Driver inserts a driver of the company with its 14 empty documents
// (fixtures.Driver on the test's database) and returns its id.
func (e *Env) Driver(company uuid.UUID, opts ...fixtures.DriverOption) uuid.UUID {
	e.T.Helper()
	return fixtures.Driver(e.T, e.DB, company, opts...)
}
