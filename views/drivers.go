package views

// Option is one choice of a select or of a group of checkboxes.
type Option struct {
	Value    string
	Label    string
	Selected bool
	// Hint says what the choice means ("" none).
	Hint string
}

// DriverListData is the drivers list page: the filter form and the
// results (DriverResults, also swapped alone by htmx).
type DriverListData struct {
	Search string
	// Filter choices, with the current one selected.
	Statuses, Offices, Citizenships, DocumentStatuses []Option
	// Tags are the tags the company's drivers have (the tag filter).
	Tags []Option
	// DueWithin are the "expiring within N days" choices.
	DueWithin []Option
	// Ready are the readiness choices (ready, not ready).
	Ready     []Option
	CanCreate bool
	// CanImport shows the link to the import page.
	CanImport bool
	Results   DriverResults
}

// DriverResults is the table of drivers, its sort links and pager.
type DriverResults struct {
	Rows []DriverRow
	// Columns are the table's headers; sortable ones carry a URL.
	Columns []SortColumn
	// SortBy and SortOrder are sent back with the filter form.
	SortBy, SortOrder string
	Pager             Pager
	// Problem is a translated message about the filters ("" none).
	Problem string
	// Filtered is true when any filter or search is set.
	Filtered bool
	// ShowNextExpiry is false for roles that may not list documents.
	ShowNextExpiry bool
	// ExportCSV and ExportXLSX download the filtered list; Compliance the
	// compliance report of the same drivers ("" for a role that may not
	// list documents).
	ExportCSV, ExportXLSX, Compliance string
}

// SortColumn is a header of the drivers table.
type SortColumn struct {
	// Label is an i18n key.
	Label string
	// URL sorts by this column ("" when the column is not sortable).
	URL string
	// Active: the list is sorted by this column, Desc: descending.
	Active, Desc bool
	// Class adds classes to the cell (hiding it on narrow screens).
	Class string
	// Target is the results section the link replaces ("": the drivers
	// list's).
	Target string
}

// DriverRow is one driver of the list.
type DriverRow struct {
	URL         string
	Number      string
	Name        string
	Email       string
	Phone       string
	Status      string
	Citizenship string
	HireDate    string
	Ready       bool
	Documents   []StatusCount
	// NextDue is the next document coming due (nil: none from today on).
	NextDue *DocumentCard
	// Expired are the expired documents, the longest expired first.
	Expired []DocumentCard
}

// StatusCount is how many of a driver's documents are in a status.
type StatusCount struct {
	Status string
	Count  int
}

// DriverPageID is the id of a driver's page's live part (all of it): an
// htmx request aimed at it gets the part alone.
const DriverPageID = "driver-page"

// driverEvents are the events that change a driver's page (static/live.js
// refreshes it only for those about this driver, data-live-driver).
const driverEvents = "driver.updated document.file_uploaded document.updated document.status_changed document.review_completed"

// DriverPageData is a driver's page: profile, documents and actions.
type DriverPageData struct {
	ID       string
	URL      string
	Name     string
	Initials string
	Number   string
	Email    string
	Phone    string
	Status   string
	Ready    bool
	// Self is true when the driver looks at its own record.
	Self bool
	// Sections of the profile (personal, contact, employment, bank).
	Sections []ProfileSection
	// ShowDocuments is false for roles that may not list documents.
	ShowDocuments bool
	Documents     []DocumentCard
	// Attention are the documents that are expired or expiring, most
	// urgent first; Missing counts those without a file.
	Attention []DocumentCard
	Missing   int
	CanEdit   bool
	CanDelete bool
	// HistoryURL is the audit log of this driver ("" for roles that may
	// not read the log).
	HistoryURL string
	// FinanceURL is the driver's ledger ("" for roles that do not read
	// every driver's finance).
	FinanceURL string
	// PenaltiesURL is the driver's penalties ("" for roles that may not
	// list them).
	PenaltiesURL string
}

// ProfileSection is a titled group of profile values.
type ProfileSection struct {
	// Title is an i18n key.
	Title  string
	Fields []ProfileField
}

// ProfileField is one labelled value; an empty value shows a dash.
type ProfileField struct {
	// Label is an i18n key.
	Label string
	Value string
	// Wide fields span the section's width (addresses).
	Wide bool
}

// DocumentCard is a document as the grid and the document page show it.
type DocumentCard struct {
	ID         string
	URL        string
	Type       string
	Status     string
	Number     string
	Country    string
	ValidFrom  string
	ValidUntil string
	// Days until expiry; nil without a validity end.
	Days *int
	// Versions is the number of uploaded files (-1: not shown to the
	// caller).
	Versions int
	// LimitedBy is the type whose status caps this document's (a validity
	// chain), "" when none does. Status, ValidUntil and Days are then the
	// capping document's (the effective ones), and OwnValidUntil is the
	// document's own end of validity ("" without one).
	LimitedBy     string
	OwnValidUntil string
	// Optional: the company's rules do not require the type of the
	// driver, so without a file it is "not uploaded", not missing.
	Optional bool
}

// DriverRef names a driver on pages below its own.
type DriverRef struct {
	URL    string
	Name   string
	Number string
}

// ListRef is a list page above a record's: its address and its title's
// text key.
type ListRef struct {
	URL, Title string
}

// DocumentPageData is one document: its state, upload form and history.
type DocumentPageData struct {
	// Holder is whose document it is: a driver, a vehicle or a trailer
	// (named by its plate); List is the list of such holders.
	Holder DriverRef
	List   ListRef
	// Self is true when a driver looks at its own document.
	Self     bool
	Document DocumentCard
	// CanUpload shows the upload form; ShowVersions the history.
	CanUpload    bool
	ShowVersions bool
	Versions     []VersionRow
	Upload       UploadForm
	// Notice is a translated success message after an upload ("" none).
	Notice string
	// Review is the newest version's review when it is pending or
	// rejected (nil otherwise): the driver sees it above the upload form.
	Review *VersionRow
}

// VersionRow is one file version in the history.
type VersionRow struct {
	Version     int
	Current     bool
	Filename    string
	Size        string
	MimeType    string
	UploadedBy  string
	UploadedAt  string
	DownloadURL string
	// ReviewStatus is approved, pending or rejected; ReviewReason the
	// reviewer's reason.
	ReviewStatus string
	ReviewReason string
	// Number, ValidFrom and ValidUntil are the version's own ("" none).
	Number, ValidFrom, ValidUntil string
}

// UploadForm is the upload form with what was sent and what was wrong.
type UploadForm struct {
	Action string
	CSRF   string
	// MaxBytes is the largest file accepted; MaxSize says it for people.
	MaxBytes int64
	MaxSize  string
	// Reviewed says the office checks the upload before it counts (a
	// driver's, of a type under review).
	Reviewed bool
	// Renewal: the document has a current file, so the form asks for the
	// new version's own number and validity (empty fields are cleared,
	// not kept: details=replace).
	Renewal bool
	Values  map[string]string
	// Errors are translated messages by field ("file", "number", …); the
	// key "" holds a message about the upload as a whole.
	Errors map[string][]string
}

// DriverFormData is the create or edit form of a driver.
type DriverFormData struct {
	Creating bool
	Action   string
	CSRF     string
	// Name and Number of the edited driver ("" when creating).
	Name, Number, CancelURL string
	// Values by field name, as sent or as stored.
	Values map[string]string
	// Errors are translated messages by field; "" holds form-level ones.
	Errors map[string][]string
	// Editable limits the fields shown (a driver edits only some); nil
	// shows them all.
	Editable map[string]bool
	// Choices of the select fields (the current value is taken from
	// Values).
	Statuses, Offices, Countries, Languages []Option
	// BirthMin and BirthMax are the earliest and latest birth dates the
	// date picker offers (YYYY-MM-DD): the service's bounds.
	BirthMin, BirthMax string
}

// DeleteDriverData is the confirmation before a driver is deleted.
type DeleteDriverData struct {
	Name, Number, Action, CSRF, CancelURL string
}
