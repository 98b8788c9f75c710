package views

import "context"

// HomeData is the home page after sign-in: a greeting, then the sections
// of the caller's role (nil sections are not shown).
type HomeData struct {
	Name        string
	Role        string
	CompanyName string
	// Documents: HR, admins and dispatchers.
	Documents *HomeDocuments
	// Review: the uploads waiting for review (HR, admins).
	Review *HomeReview
	// ReviewOffer: the offer to turn review of drivers' uploads on, while
	// no document type has it (who edits the document rules).
	ReviewOffer *ReviewOffer
	// Disputes: who resolves penalties (HR, admins).
	Disputes *HomeDisputes
	// Finance: who closes pay periods (accountants, admins).
	Finance *HomeFinance
	// Fleet: the vehicles and trailers not ready (who manages the fleet:
	// dispatchers, admins).
	Fleet *HomeFleet
	// Board: the readiness board of the transport units (who assigns
	// them: dispatchers, admins), first on the page.
	Board *BoardData
	// Driver: a driver linked to its record.
	Driver *DriverHome
	// Unlinked: a driver account linked to no driver record.
	Unlinked bool
	// Links are the pages the role may open, for roles without sections.
	Links []NavItem
}

// HomeCount is a number on the home page that links to the list it counts.
type HomeCount struct {
	// Label is an i18n key; Status, when set, draws the document status
	// badge instead.
	Label  string
	Status string
	Count  int
	URL    string
}

// HomeDocuments is the documents part of the staff home page.
type HomeDocuments struct {
	Counts []HomeCount
	// Stages are the documents in their alert window: expired, expiring
	// soon, entering the window.
	Stages        []HomeDueStage
	NotReady      []HomeNotReady
	NotReadyTotal int
}

// HomeDueStage is one alert stage's documents.
type HomeDueStage struct {
	Stage string
	Count int
	// ListURL lists them on the documents list; MoreURL is the same when
	// more exist than are shown ("" otherwise).
	ListURL string
	MoreURL string
	Docs    []HomeDueDoc
}

// HomeDueDoc is a document in its alert window.
type HomeDueDoc struct {
	DriverName, DriverNumber, DriverURL string
	Type, DocURL, Status, ValidUntil    string
	Days                                int
	LeadDays                            int
}

// HomeNotReady is an active driver who is not ready and why.
type HomeNotReady struct {
	Name, Number, URL string
	Missing           []HomeShortfall
}

// HomeShortfall is a required document keeping a driver from being ready.
type HomeShortfall struct {
	Type, Status, URL string
	// LimitedBy is the type whose status caps this one's ("": none).
	LimitedBy string
}

// HomeDisputes are the open disputes, oldest first.
type HomeDisputes struct {
	Rows  []HomeDispute
	Total int
	// QueueURL is the company's dispute queue.
	QueueURL string
}

// HomeDispute is one open dispute.
type HomeDispute struct {
	DriverName, DriverNumber, DriverURL string
	PenaltyURL, Type, Reason            string
	Amount                              Amount
	Filed, Due                          string
	Overdue                             bool
}

// HomeFinance is the accountant's part of the home page.
type HomeFinance struct {
	Month string // "November 2026" in words
	// Pending and Approved are per currency, each linking to the queue.
	Pending, Approved []HomeMoneyCount
	PendingURL        string
	ApprovedURL       string
	PeriodsToClose    []HomePeriod
	PeriodsTotal      int
	// MonthEndURL is the month-end page of the first period's month, its
	// open periods: where they are closed at once.
	MonthEndURL string
	MonthTotals []HomeMonthTotal
}

// HomeMoneyCount is how many transactions of a currency, and their sum.
type HomeMoneyCount struct {
	Count  int
	Amount Amount
	URL    string
}

// HomePeriod is an open pay period ending by the end of this month.
type HomePeriod struct {
	DriverName, DriverNumber, URL string
	Span                          string
	Net                           Amount
	Overdue                       bool
}

// HomeMonthTotal is this month's money in one currency.
type HomeMonthTotal struct {
	Currency                             string
	Earnings, Deductions, Penalties, Net Amount
	URL                                  string
}

// DriverHome is a driver's own to-dos and pay.
type DriverHome struct {
	// Name is the driver record's first and last name, the greeting's.
	Name       string
	ProfileURL string
	PayURL     string
	// Missing are the required documents with no file.
	Missing []DriverTodo
	// Documents are the documents in their alert window, most urgent first.
	Documents []DriverTodo
	Penalties []DriverPenaltyTodo
	Month     string
	// Pay is this month's net so far, per currency (the company's first).
	Pay []Amount
	// Rating is this month's score so far ("" when the role may not read
	// it), with its percentile; RatingURL the driver's rating page.
	Rating, RatingURL string
	RatingPercentile  int
	// Unit is the driver's active transport unit; nil when it has none.
	Unit *DriverUnit
}

// DriverUnit is the driver's own transport unit as its phone shows it:
// its vehicle and trailer, and whether it may drive, why not, and until
// when.
type DriverUnit struct {
	Vehicle UnitPart
	// Trailer is nil for a unit without one.
	Trailer *UnitPart
	Ready   bool
	// ReadyUntil is the last day it stays ready, as the language writes
	// it; "" when nothing expires or it is not ready.
	ReadyUntil string
	Reasons    []UnitReason
}

// UnitPart is a vehicle or trailer of a unit.
type UnitPart struct {
	Plate, Number string
}

// UnitReason is one thing that keeps the driver's unit from driving, in
// words: Key is the message (home.unit.reason.*), Holder the key of whose
// it is, Type a document type, Date the first day a document is no longer
// valid, Status the driver's own status key.
type UnitReason struct {
	Key, Holder, Type, Date, Status string
}

// DriverTodo is a document the driver has to renew or hand in.
type DriverTodo struct {
	Type, Status, URL, ValidUntil string
	Days                          *int
}

// DriverPenaltyTodo is a penalty the driver can still accept or dispute.
type DriverPenaltyTodo struct {
	URL, Type, Filed, Incident string
	Amount                     Amount
}

// HomeReview is the number of drivers' uploads waiting for review, with
// the link to the review queue.
type HomeReview struct {
	Count int
	URL   string
}

// HomeFleet is the fleet part of the home page: the active vehicles and
// trailers not ready, each count linked to its filtered list.
type HomeFleet struct {
	Counts []HomeCount
}

// unitReasonText words a reason of the driver's unit in the request's
// language.
func unitReasonText(ctx context.Context, r UnitReason) string {
	args := []any{"date", r.Date}
	if r.Holder != "" {
		args = append(args, "holder", T(ctx, r.Holder))
	}
	if r.Type != "" {
		args = append(args, "type", DocType(ctx, r.Type))
	}
	if r.Status != "" {
		args = append(args, "status", T(ctx, r.Status))
	}
	return T(ctx, r.Key, args...)
}
