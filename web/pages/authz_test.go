package pages_test

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/web/webtest"
)

// The pages' authorization test: every page route the server registers,
// with the three callers that must be refused, as web/api's
// TestEveryAPIRouteRefusesOtherTenantsRolesAndDrivers does for the API. A
// page answers a refusal with its 403 page (AccessDenied and Forbidden look
// the same to a person), which must not show the record, and nothing may
// change. A page route missing from pageRoutes fails the test.

// pageRoute is one page route: the permission it needs, the record kind of
// each path id (webtest.Kind*), the form it posts, and the refusals that
// cannot happen on it, with the reason.
type pageRoute struct {
	action        auth.Action
	ids           map[string]string
	form          url.Values // POST: a valid form ("upload": see upload)
	upload        bool
	notApplicable map[webtest.Refusal]string
}

const (
	collection = webtest.ReasonCollection
	everyRole  = webtest.ReasonEveryRole
	noDriver   = webtest.ReasonNoDriver
	ownList    = "a driver has no list: it is sent to its own profile"
	signInPage = "sign-in and preferences: no record, no permission"
)

var notInMatrix = map[webtest.Refusal]string{webtest.OtherCompany: signInPage, webtest.RoleRefused: signInPage, webtest.OtherDriver: signInPage}

var driverID = map[string]string{"id": webtest.KindDriver}

var importID = map[string]string{"id": webtest.KindImport}

// fleetImportID names the world's import of vehicles.
var fleetImportID = map[string]string{"id": webtest.KindFleetImport}

var (
	vehicleID = map[string]string{"id": webtest.KindVehicle}
	trailerID = map[string]string{"id": webtest.KindTrailer}
)

// ownUnit: a driver's fleet list holds its own transport unit's records only.
const ownUnit = "a driver's list holds its own transport unit's records only"

// unitID names the driver's active transport unit.
var unitID = map[string]string{"id": webtest.KindUnit}

var webhookID = map[string]string{"id": webtest.KindWebhook}

// ownNotifications: the caller's own notifications, which every role has.
var ownNotifications = map[webtest.Refusal]string{
	webtest.OtherCompany: "the caller's own notifications: no path id", webtest.RoleRefused: everyRole,
	webtest.OtherDriver: "the caller's own notifications: no path id"}

// ownSessions: the caller's own web sessions, which every role has.
var ownSessions = map[webtest.Refusal]string{
	webtest.OtherCompany: "the caller's own sessions: no path id", webtest.RoleRefused: everyRole,
	webtest.OtherDriver: "the caller's own sessions: no path id"}

var (
	transactionIDs = map[string]string{"id": webtest.KindDriver, "transaction_id": webtest.KindTransaction}
	periodIDs      = map[string]string{"id": webtest.KindDriver, "period_id": webtest.KindPeriod}
)

// pageRoutes is the pages' authorization table, by "METHOD path" as Echo
// registers it.
var pageRoutes = map[string]pageRoute{
	"GET /":              {notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the dashboard of the caller's own company", webtest.RoleRefused: everyRole, webtest.OtherDriver: "the dashboard shows a driver its own things"}},
	"GET /login":         {notApplicable: notInMatrix},
	"POST /logout":       {notApplicable: notInMatrix},
	"POST /language":     {notApplicable: notInMatrix},
	"GET /auth/dev":      {notApplicable: notInMatrix},
	"POST /auth/dev":     {notApplicable: notInMatrix},
	"GET /auth/login":    {notApplicable: notInMatrix},
	"GET /auth/callback": {notApplicable: notInMatrix},

	"GET /audit":        {action: auth.AuditRead, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /audit/export": {action: auth.AuditRead, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},

	"GET /notifications": {notApplicable: ownNotifications},
	// The header's bell alone, refreshed by static/live.js.
	"GET /notifications/bell": {notApplicable: ownNotifications},
	// The live-update stream (docs/live-updates.md): every role, each event
	// filtered by what the caller may read, never refused.
	"GET /events": {notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the caller's own company's stream: no path id", webtest.RoleRefused: everyRole,
		webtest.OtherDriver: "events are filtered per caller, not refused"}},
	"POST /notifications/read-all": {form: url.Values{}, notApplicable: ownNotifications},
	"POST /notifications/settings": {form: url.Values{"email.document_alert": {"false"}}, notApplicable: ownNotifications},
	"POST /notifications/:id/read": {form: url.Values{}, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "another company's notification is 403: TestNotificationsAPI", webtest.RoleRefused: everyRole,
		webtest.OtherDriver: "another user's notification is 404: TestNotificationsAPI"}},

	"GET /users": {action: auth.UsersManage, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /users/:id/deactivate": {action: auth.UsersManage, ids: map[string]string{"id": webtest.KindUser},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /users/:id/deactivate": {action: auth.UsersManage, ids: map[string]string{"id": webtest.KindUser}, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /users/:id/reactivate": {action: auth.UsersManage, ids: map[string]string{"id": webtest.KindUser}, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /sessions":             {action: auth.SessionsOwn, notApplicable: ownSessions},
	"POST /sessions/end-others": {action: auth.SessionsOwn, form: url.Values{}, notApplicable: ownSessions},
	"POST /sessions/:id/end": {action: auth.SessionsOwn, form: url.Values{}, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "another company's session is 403 and another user's 404, and neither ends: TestSessionsPage, TestMySessionsAPI",
		webtest.RoleRefused:  everyRole,
		webtest.OtherDriver:  "another user's session is 404 and does not end: TestSessionsPage"}},

	"GET /dev/outbox": {action: auth.OutboxRead, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /dev/outbox/:id/html": {action: auth.OutboxRead, ids: map[string]string{"id": webtest.KindOutbox},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /document-rules": {action: auth.DocumentRules, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the rules of the caller's own company", webtest.OtherDriver: noDriver}},
	"POST /document-rules": {action: auth.DocumentRules, form: url.Values{"lead_days.passport": {"45"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the rules of the caller's own company", webtest.OtherDriver: noDriver}},

	"POST /document-rules/review": {action: auth.DocumentRules,
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the rules of the caller's own company", webtest.OtherDriver: noDriver}},

	"GET /document-types": {action: auth.DocumentRules, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the types of the caller's own company", webtest.OtherDriver: noDriver}},
	"POST /document-types": {action: auth.DocumentRules, form: url.Values{"name.en": {"Attestation"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the types of the caller's own company", webtest.OtherDriver: noDriver}},
	"GET /document-types/:code": {action: auth.DocumentRules, ids: map[string]string{"code": "=attestation"},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the types of the caller's own company", webtest.OtherDriver: noDriver}},
	"POST /document-types/:code": {action: auth.DocumentRules, ids: map[string]string{"code": "=attestation"}, form: url.Values{"lead_days": {"40"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the types of the caller's own company", webtest.OtherDriver: noDriver}},

	"GET /settings/webhooks": {action: auth.WebhooksManage, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks": {action: auth.WebhooksManage,
		form:          url.Values{"url": {"https://127.0.0.1/hooks"}, "events": {"*"}, "form_token": {"5b0f3c1e-7a2d-4e8b-9c61-2f4a8d1e3b70"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /settings/webhooks/:id": {action: auth.WebhooksManage, ids: webhookID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id": {action: auth.WebhooksManage, ids: webhookID, form: url.Values{"url": {"https://127.0.0.1/x"}, "events": {"*"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id/enabled": {action: auth.WebhooksManage, ids: webhookID, form: url.Values{"enabled": {"false"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id/rotate-secret": {action: auth.WebhooksManage, ids: webhookID, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id/test": {action: auth.WebhooksManage, ids: webhookID, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /settings/webhooks/:id/delete": {action: auth.WebhooksManage, ids: webhookID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id/delete": {action: auth.WebhooksManage, ids: webhookID, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /settings/webhooks/:id/deliveries/:delivery_id/redeliver": {action: auth.WebhooksManage,
		ids: map[string]string{"id": webtest.KindWebhook, "delivery_id": webtest.KindDelivery}, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /drivers": {action: auth.DriversRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /drivers/export": {action: auth.DriversRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownList}},
	"GET /reports/compliance": {action: auth.DocumentsList, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: ownList}},
	"GET /documents": {action: auth.DocumentsExpiry, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /documents/export": {action: auth.DocumentsExpiry, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /drivers/import":          {action: auth.DriversImport, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /drivers/import":         {action: auth.DriversImport, upload: true, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /drivers/import/template": {action: auth.DriversImport, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /drivers/import/:id":      {action: auth.DriversImport, ids: importID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/import/:id/progress": {action: auth.DriversImport, ids: importID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/import/:id/mapping": {action: auth.DriversImport, ids: importID, form: url.Values{"field.0": {"last_name"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/import/:id/confirm": {action: auth.DriversImport, ids: importID, form: url.Values{"form_token": {"2d6b8a0e-51c4-4f0e-9a3b-7c1e2f4d5a60"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /vehicles/import":          {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /vehicles/import":         {action: auth.FleetWrite, upload: true, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /vehicles/import/template": {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /vehicles/import/:id":      {action: auth.FleetWrite, ids: fleetImportID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /vehicles/import/:id/progress": {action: auth.FleetWrite, ids: fleetImportID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /vehicles/import/:id/mapping": {action: auth.FleetWrite, ids: fleetImportID, form: url.Values{"field.0": {"make"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /vehicles/import/:id/confirm": {action: auth.FleetWrite, ids: fleetImportID, form: url.Values{"form_token": {"2d6b8a0e-51c4-4f0e-9a3b-7c1e2f4d5a60"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /trailers/import":          {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /trailers/import":         {action: auth.FleetWrite, upload: true, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /trailers/import/template": {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /trailers/import/:id":      {action: auth.FleetWrite, ids: fleetImportID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /trailers/import/:id/progress": {action: auth.FleetWrite, ids: fleetImportID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /trailers/import/:id/mapping": {action: auth.FleetWrite, ids: fleetImportID, form: url.Values{"field.0": {"make"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /trailers/import/:id/confirm": {action: auth.FleetWrite, ids: fleetImportID, form: url.Values{"form_token": {"2d6b8a0e-51c4-4f0e-9a3b-7c1e2f4d5a60"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/new": {action: auth.DriversCreate, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /drivers/new": {action: auth.DriversCreate,
		form:          url.Values{"first_name": {"Nový"}, "last_name": {"Řidič"}, "email": {"page-new@example.test"}, "status": {"active"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /drivers/:id":       {action: auth.DriversRead, ids: driverID, notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"GET /drivers/:id/edit":  {action: auth.DriversUpdate, ids: driverID},
	"POST /drivers/:id/edit": {action: auth.DriversUpdate, ids: driverID, form: url.Values{"phone": {"+420 777 000 222"}}},
	"GET /drivers/:id/delete": {action: auth.DriversDelete, ids: driverID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/delete": {action: auth.DriversDelete, ids: driverID, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/documents/:document_id": {action: auth.DocumentsList,
		ids: map[string]string{"id": webtest.KindDriver, "document_id": webtest.KindDocument}},
	"POST /drivers/:id/documents/:document_id": {action: auth.DocumentsWrite, upload: true,
		ids: map[string]string{"id": webtest.KindDriver, "document_id": webtest.KindDocument}},
	"GET /drivers/:id/pay":    {action: auth.FinanceRead, ids: driverID},
	"GET /files/:id/download": {action: auth.FilesRead, ids: map[string]string{"id": webtest.KindFile}},
	"GET /files/:id/view":     {action: auth.FilesRead, ids: map[string]string{"id": webtest.KindFile}},

	"GET /vehicles": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownUnit}},
	"GET /units/board":         {action: auth.UnitsRead, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: "a driver's board holds its own units only"}},
	"GET /units/new":           {action: auth.UnitsWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /units/new":          {action: auth.UnitsWrite, form: url.Values{}, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /units/:id/trailer":   {action: auth.UnitsWrite, ids: unitID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /units/:id/trailer":  {action: auth.UnitsWrite, ids: unitID, form: url.Values{"trailer_id": {""}}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /units/:id/unassign":  {action: auth.UnitsWrite, ids: unitID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /units/:id/unassign": {action: auth.UnitsWrite, ids: unitID, form: url.Values{}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /vehicles/new":        {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /vehicles/new": {action: auth.FleetWrite, form: url.Values{"type": {"lkv"}, "plate_number": {"1AZ 0001"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /vehicles/:id":         {action: auth.FleetRead, ids: vehicleID, notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"GET /vehicles/:id/edit":    {action: auth.FleetWrite, ids: vehicleID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /vehicles/:id/edit":   {action: auth.FleetWrite, ids: vehicleID, form: url.Values{"color": {"blue"}}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /vehicles/:id/delete":  {action: auth.FleetWrite, ids: vehicleID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /vehicles/:id/delete": {action: auth.FleetWrite, ids: vehicleID, form: url.Values{}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /vehicles/export": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownUnit}},
	"GET /vehicles/:id/documents/:document_id": {action: auth.FleetRead,
		ids:           map[string]string{"id": webtest.KindVehicle, "document_id": webtest.KindVehicleDocument},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"POST /vehicles/:id/documents/:document_id": {action: auth.FleetDocuments, upload: true,
		ids:           map[string]string{"id": webtest.KindVehicle, "document_id": webtest.KindVehicleDocument},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /trailers": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownUnit}},
	"GET /trailers/new": {action: auth.FleetWrite, notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /trailers/new": {action: auth.FleetWrite, form: url.Values{"type": {"mega"}, "plate_number": {"1AZ 0002"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /trailers/:id":         {action: auth.FleetRead, ids: trailerID, notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"GET /trailers/:id/edit":    {action: auth.FleetWrite, ids: trailerID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /trailers/:id/edit":   {action: auth.FleetWrite, ids: trailerID, form: url.Values{"color": {"blue"}}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /trailers/:id/delete":  {action: auth.FleetWrite, ids: trailerID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /trailers/:id/delete": {action: auth.FleetWrite, ids: trailerID, form: url.Values{}, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /trailers/export": {action: auth.FleetRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: ownUnit}},
	"GET /trailers/:id/documents/:document_id": {action: auth.FleetRead,
		ids:           map[string]string{"id": webtest.KindTrailer, "document_id": webtest.KindTrailerDocument},
		notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"POST /trailers/:id/documents/:document_id": {action: auth.FleetDocuments, upload: true,
		ids:           map[string]string{"id": webtest.KindTrailer, "document_id": webtest.KindTrailerDocument},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /document-reviews": {action: auth.DocumentsReview, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /document-reviews/:file_id": {action: auth.DocumentsReview, ids: map[string]string{"file_id": webtest.KindFile},
		form:          url.Values{"decision": {"reject"}, "reason": {"Blurred."}, "form_token": {"0b0e5b7c-4a1c-4bd2-9d55-3d3e2f6f4a01"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /finance": {action: auth.FinanceRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: ownList}},
	"POST /finance": {action: auth.FinanceWrite, form: url.Values{"action": {"approve"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the ids are looked up in the caller's company only: another company's transaction is a row refused as not found, changing nothing (tested in TestFinanceBulk)", webtest.OtherDriver: noDriver}},
	"GET /finance/month-end": {action: auth.PayrollRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"POST /finance/month-end": {action: auth.PeriodsManage,
		form:          url.Values{"action": {"close"}, "month": {webtest.Today()[:7]}, "all": {"1"}, "confirmed": {"1"}, "force": {"1"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the periods are looked up in the caller's company only: another company's period id selects nothing (TestMonthEndPage)", webtest.OtherDriver: noDriver}},
	"GET /finance/payroll": {action: auth.PayrollRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/finance":        {action: auth.FinanceRead, ids: driverID},
	"GET /drivers/:id/finance/export": {action: auth.FinanceRead, ids: driverID},
	"GET /drivers/:id/finance/new":    {action: auth.FinanceWrite, ids: driverID, notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/new": {action: auth.FinanceWrite, ids: driverID,
		form:          url.Values{"transaction_type": {"bonus"}, "amount": {"100"}, "transaction_date": {"2026-01-05"}, "form_token": {"6f1c1c3e-3a57-4a53-9a43-0d1c9f3b2a11"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/finance/:transaction_id/edit": {action: auth.FinanceWrite, ids: transactionIDs,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/:transaction_id/edit": {action: auth.FinanceWrite, ids: transactionIDs, form: url.Values{"description": {"changed"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/:transaction_id/status": {action: auth.FinanceWrite, ids: transactionIDs, form: url.Values{"status": {"approved"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/finance/:transaction_id/delete": {action: auth.FinanceDelete, ids: transactionIDs,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/:transaction_id/delete": {action: auth.FinanceDelete, ids: transactionIDs, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/finance/periods": {action: auth.FinanceRead, ids: driverID},
	"GET /drivers/:id/finance/periods/:period_id/close": {action: auth.PeriodsManage, ids: periodIDs,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/periods/:period_id/close": {action: auth.PeriodsManage, ids: periodIDs, form: url.Values{"force": {"true"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/periods/:period_id/reopen": {action: auth.PeriodsReopen, ids: periodIDs, form: url.Values{"reason": {"Late invoice."}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/finance/periods/:period_id/pay": {action: auth.PeriodsManage, ids: periodIDs, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/finance/periods/:period_id/payslip": {action: auth.FinanceRead, ids: periodIDs},

	"GET /penalties": {action: auth.PenaltiesRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.OtherDriver: "a collection of the caller's own company: a driver sees only its own penalties there"}},
	"GET /penalties/:id/evidence/:file_id": {action: auth.PenaltiesRead,
		ids: map[string]string{"id": webtest.KindPenalty, "file_id": webtest.KindEvidence}},
	"GET /drivers/:id/penalties": {action: auth.PenaltiesRead, ids: driverID},
	"GET /drivers/:id/penalties/new": {action: auth.PenaltiesManage, ids: driverID,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"POST /drivers/:id/penalties/new": {action: auth.PenaltiesManage, ids: driverID, upload: true,
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/penalties/:penalty_id":           {action: auth.PenaltiesRead, ids: penaltyIDs},
	"POST /drivers/:id/penalties/:penalty_id/accept":   {action: auth.PenaltiesRespond, ids: penaltyIDs, form: url.Values{}},
	"POST /drivers/:id/penalties/:penalty_id/dispute":  {action: auth.PenaltiesRespond, ids: penaltyIDs, upload: true},
	"POST /drivers/:id/penalties/:penalty_id/evidence": {action: auth.PenaltiesRespond, ids: penaltyIDs, upload: true},
	"POST /drivers/:id/penalties/:penalty_id/resolve": {action: auth.PenaltiesManage, ids: penaltyIDs,
		form:          url.Values{"resolution_action": {"cancel"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},

	"GET /ratings": {action: auth.RatingRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: "a driver has no ranking: it is sent to its own rating"}},
	"GET /ratings/export": {action: auth.RatingRead, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: collection, webtest.RoleRefused: everyRole, webtest.OtherDriver: "a driver has no ranking to export: 403 (TestRatingPages)"}},
	"GET /ratings/config": {action: auth.RatingManage, notApplicable: map[webtest.Refusal]string{
		webtest.OtherCompany: "the configuration of the caller's own company", webtest.OtherDriver: noDriver}},
	"POST /ratings/config": {action: auth.RatingManage, form: url.Values{"weight.activity": {"10"}, "action": {"save"}},
		notApplicable: map[webtest.Refusal]string{webtest.OtherCompany: "the configuration of the caller's own company", webtest.OtherDriver: noDriver}},
	"GET /drivers/:id/rating": {action: auth.RatingRead, ids: driverID, notApplicable: map[webtest.Refusal]string{webtest.RoleRefused: everyRole}},
	"POST /drivers/:id/rating/recalculate": {action: auth.RatingManage, ids: driverID, form: url.Values{},
		notApplicable: map[webtest.Refusal]string{webtest.OtherDriver: noDriver}},
}

var penaltyIDs = map[string]string{"id": webtest.KindDriver, "penalty_id": webtest.KindPenalty}

// notPages are the registered routes that are not pages: the API (its own
// authorization test walks the OpenAPI document), probes, assets (with the
// installed app's manifest and service worker).
func notPage(path string) bool {
	for _, prefix := range []string{"/api/", "/static", "/healthz", "/readyz", "/metrics", "/favicon", "/manifest.webmanifest", "/sw.js"} {
		if strings.HasPrefix(path, prefix) {
			return true
		}
	}
	return path == "/*" || strings.HasSuffix(path, "/*")
}

func TestEveryPageRouteRefusesOtherTenantsRolesAndDrivers(t *testing.T) {
	env := devEnv(t)
	var routes []string
	seen := map[string]bool{}
	for _, r := range env.App.Echo.Routes() {
		if notPage(r.Path) || !strings.HasPrefix(r.Path, "/") {
			continue
		}
		key := r.Method + " " + r.Path
		if seen[key] {
			continue
		}
		seen[key] = true
		routes = append(routes, key)
		if _, ok := pageRoutes[key]; !ok {
			t.Errorf("%s is a page route but not in the authorization table pageRoutes: add it (the permission it needs, the record kind of each path id, and why a refusal does not apply)", key)
		}
	}
	for key := range pageRoutes {
		if !seen[key] && key != "GET /auth/login" && key != "GET /auth/callback" { // registered only with OIDC configured
			t.Errorf("%s is in pageRoutes but the server registers no such route", key)
		}
	}
	sort.Strings(routes)
	if t.Failed() {
		return
	}

	w := env.World()
	admin := signIn(t, env, w.Home.Company, auth.RoleAdmin, "admin@home.test", "en")
	me := signIn(t, env, w.Home.Company, auth.RoleDriver, w.Home.Drivers[0].Email, "en")
	roles := map[auth.Role]*browser{auth.RoleDriver: me}
	for _, r := range auth.Roles {
		if r != auth.RoleDriver {
			roles[r] = signIn(t, env, w.Home.Company, r, string(r)+"@home.test", "en")
		}
	}
	for _, key := range routes {
		route := pageRoutes[key]
		method, path, _ := strings.Cut(key, " ")
		for _, ref := range webtest.Refusals {
			if !(webtest.RefusalCase{Name: key, Action: route.action, NotApplicable: route.notApplicable, NamesRecord: recordIDs(route.ids)}).Applies(t, ref) {
				continue
			}
			tenant, driver, b := w.Away, 0, admin
			switch ref {
			case webtest.RoleRefused:
				tenant, b = w.Home, roles[webtest.RefusedRole(route.action)]
			case webtest.OtherDriver:
				tenant, driver, b = w.Home, 1, me
			}
			target := webtest.FillPath(t, path, pagePathParam, route.ids, tenant, driver)
			before := env.Checksum()
			var res page
			switch {
			case route.upload:
				res = b.upload(target, "other.pdf", []byte("%PDF-1.7\n% other\n"), nil, true)
			case method == http.MethodPost:
				res = b.post(target, route.form)
			default:
				res = b.get(target)
			}
			if res.Status != http.StatusForbidden {
				t.Errorf("%s (%s): status %d, want 403; body: %s", key, ref, res.Status, truncate(res.Body))
			}
			if name := tenant.Drivers[driver].LastName; strings.Contains(res.Body, name) {
				t.Errorf("%s (%s): the webtest.Refusal shows the record (%q)", key, ref, name)
			}
			if after := env.Checksum(); after != before {
				t.Errorf("%s (%s): the refused request changed data", key, ref)
			}
		}
	}
}

var pagePathParam = regexp.MustCompile(`:([a-z_]+)`)

// recordIDs reports whether a path names a record (not only fixed values,
// such as a document type's code).
func recordIDs(ids map[string]string) bool {
	for _, kind := range ids {
		if !strings.HasPrefix(kind, "=") {
			return true
		}
	}
	return false
}
