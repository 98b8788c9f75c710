// Package auth verifies who is calling (tokens, OIDC sign-in), maps the
// identity to a Principal and holds the permission matrix of docs/permissions.md.
// Services take a Principal and ask it before they touch data.
package auth

import (
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/apperr"
	"github.com/konvoj/konvoj/internal/civil"
)

// Role is an application role.
type Role string

// The five roles, in the priority order used for the earlier claim layout.
const (
	RoleAdmin      Role = "admin"
	RoleHRManager  Role = "hr_manager"
	RoleAccountant Role = "accountant"
	RoleDispatcher Role = "dispatcher"
	RoleDriver     Role = "driver"
)

// Roles lists every role in priority order.
var Roles = []Role{RoleAdmin, RoleHRManager, RoleAccountant, RoleDispatcher, RoleDriver}

// ParseRole maps a claim value to a Role; ok is false for unknown strings.
func ParseRole(s string) (Role, bool) {
	for _, r := range Roles {
		if string(r) == s {
			return r, true
		}
	}
	return "", false
}

// Principal is the authenticated caller as services see it.
type Principal struct {
	UserID    uuid.UUID
	CompanyID uuid.UUID
	Role      Role
	Email     string
	// Name is the display name written into audit rows and responses.
	Name string
	// DriverID is the driver record linked to a driver caller (by e-mail),
	// nil when there is none (docs/permissions.md).
	DriverID *uuid.UUID

	// Company facts the services need on most requests.
	CompanyTier     string
	CompanyTimezone string
	CompanyCurrency string
	// CompanyCountry is the company's two-letter country: a phone number
	// written without its international prefix is read in it.
	CompanyCountry string
	// Language is the user's preferred language, else the company's default.
	Language string
	// PreferredLanguage is the language the user chose and stored, "" when
	// none: the pages then follow the browser before the company.
	PreferredLanguage string

	// SessionID is the web session the request came with (the pages'
	// cookie); uuid.Nil for a bearer token, which is no session.
	SessionID uuid.UUID

	// Client facts for the audit log.
	IPAddress string
	UserAgent string
}

// Location is the company's time zone (UTC when unknown); "today" for
// document status, default dates and rating months is taken in it.
func (p Principal) Location() *time.Location {
	if p.CompanyTimezone == "" {
		return time.UTC
	}
	if loc, ok := zones.Load(p.CompanyTimezone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(p.CompanyTimezone)
	if err != nil {
		return time.UTC
	}
	zones.Store(p.CompanyTimezone, loc)
	return loc
}

// zones caches the loaded time zones by name: time.LoadLocation reads and
// parses the zone's file on every call, and every request asks for its
// company's zone.
// The set of names is the companies' few zones, so it stays small.
var zones sync.Map

// Today is the current date in the company's time zone: "today" for
// document status, default dates and the current rating month.
func (p Principal) Today() civil.Date { return civil.DateOf(time.Now().In(p.Location())) }

// Require checks that the role may do this kind of action at all: 403
// Forbidden otherwise.
func (p Principal) Require(a Action) error {
	if Allowed(p.Role, a) == Deny {
		return apperr.Forbidden()
	}
	return nil
}

// Grant is the caller's grant for an action.
func (p Principal) Grant(a Action) Grant { return Allowed(p.Role, a) }

// CheckCompany gives 403 AccessDenied for a record of another company.
func (p Principal) CheckCompany(companyID uuid.UUID) error {
	if companyID != p.CompanyID {
		return apperr.AccessDenied()
	}
	return nil
}

// CheckDriver checks a record that belongs to a driver: another company, or
// another driver when the grant is Own, gives 403 AccessDenied.
func (p Principal) CheckDriver(a Action, companyID, driverID uuid.UUID) error {
	if err := p.CheckCompany(companyID); err != nil {
		return err
	}
	if p.Grant(a) == Own && (p.DriverID == nil || *p.DriverID != driverID) {
		return apperr.AccessDenied()
	}
	return nil
}
