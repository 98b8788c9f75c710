package audit

import (
	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/holders"
)

// Access to the audit log (docs/development.md, "Access"): the log is the
// company's as a whole, read by the roles of auth.AuditRead.

// readable is the check of the caller's company's log: the role (403
// Forbidden).
func readable(p auth.Principal) error {
	_, err := holders.Collection(p, auth.AuditRead)
	return err
}
