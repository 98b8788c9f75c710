package views

// ExpiringData is the "Documents expiring" page: the filter form and the
// results (ExpiringResults, also swapped alone by htmx).
type ExpiringData struct {
	// Within are the "expiring within N days" choices (and any date).
	Within []Option
	// Statuses are the effective statuses (checkboxes), Types the
	// company's document types.
	Statuses, Types []Option
	// Holders are whose documents to list: drivers', vehicles',
	// trailers' (shown to roles that see the fleet).
	Holders []Option
	Results ExpiringResults
}

// ExpiringResults is the table of documents, its sort links and pager.
type ExpiringResults struct {
	Rows    []ExpiringRow
	Columns []SortColumn
	// SortBy and SortOrder are sent back with the filter form.
	SortBy, SortOrder string
	Pager             Pager
	// ShowNumber is false for a caller who sees statuses only.
	ShowNumber bool
	// Problem is a translated message about the filters ("" none).
	Problem               string
	ExportCSV, ExportXLSX string
}

// ExpiringRow is one document of the list.
type ExpiringRow struct {
	// DriverURL, DriverName and DriverNumber are the holder's: a driver,
	// a vehicle or a trailer (named by its plate).
	DriverURL, DriverName, DriverNumber string
	Type, DocURL, Number                string
	ValidUntil                          string
	// Days until expiry; nil without a validity end.
	Days *int
	// Status is the effective status; LimitedBy the type of the document
	// whose status caps it ("" none).
	Status, LimitedBy string
}
