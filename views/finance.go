package views

// Amount is a formatted amount: Text in the language's form with the
// currency ("-1 250,00 Kč"), Negative for deductions and penalties, shown
// with a minus sign, a colour and, for screen readers and people who do
// not see the colour, a word.
type Amount struct {
	Text     string
	Negative bool
}

// FinanceFilters is the filter form of the queue and the ledger.
type FinanceFilters struct {
	// Action is where the GET form goes.
	Action                  string
	Types, Statuses         []Option
	From, To, Currency      string
	SortBy, SortOrder       string
	Offices, Periods        []Option // the queue's offices, the ledger's periods
	Driver                  string   // the queue's driver search text
	ShowDriver, ShowPeriods bool
	// Problem is a translated message about refused filters ("" none).
	Problem string
	// ClearURL shows all (the page's defaults).
	ClearURL string
}

// MoneySummary is the money of a filtered set in one currency.
type MoneySummary struct {
	Currency                             string
	Earnings, Deductions, Penalties, Net Amount
	Count                                int
	Others                               []MoneySummary // other currencies of the set
	LabelKey                             string         // a card's title key ("" for a list summary)
	AvgMonthly                           Amount
	PenaltiesCount                       int
	ShowAvg                              bool
}

// FinanceRow is a transaction as the queue and the ledger show it.
type FinanceRow struct {
	ID, URL                  string
	DriverName, DriverNumber string
	DriverURL                string
	Date                     string
	Type                     string // code; shown as finance.type.<code>
	Category, Description    string
	Amount                   Amount
	Status                   string // code; shown as finance.status.<code>
	PaymentDate              string
	// Penalty: a penalty's finance record. Correction says, translated,
	// which penalty a correction corrects, PenaltyURL links it ("" else).
	Penalty                bool
	Correction, PenaltyURL string
	// Actions the caller may try on it (the service decides).
	Approve, Pay, Cancel, Edit bool
	// DeleteURL is the delete page ("" when the role may not delete or the
	// rules forbid it; then DeleteBlocked says why, for roles that may).
	DeleteURL, DeleteBlocked string
	// Locked says, translated, that the transaction's pay period is closed
	// or paid: then no action is offered ("" when it is open).
	Locked string
	// Error is the refusal of the last action on this row, translated.
	Error string
	// Selected keeps a queue checkbox ticked after a refused bulk action.
	Selected bool
}

// BulkResult is the outcome of one transaction of a bulk action.
type BulkResult struct {
	Driver, Date string
	Amount       Amount
	OK           bool
	// Text is the new status in words, or the refusal, translated.
	Text string
	URL  string
}

// QueueData is the company-wide approval queue.
type QueueData struct {
	Filters  FinanceFilters
	Summary  MoneySummary
	Rows     []FinanceRow
	Columns  []SortColumn
	Pager    Pager
	CanWrite bool
	CSRF     string
	// Back is the queue's current address, where a bulk action returns.
	Back string
	// Bulk is the outcome of the bulk action just done (nil: none);
	// BulkAction is its name (approve, pay).
	Bulk       []BulkResult
	BulkAction string
	// Problem is a refusal of the whole bulk action, translated.
	Problem string
}

// FinanceQueueID is the id of the approval queue's live part (its totals
// and rows): an htmx request aimed at it gets the part alone.
const FinanceQueueID = "finance-queue"

// financeEvents are the events that change the approval queue.
const financeEvents = "finance_transaction.created finance_transaction.approved finance_transaction.paid finance_transaction.cancelled finance_transaction.deleted"

// DriverHeader names the driver a finance page is about.
type DriverHeader struct {
	ID, URL, Name, Number string
}

// LedgerData is a driver's ledger.
type LedgerData struct {
	Driver     DriverHeader
	Filters    FinanceFilters
	Summary    MoneySummary
	Cards      []MoneySummary
	Rows       []FinanceRow
	Pager      Pager
	CSRF, Back string
	NewURL     string
	PeriodsURL string
	ExportCSV  string
	ExportXLSX string
	// Problem is a refusal not tied to a row, translated.
	Problem string
	// Locked says, translated, that the pay period the ledger is filtered
	// to is closed or paid ("" otherwise).
	Locked string
}

// TransactionFormData is the create or edit form of a transaction.
type TransactionFormData struct {
	Driver    DriverHeader
	Creating  bool
	Action    string
	CancelURL string
	CSRF      string
	// Token is the one-time form token (create only).
	Token string
	Types []Option
	// Currencies are the currencies the form offers (money.Choices).
	Currencies []Option
	Values     map[string]string
	// Errors are translated messages by field; "" holds the ones about
	// the whole record (a closed period, a status that forbids a change).
	Errors map[string][]string
	// Locked: an approved transaction whose money fields are fixed.
	Locked bool
}

// PeriodRow is a pay period as its page shows it.
type PeriodRow struct {
	ID                     string
	Start, End             string
	Type, Status, Currency string
	Earnings, Deductions   Amount
	Net                    Amount
	Count                  int
	TransactionsURL        string
	// Close: the role may close it and its last day has passed (CloseURL
	// asks for confirmation); ClosableFrom is, for the roles that close,
	// the day an open period can be closed from while that day is to come.
	Close, Pay       bool
	CloseURL, PayURL string
	ClosableFrom     string
	// Reopen: the role may reopen this closed period (ReopenURL, with a
	// reason); ReopenReason is the reason sent with a refused reopen.
	Reopen                  bool
	ReopenURL, ReopenReason string
	// Error is the refusal of the last action on this period, translated.
	Error                string
	ClosedInfo, PaidInfo string
	// Payslip is the period's payslip download.
	Payslip PayslipLink
}

// ClosePeriodData asks before a pay period is closed and lists what in it
// is still pending; closing it anyway is a forced close.
type ClosePeriodData struct {
	Driver                    DriverHeader
	Span, Type, Currency      string
	Earnings, Deductions, Net Amount
	Count                     int
	// Pending are the first pending transactions, PendingTotal all of them.
	Pending      []FinanceRow
	PendingTotal int
	Action, CSRF string
	// CancelURL is the periods page, PendingURL the period's pending
	// transactions in the ledger.
	CancelURL, PendingURL string
	// Problem is a refusal of the close, translated ("" none).
	Problem string
}

// PeriodsData is a driver's pay periods.
type PeriodsData struct {
	Driver    DriverHeader
	Rows      []PeriodRow
	Years     []Option
	LedgerURL string
	CSRF      string
	Back      string
	// Problem is a refusal about a period not in the list, translated.
	Problem string
}

// DeleteTransactionData asks before deleting a transaction.
type DeleteTransactionData struct {
	Driver    DriverHeader
	Row       FinanceRow
	Action    string
	CSRF      string
	CancelURL string
}
