package api_test

import (
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/api"
	"github.com/konvoj/konvoj/web/webtest"
)

// The authorization test walks every operation of the OpenAPI document with
// three callers that must be refused, and checks that the refusal changed
// nothing. Its table says, per route, the permission the route needs and the
// record kind of each path id; a route of the document missing from the
// table fails the test, so a new route cannot ship without its refusals
// being tested. (The idea is coder/coder's dbauthz setup_test: every data
// method must have an authorization test.)

// authzRoute is one route of an authorization table.
type authzRoute struct {
	// action is the permission the route needs ("" for a route outside the
	// matrix: then every refusal must be listed in notApplicable).
	action auth.Action
	// ids maps each path parameter to the kind of record it names
	// (webtest.Kind*).
	ids map[string]string
	// body is a valid request body, so that a missing check would change
	// data rather than fail on the input (nil: none; "upload": a PDF).
	body any
	// notApplicable lists the refusals that cannot happen on this route,
	// each with the reason.
	notApplicable map[webtest.Refusal]string
}

const (
	collection  = webtest.ReasonCollection
	ownList     = "a collection of the caller's own company: a driver caller's list holds only its own records"
	everyRole   = webtest.ReasonEveryRole
	noDriver    = webtest.ReasonNoDriver
	companyOnly = "a record of the company as a whole, not of one driver"
	notInMatrix = "not a permission of the matrix"
	// bulkByCompany: a bulk move of a month names drivers in its body, not
	// its path, and looks them up in the caller's company only.
	bulkByCompany = "the periods are the caller's company's; another company's driver id is a skipped result that changes nothing (TestMonthEndBulkClose)"
)

// thisMonth is the first day of this month in the test companies' time
// zone (YYYY-MM-01).
func thisMonth() string { return webtest.Today()[:8] + "01" }

// ownNotifications: the caller's own notifications and settings, which
// every role has.
var ownNotifications = map[webtest.Refusal]string{
	webtest.OtherCompany: "the caller's own notifications: no path id", webtest.RoleRefused: everyRole,
	webtest.OtherDriver: "the caller's own notifications: no path id"}

func driverIDs(extra ...string) map[string]string {
	ids := map[string]string{"id": webtest.KindDriver}
	for i := 0; i+1 < len(extra); i += 2 {
		ids[extra[i]] = extra[i+1]
	}
	return ids
}

// apiRoutes is the API's authorization table, by "METHOD /path" as the
// OpenAPI document writes it.
var apiRoutes = map[string]authzRoute{
	"GET /api/v0/openapi.json": {notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "public document", webtest.RoleRefused: "public document", webtest.OtherDriver: "public document"}},
	// The live-update stream: every role, each event filtered by what the
	// caller may read (TestLiveEventsReachTheirReaders), never refused.
	"GET /api/v0/events": {notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the caller's own company's stream: no path id", webtest.RoleRefused: everyRole,
		webtest.OtherDriver: "events are filtered per caller, not refused"}},
	"GET /api/v0/audit-logs": {action: auth.AuditRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},

	"GET /api/v0/drivers": {action: auth.DriversRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"POST /api/v0/drivers": {action: auth.DriversCreate,
		body:          map[string]any{"first_name": "Nový", "last_name": "Řidič", "email": "new-driver@example.test"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/export": {action: auth.DriversRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /api/v0/reports/compliance": {action: auth.DocumentsList, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: ownList}},
	"POST /api/v0/imports/drivers": {action: auth.DriversImport, body: "upload",
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/imports/drivers/template": {action: auth.DriversImport,
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /api/v0/imports/vehicles": {action: auth.FleetWrite, body: "upload",
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/imports/vehicles/template": {action: auth.FleetWrite,
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /api/v0/imports/trailers": {action: auth.FleetWrite, body: "upload",
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/imports/trailers/template": {action: auth.FleetWrite,
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/vehicles/export": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /api/v0/trailers/export": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /api/v0/imports/{id}": {action: auth.DriversImport, ids: map[string]string{"id": webtest.KindImport},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{id}": {action: auth.DriversRead, ids: driverIDs(),
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"PUT /api/v0/drivers/{id}": {action: auth.DriversUpdate, ids: driverIDs(), body: map[string]any{"phone": "+420 777 000 111"}},
	"DELETE /api/v0/drivers/{id}": {action: auth.DriversDelete, ids: driverIDs(),
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /api/v0/vehicles": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"POST /api/v0/vehicles": {action: auth.FleetWrite, body: map[string]any{"type": "lkv", "plate_number": "1AZ 0001"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/vehicles/{id}": {action: auth.FleetRead, ids: map[string]string{"id": webtest.KindVehicle},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"PUT /api/v0/vehicles/{id}": {action: auth.FleetWrite, ids: map[string]string{"id": webtest.KindVehicle},
		body: map[string]any{"color": "blue"}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"DELETE /api/v0/vehicles/{id}": {action: auth.FleetWrite, ids: map[string]string{"id": webtest.KindVehicle},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/trailers": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"POST /api/v0/trailers": {action: auth.FleetWrite, body: map[string]any{"type": "mega", "plate_number": "1AZ 0002"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/trailers/{id}": {action: auth.FleetRead, ids: map[string]string{"id": webtest.KindTrailer},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"PUT /api/v0/trailers/{id}": {action: auth.FleetWrite, ids: map[string]string{"id": webtest.KindTrailer},
		body: map[string]any{"color": "blue"}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"DELETE /api/v0/trailers/{id}": {action: auth.FleetWrite, ids: map[string]string{"id": webtest.KindTrailer},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /api/v0/transport-units": {action: auth.UnitsRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: ownList}},
	"POST /api/v0/transport-units": {action: auth.UnitsWrite,
		body:          map[string]any{"driver_id": "00000000-0000-4000-8000-000000000001", "vehicle_id": "00000000-0000-4000-8000-000000000002"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/transport-units/{id}": {action: auth.UnitsRead, ids: map[string]string{"id": webtest.KindUnit}},
	"PUT /api/v0/transport-units/{id}": {action: auth.UnitsWrite, ids: map[string]string{"id": webtest.KindUnit},
		body: map[string]any{"trailer_id": nil}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/transport-units/{id}/unassign": {action: auth.UnitsWrite, ids: map[string]string{"id": webtest.KindUnit},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/transport-units/{id}/readiness": {action: auth.UnitsRead, ids: map[string]string{"id": webtest.KindUnit}},
	"GET /api/v0/drivers/{id}/readiness":         {action: auth.UnitsRead, ids: driverIDs()},

	"GET /api/v0/documents": {action: auth.DocumentsExpiry, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{driver_id}/documents": {action: auth.DocumentsList,
		ids: map[string]string{"driver_id": webtest.KindDriver}},
	"GET /api/v0/vehicles/{vehicle_id}/documents": {action: auth.FleetRead,
		ids:           map[string]string{"vehicle_id": webtest.KindVehicle},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"GET /api/v0/trailers/{trailer_id}/documents": {action: auth.FleetRead,
		ids:           map[string]string{"trailer_id": webtest.KindTrailer},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"PUT /api/v0/documents/{document_id}": {action: auth.DocumentsWrite,
		ids: map[string]string{"document_id": webtest.KindDocument}, body: map[string]any{"number": "X-1"}},
	"POST /api/v0/documents/{document_id}/files": {action: auth.DocumentsWrite,
		ids: map[string]string{"document_id": webtest.KindDocument}, body: "upload"},
	"GET /api/v0/documents/{document_id}/files/versions": {action: auth.FilesRead,
		ids: map[string]string{"document_id": webtest.KindDocument}},
	"POST /api/v0/documents/{document_id}/files/{file_id}/review": {action: auth.DocumentsReview,
		ids:           map[string]string{"document_id": webtest.KindDocument, "file_id": webtest.KindFile},
		body:          map[string]any{"decision": "reject", "reason": "Blurred."},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/files/{file_id}/download": {action: auth.FilesRead,
		ids: map[string]string{"file_id": webtest.KindFile}},

	"GET /api/v0/drivers/{id}/finance": {action: auth.FinanceRead, ids: driverIDs()},
	"POST /api/v0/drivers/{id}/finance": {action: auth.FinanceWrite, ids: driverIDs(),
		body:          map[string]any{"transaction_type": "bonus", "amount": "5.00", "transaction_date": webtest.Today()},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/drivers/{id}/finance/{transaction_id}": {action: auth.FinanceWrite,
		ids: driverIDs("transaction_id", webtest.KindTransaction), body: map[string]any{"description": "changed"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"DELETE /api/v0/drivers/{id}/finance/{transaction_id}": {action: auth.FinanceDelete,
		ids:           driverIDs("transaction_id", webtest.KindTransaction),
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{id}/finance/periods": {action: auth.FinanceRead, ids: driverIDs()},
	"POST /api/v0/drivers/{id}/finance/periods/{period_id}/close": {action: auth.PeriodsManage,
		ids: driverIDs("period_id", webtest.KindPeriod), notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/drivers/{id}/finance/periods/{period_id}/reopen": {action: auth.PeriodsReopen,
		ids: driverIDs("period_id", webtest.KindPeriod), body: map[string]any{"reason": "Late invoice."},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/drivers/{id}/finance/periods/{period_id}/pay": {action: auth.PeriodsManage,
		ids: driverIDs("period_id", webtest.KindPeriod), body: map[string]any{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{id}/finance/aggregates": {action: auth.FinanceRead, ids: driverIDs()},
	"GET /api/v0/drivers/{id}/finance/export":     {action: auth.FinanceRead, ids: driverIDs()},
	"GET /api/v0/finance/periods": {action: auth.PayrollRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /api/v0/finance/periods/close": {action: auth.PeriodsManage, body: map[string]any{"period_start": thisMonth()},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: bulkByCompany, webtest.OtherDriver: noDriver}},
	"POST /api/v0/finance/periods/pay": {action: auth.PeriodsManage, body: map[string]any{"period_start": thisMonth()},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: bulkByCompany, webtest.OtherDriver: noDriver}},
	"GET /api/v0/finance/payroll": {action: auth.PayrollRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{id}/finance/periods/{period_id}/payslip": {action: auth.FinanceRead,
		ids: driverIDs("period_id", webtest.KindPeriod)},
	"GET /api/v0/finance/payslips": {action: auth.PayrollRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},

	"GET /api/v0/drivers/{id}/penalties": {action: auth.PenaltiesRead, ids: driverIDs()},
	"POST /api/v0/drivers/{id}/penalties": {action: auth.PenaltiesManage, ids: driverIDs(),
		body:          map[string]any{"penalty_type": "other", "amount": "1.00", "incident_date": webtest.Today(), "description": "x"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/drivers/{id}/penalties/{penalty_id}": {action: auth.PenaltiesRead,
		ids: driverIDs("penalty_id", webtest.KindPenalty)},
	"PUT /api/v0/drivers/{id}/penalties/{penalty_id}/dispute": {action: auth.PenaltiesRespond,
		ids: driverIDs("penalty_id", webtest.KindPenalty), body: map[string]any{"dispute_reason": "not me"}},
	"PUT /api/v0/drivers/{id}/penalties/{penalty_id}/resolve": {action: auth.PenaltiesManage,
		ids: driverIDs("penalty_id", webtest.KindPenalty), body: map[string]any{"resolution_action": "cancel", "resolution": "ok"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/drivers/{id}/penalties/{penalty_id}/accept": {action: auth.PenaltiesRespond,
		ids: driverIDs("penalty_id", webtest.KindPenalty)},
	"POST /api/v0/penalties/{penalty_id}/evidence": {action: auth.PenaltiesRespond,
		ids: map[string]string{"penalty_id": webtest.KindPenalty}, body: "upload"},
	"GET /api/v0/penalties/{penalty_id}/evidence": {action: auth.PenaltiesRead,
		ids: map[string]string{"penalty_id": webtest.KindPenalty}},
	"GET /api/v0/penalties/{penalty_id}/evidence/{file_id}": {action: auth.PenaltiesRead,
		ids: map[string]string{"penalty_id": webtest.KindPenalty, "file_id": webtest.KindEvidence}},

	"GET /api/v0/drivers/{id}/rating": {action: auth.RatingRead, ids: driverIDs(),
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"GET /api/v0/drivers/{id}/rating/history": {action: auth.RatingRead, ids: driverIDs(),
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"POST /api/v0/drivers/{id}/rating/calculate": {action: auth.RatingManage, ids: driverIDs(), body: map[string]any{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/ratings": {action: auth.RatingRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /api/v0/companies/{company_id}/rating-config": {action: auth.RatingRead,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole, webtest.OtherDriver: companyOnly}},
	"PUT /api/v0/companies/{company_id}/rating-config": {action: auth.RatingManage,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		body:          map[string]any{"metrics": []any{map[string]any{"metric_name": "activity", "thresholds": map[string]any{"min_orders_per_month": 9}}}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /api/v0/companies/{company_id}/document-rules": {action: auth.DocumentRules,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/companies/{company_id}/document-rules": {action: auth.DocumentRules,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		body:          map[string]any{"rules": []any{map[string]any{"document_type": "adr_certificate", "lead_days": 45}}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /api/v0/companies/{company_id}/document-types": {action: auth.DocumentRules,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/companies/{company_id}/document-types": {action: auth.DocumentRules,
		ids:           map[string]string{"company_id": webtest.KindCompany},
		body:          map[string]any{"code": "driver_attestation", "names": map[string]any{"en": "Driver attestation"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/companies/{company_id}/document-types/{code}": {action: auth.DocumentRules,
		ids:           map[string]string{"company_id": webtest.KindCompany, "code": "=driver_attestation"},
		body:          map[string]any{"lead_days": 45},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /api/v0/notifications":           {notApplicable: ownNotifications},
	"POST /api/v0/notifications/read-all": {notApplicable: ownNotifications},
	"POST /api/v0/notifications/{id}/read": {notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "another company's notification is 403: TestNotificationsAPI", webtest.RoleRefused: everyRole,
		webtest.OtherDriver: "another user's notification is 404: TestNotificationsAPI"}},
	"GET /api/v0/me/notification-settings": {notApplicable: ownNotifications},

	"GET /api/v0/webhooks": {action: auth.WebhooksManage, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /api/v0/webhooks": {action: auth.WebhooksManage,
		body:          map[string]any{"url": "https://93.184.215.14/hook", "events": []string{"*"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /api/v0/webhooks/{id}": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/webhooks/{id}": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		body: map[string]any{"description": "changed"}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"DELETE /api/v0/webhooks/{id}": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/webhooks/{id}/rotate-secret": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/webhooks/{id}/test": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/webhooks/{id}/deliveries": {action: auth.WebhooksManage, ids: map[string]string{"id": webtest.KindWebhook},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/webhooks/{id}/deliveries/{delivery_id}/redeliver": {action: auth.WebhooksManage,
		ids:           map[string]string{"id": webtest.KindWebhook, "delivery_id": webtest.KindDelivery},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /api/v0/users": {action: auth.UsersManage, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /api/v0/users/{id}/deactivate": {action: auth.UsersManage, ids: map[string]string{"id": webtest.KindUser},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /api/v0/users/{id}/reactivate": {action: auth.UsersManage, ids: map[string]string{"id": webtest.KindUser},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"PUT /api/v0/me/notification-settings": {notApplicable: ownNotifications},
	"GET /api/v0/me/sessions": {action: auth.SessionsOwn, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the caller's own sessions: no path id", webtest.RoleRefused: everyRole,
		webtest.OtherDriver: "the caller's own sessions: no path id"}},
	"DELETE /api/v0/me/sessions/{id}": {action: auth.SessionsOwn, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "another company's session is 403, another user's 404, and neither ends: TestMySessionsAPI",
		webtest.RoleRefused:  everyRole,
		webtest.OtherDriver:  "another user's session is 404 and does not end: TestMySessionsAPI"}},
}

// plannedRoute is a route the API announces but does not serve yet (501):
// no record and no permission behind it.
var plannedRoute = authzRoute{notApplicable: map[webtest.Refusal]string{
	webtest.OtherCompany: "planned (501)", webtest.RoleRefused: "planned (501)", webtest.OtherDriver: "planned (501)"}}

func TestEveryAPIRouteRefusesOtherTenantsRolesAndDrivers(t *testing.T) {
	doc, _, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	var routes []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			routes = append(routes, method+" "+path)
		}
	}
	sort.Strings(routes)
	planned := map[string]bool{}
	for _, p := range apiPlannedPaths() {
		planned[p] = true
	}
	seen := map[string]bool{}
	for _, r := range routes {
		seen[r] = true
		if _, ok := apiRoutes[r]; !ok && !planned[strings.SplitN(r, " ", 2)[1]] {
			t.Errorf("%s is in the OpenAPI document but not in the authorization table apiRoutes: add it (the permission it needs, the record kind of each path id, and why a refusal does not apply)", r)
		}
	}
	for r := range apiRoutes {
		if !seen[r] {
			t.Errorf("%s is in the authorization table but not in the OpenAPI document", r)
		}
	}
	if t.Failed() {
		return
	}

	env := webtest.New(t)
	w := env.World()
	callers := newRefusedCallers(env, w)
	for _, r := range routes {
		route, ok := apiRoutes[r]
		if !ok {
			route = plannedRoute
		}
		method, path, _ := strings.Cut(r, " ")
		for _, ref := range webtest.Refusals {
			if !(webtest.RefusalCase{Name: r, Action: route.action, NotApplicable: route.notApplicable, NamesRecord: route.ids != nil, CompanyRecord: companyRecord(route)}).Applies(t, ref) {
				continue
			}
			tenant, driver, caller := w.Away, 0, callers.admin // another company
			want := "AccessDenied"
			switch ref {
			case webtest.RoleRefused:
				tenant, caller, want = w.Home, callers.role(webtest.RefusedRole(route.action)), "Forbidden"
			case webtest.OtherDriver:
				tenant, driver, caller = w.Home, 1, callers.driver
			}
			url := webtest.FillPath(t, path, pathParam, route.ids, tenant, driver)
			before := env.Checksum()
			res := send(caller, method, url, route.body)
			if res.Status != http.StatusForbidden || res.JSON()["error"] != want {
				t.Errorf("%s (%s): got %d %s, want 403 %s", r, ref, res.Status, res.Body, want)
			}
			if after := env.Checksum(); after != before {
				t.Errorf("%s (%s): the refused request changed data", r, ref)
			}
		}
	}
}

// refusedCallers are the callers of the Home company, made once and warmed
// up (their first request writes their user row).
type refusedCallers struct {
	admin, driver *webtest.Caller
	roles         map[auth.Role]*webtest.Caller
}

func newRefusedCallers(env *webtest.Env, w *webtest.World) refusedCallers {
	c := refusedCallers{
		admin:  env.As(w.Home.Company, auth.RoleAdmin),
		driver: env.As(w.Home.Company, auth.RoleDriver, w.Home.Drivers[0].Email),
		roles:  map[auth.Role]*webtest.Caller{},
	}
	for _, r := range auth.Roles {
		c.roles[r] = env.As(w.Home.Company, r)
		c.roles[r].Get("/api/v0/drivers").Expect(http.StatusOK)
	}
	c.roles[auth.RoleDriver] = c.driver
	c.admin.Get("/api/v0/drivers").Expect(http.StatusOK)
	c.driver.Get("/api/v0/drivers").Expect(http.StatusOK)
	return c
}

func (c refusedCallers) role(r auth.Role) *webtest.Caller { return c.roles[r] }

// companyRecord reports whether the route's record is a company's, not a
// driver's (its only path id names a company).
func companyRecord(route authzRoute) bool {
	for _, kind := range route.ids {
		if kind != webtest.KindCompany {
			return false
		}
	}
	return len(route.ids) > 0
}

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// send sends the route's request with its body.
func send(c *webtest.Caller, method, url string, body any) *webtest.Response {
	if body == "upload" {
		b, h := webtest.PDFUpload("other.pdf")
		return c.Send(method, url, io.Reader(b), h)
	}
	return c.Do(method, url, body)
}

// apiPlannedPaths are the planned paths as the OpenAPI document writes them.
func apiPlannedPaths() []string {
	var out []string
	for _, p := range api.PlannedPaths {
		out = append(out, "/api/v0"+p)
	}
	return out
}
