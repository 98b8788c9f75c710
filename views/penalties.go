package views

// PenaltyCard is a penalty as the penalty pages show it; texts are
// translated and formatted for the language.
type PenaltyCard struct {
	ID  string
	URL string // /drivers/{id}/penalties/{penalty_id}
	// Driver is the penalty's driver (the dispute queue shows it).
	Driver DriverRef
	// Type and Status are codes ("speeding", "disputed").
	Type   string
	Status string
	// Amount is negative, a deduction as the pay pages write it;
	// Deduction is the same without its sign, for sentences ("… is
	// deducted from your pay").
	Amount, Deduction string
	IncidentDate      string
	Description       string
	Location          string
	// Dispute: the driver's reason and when it was filed; ReviewDue is the
	// date HR is to review it by, Overdue when that date has passed.
	DisputeReason string
	DisputedAt    string
	ReviewDue     string
	Overdue       bool
	// Outcome: HR's note, who and when.
	Resolution string
	ResolvedBy string
	ResolvedAt string
	// Correction says, translated, that the change of money comes as a
	// correction because the penalty's pay period was closed; PayURL is
	// the driver's pay page, where it shows ("" without a correction).
	Correction, PayURL string
	Evidence           []EvidenceItem
}

// EvidenceItem is one evidence file: a link to it and, for a photo, its
// thumbnail (the same address).
type EvidenceItem struct {
	URL   string
	Name  string
	Size  string
	Note  string
	Image bool
}

// PenaltyListData is a driver's penalties.
type PenaltyListData struct {
	Driver DriverRef
	// Self is true when the driver looks at its own penalties.
	Self      bool
	Penalties []PenaltyCard
	// NewURL is the create form ("" for roles that may not create).
	NewURL string
	// Total is the sum of the listed penalties that are not cancelled.
	Total string
}

// PenaltyPageData is one penalty with what the caller may do about it.
type PenaltyPageData struct {
	Driver  DriverRef
	Self    bool
	Penalty PenaltyCard
	// ListURL is the driver's penalties.
	ListURL string
	// CanAccept and CanDispute: a pending penalty and a caller who may
	// respond; CanResolve: a disputed one and HR; CanAddEvidence: a caller
	// who may add files to it now.
	CanAccept      bool
	CanDispute     bool
	CanResolve     bool
	CanAddEvidence bool
	// ConfirmAccept asks the driver once more before accepting.
	ConfirmAccept bool
	CSRF          string
	// Dispute, Accept, Evidence and Resolve are the forms with their values
	// and messages (key "" for a message about the form as a whole).
	Dispute  PenaltyForm
	Accept   PenaltyForm
	Evidence PenaltyForm
	Resolve  PenaltyForm
	// MaxFiles and MaxSize say the evidence limits for people.
	MaxFiles string
	MaxSize  string
}

// PenaltyForm is one form of the penalty pages: where it posts, what was
// sent, and the translated messages by field.
type PenaltyForm struct {
	Action string
	Values map[string]string
	Errors map[string][]string
}

// DisputeQueueData is the company's dispute queue.
type DisputeQueueData struct {
	// Statuses are the filter's choices, the current one selected.
	Statuses []Option
	Status   string
	Items    []DisputeItem
	Total    int
	CSRF     string
	// PrevURL and NextURL page through the queue ("" at either end).
	PrevURL, NextURL string
	// Problem is a refused resolve of a penalty the list no longer shows
	// (decided meanwhile), translated.
	Problem []string
}

// DisputeItem is one penalty of the queue and, for HR, its resolve form.
type DisputeItem struct {
	Penalty    PenaltyCard
	CanResolve bool
	Resolve    PenaltyForm
}

// PenaltyFormData is the create form of a penalty (HR).
type PenaltyFormData struct {
	Driver     DriverRef
	CSRF       string
	Action     string
	CancelURL  string
	Token      string
	Types      []Option
	Severities []Option
	Values     map[string]string
	Errors     map[string][]string
	MaxFiles   string
	MaxSize    string
}
