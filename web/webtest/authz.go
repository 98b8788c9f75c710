package webtest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
)

// Reasons the generated authorization tables of both fronts give for a
// refusal that cannot happen on a route.
const (
	// ReasonCollection: no path id can name another company's record.
	ReasonCollection = "a collection of the caller's own company: no path id can name another company's record"
	// ReasonEveryRole: the matrix refuses no role.
	ReasonEveryRole = "every role may do this (permission matrix)"
	// ReasonNoDriver: the refused-role case covers the driver.
	ReasonNoDriver = "the driver role may not do this at all: the refused-role case covers it"
)

// RefusedRole is a role the matrix refuses the action, staff roles first;
// "" when every role may do it.
func RefusedRole(a auth.Action) auth.Role {
	for _, r := range []auth.Role{auth.RoleDispatcher, auth.RoleAccountant, auth.RoleHRManager, auth.RoleDriver, auth.RoleAdmin} {
		if auth.Allowed(r, a) == auth.Deny {
			return r
		}
	}
	return ""
}

// RefusalCase is what the generated authorization tests know of one route
// and one refusal.
type RefusalCase struct {
	// Name names the route in failures.
	Name string
	// Action is the permission the route needs ("" for a route outside
	// the matrix: then every refusal must be listed in NotApplicable).
	Action auth.Action
	// NotApplicable lists the refusals that cannot happen on the route,
	// each with the reason.
	NotApplicable map[Refusal]string
	// NamesRecord: a path id names a record (not only fixed values).
	NamesRecord bool
	// CompanyRecord: the route's record is a company's, not a driver's.
	CompanyRecord bool
}

// Applies says whether the refusal is to be tried on the route, and fails
// the test when the table's NotApplicable disagrees with the permission
// matrix and the route's path ids.
func (rc RefusalCase) Applies(t *testing.T, ref Refusal) bool {
	t.Helper()
	reason, na := rc.NotApplicable[ref]
	if na && reason == "" {
		t.Errorf("%s: %s is listed as not applicable without a reason", rc.Name, ref)
	}
	if rc.Action == "" {
		if !na {
			t.Errorf("%s: a route outside the permission matrix must list %q as not applicable", rc.Name, ref)
		}
		return false
	}
	var possible bool
	switch ref {
	case OtherCompany:
		possible = rc.NamesRecord
	case RoleRefused:
		possible = RefusedRole(rc.Action) != ""
	case OtherDriver:
		possible = rc.NamesRecord && auth.Allowed(auth.RoleDriver, rc.Action) == auth.Own && !rc.CompanyRecord
	}
	switch {
	case possible && na:
		t.Errorf("%s: %s is listed as not applicable (%s), but it can happen: test it", rc.Name, ref, reason)
	case !possible && !na:
		t.Errorf("%s: %s cannot happen here (matrix or path ids): list it in notApplicable with the reason", rc.Name, ref)
	}
	return possible
}

// FillPath puts the tenant's records into a route's path: param finds the
// path ids (`{id}` on the API, `:id` on the pages; its first group is the
// name), ids maps each name to a record kind (Kind*) or, after "=", a fixed
// value (a document type's code).
func FillPath(t *testing.T, path string, param *regexp.Regexp, ids map[string]string, tenant Tenant, driver int) string {
	t.Helper()
	return param.ReplaceAllStringFunc(path, func(m string) string {
		name := param.FindStringSubmatch(m)[1]
		kind, ok := ids[name]
		if !ok {
			t.Fatalf("%s: the table names no record kind for %s", path, m)
		}
		if v, ok := strings.CutPrefix(kind, "="); ok {
			return v
		}
		return tenant.ID(driver, kind).String()
	})
}
