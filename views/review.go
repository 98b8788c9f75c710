package views

// ReviewPageData is HR's review queue (docs/drivers-and-documents.md,
// "Review of drivers' uploads"): the versions waiting, oldest first.
type ReviewPageData struct {
	Items []ReviewItem
	// Total is how many wait; Items may show fewer.
	Total int
	CSRF  string
	// URL is the queue's address, which static/live.js fetches again when
	// a version is uploaded or decided.
	URL string
}

// ReviewListID is the id of the review queue's live part (the versions
// waiting): an htmx request aimed at it gets the part alone.
const ReviewListID = "review-list"

// ReviewItem is one version waiting for review, with its forms.
type ReviewItem struct {
	FileID       string
	Version      int
	DocumentType string
	DocumentURL  string
	DriverName   string
	DriverNumber string
	DriverURL    string
	Filename     string
	Uploaded     string // date and time
	UploadedBy   string
	// ViewURL shows the file inline; Image and PDF say how (neither:
	// only the download link, e.g. HEIC, which browsers cannot show).
	ViewURL     string
	DownloadURL string
	Image, PDF  bool
	// Rows compare the document's fields now and after approval.
	Rows   []ReviewRow
	Action string
	Token  string
	// Reason is what was typed into the reject form; Errors the
	// refusal's messages by field ("" for the form as a whole).
	Reason string
	Errors map[string][]string
}

// ReviewRow is one field of the document, now and after approval.
type ReviewRow struct {
	Label   string // i18n key
	Now     string
	After   string
	Changed bool
	// Status rows show badges (Now and After are statuses).
	Status bool
}
