package auth

// Action is one row of the permission matrix (docs/permissions.md).
type Action string

// The actions. A service method asks for exactly one.
const (
	DriversRead      Action = "drivers.read"      // list, read
	DriversCreate    Action = "drivers.create"    // create
	DriversUpdate    Action = "drivers.update"    // update (a driver: own phone, addresses, bank fields)
	DriversDelete    Action = "drivers.delete"    // soft delete
	DriversImport    Action = "drivers.import"    // import a file of drivers, read imports
	DriversPersonal  Action = "drivers.personal"  // read the personal fields (PersonalFields)
	DocumentsList    Action = "documents.list"    // documents with status (dispatcher: no files)
	DocumentsExpiry  Action = "documents.expiry"  // the company's documents by expiry, one row each, and their export (dispatcher: no numbers)
	DocumentsWrite   Action = "documents.write"   // upload, update metadata
	FilesRead        Action = "files.read"        // download, versions
	DocumentsReview  Action = "documents.review"  // review drivers' uploads: queue, approve, reject
	RatingRead       Action = "rating.read"       // rating, history, ranking, config read
	RatingManage     Action = "rating.manage"     // config update, recalculate
	FinanceRead      Action = "finance.read"      // list, periods, aggregates, a period's payslip
	FinanceWrite     Action = "finance.write"     // create, update
	FinanceDelete    Action = "finance.delete"    // delete
	PeriodsManage    Action = "periods.manage"    // close (also by force), mark paid
	PeriodsReopen    Action = "periods.reopen"    // reopen a closed period, with a reason
	PayrollRead      Action = "payroll.read"      // every driver's pay periods of a month, the payroll export, the payslips ZIP
	PenaltiesRead    Action = "penalties.read"    // list, read
	PenaltiesManage  Action = "penalties.manage"  // create, resolve
	PenaltiesRespond Action = "penalties.respond" // dispute, accept
	AuditRead        Action = "audit.read"        // audit log
	DocumentRules    Action = "document_rules"    // document rules and the company's document types: read, change
	OutboxRead       Action = "outbox.read"       // the e-mail outbox (development page)
	WebhooksManage   Action = "webhooks.manage"   // webhook endpoints: list, create, change, delete, deliveries
	SessionsOwn      Action = "sessions.own"      // the caller's own web sessions: list, end
	NotificationsOwn Action = "notifications.own" // the caller's own notifications and e-mail choices: list, mark read, change
	UsersManage      Action = "users.manage"      // the company's users: list, deactivate, reactivate
	FleetRead        Action = "fleet.read"        // vehicles and trailers: list, read, their documents' list (a driver: those of its active unit)
	FleetWrite       Action = "fleet.write"       // vehicles and trailers: create, update, delete, import
	FleetDocuments   Action = "fleet.documents"   // vehicles' and trailers' documents: upload, update metadata, files, review
	UnitsRead        Action = "units.read"        // transport units: list, read, readiness; a driver's readiness (a driver: its own)
	UnitsWrite       Action = "units.write"       // transport units: assign, change the trailer, unassign
)

// Grant says how far a role may go with an action.
type Grant int

// Grants, from none to everything in the company.
const (
	// Deny: 403 Forbidden.
	Deny Grant = iota
	// Own: only the caller's own driver record and what hangs off it.
	Own
	// NoFiles: every record of the company, statuses only, no files
	// (the dispatcher's view of documents).
	NoFiles
	// All: every record of the company.
	All
)

func (g Grant) String() string {
	return [...]string{"no", "own", "status only", "yes"}[g]
}

// Matrix is the permission matrix of docs/permissions.md as one table; the web pages and the API both use it.
var Matrix = map[Action]map[Role]Grant{
	DriversRead:      {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDispatcher: All, RoleDriver: Own},
	DriversCreate:    {RoleAdmin: All, RoleHRManager: All},
	DriversDelete:    {RoleAdmin: All, RoleHRManager: All},
	DriversImport:    {RoleAdmin: All, RoleHRManager: All},
	DriversUpdate:    {RoleAdmin: All, RoleHRManager: All, RoleDriver: Own},
	DriversPersonal:  {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDriver: Own},
	DocumentsList:    {RoleAdmin: All, RoleHRManager: All, RoleDispatcher: NoFiles, RoleDriver: Own},
	DocumentsExpiry:  {RoleAdmin: All, RoleHRManager: All, RoleDispatcher: NoFiles},
	DocumentsWrite:   {RoleAdmin: All, RoleHRManager: All, RoleDriver: Own},
	FilesRead:        {RoleAdmin: All, RoleHRManager: All, RoleDriver: Own},
	DocumentsReview:  {RoleAdmin: All, RoleHRManager: All},
	RatingRead:       {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDispatcher: All, RoleDriver: Own},
	RatingManage:     {RoleAdmin: All, RoleHRManager: All},
	FinanceRead:      {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDriver: Own},
	FinanceWrite:     {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All},
	FinanceDelete:    {RoleAdmin: All, RoleHRManager: All},
	PeriodsManage:    {RoleAdmin: All, RoleAccountant: All},
	PeriodsReopen:    {RoleAdmin: All, RoleAccountant: All},
	PayrollRead:      {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All},
	PenaltiesRead:    {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDriver: Own},
	PenaltiesManage:  {RoleAdmin: All, RoleHRManager: All},
	PenaltiesRespond: {RoleAdmin: All, RoleHRManager: All, RoleDriver: Own},
	AuditRead:        {RoleAdmin: All, RoleHRManager: All},
	DocumentRules:    {RoleAdmin: All, RoleHRManager: All},
	OutboxRead:       {RoleAdmin: All, RoleHRManager: All},
	WebhooksManage:   {RoleAdmin: All},
	UsersManage:      {RoleAdmin: All},
	FleetRead:        {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDispatcher: All, RoleDriver: Own},
	FleetWrite:       {RoleAdmin: All, RoleDispatcher: All},
	FleetDocuments:   {RoleAdmin: All, RoleDispatcher: All},
	UnitsRead:        {RoleAdmin: All, RoleHRManager: All, RoleDispatcher: All, RoleDriver: Own},
	UnitsWrite:       {RoleAdmin: All, RoleDispatcher: All},
	// Every user, its own sessions only (the sessions service never looks
	// at another user's).
	SessionsOwn: {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDispatcher: All, RoleDriver: All},
	// Every user, its own notifications only (the notifications service
	// never shows another user's).
	NotificationsOwn: {RoleAdmin: All, RoleHRManager: All, RoleAccountant: All, RoleDispatcher: All, RoleDriver: All},
}

// Allowed returns the grant of a role for an action (Deny when unlisted).
func Allowed(r Role, a Action) Grant { return Matrix[a][r] }

// PersonalFields are the driver fields only roles granted DriversPersonal
// read (docs/permissions.md: a dispatcher gets the driver without them).
var PersonalFields = []string{"rodne_cislo", "birth_date", "bank_country", "bank_account", "iban", "swift",
	"registration_address", "residence_address"}

// DriverEditableFields are the driver fields a driver may change on its own
// record (docs/permissions.md: phone, addresses, bank fields).
var DriverEditableFields = map[string]bool{
	"phone": true, "registration_address": true, "residence_address": true,
	"bank_country": true, "bank_account": true, "iban": true, "swift": true,
}
