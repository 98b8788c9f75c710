package views

// MonthEndData is the company's month-end page: every driver's pay period
// of a month, with the bulk close and pay for the roles that may.
type MonthEndData struct {
	// Month is the month input's value (YYYY-MM), MonthText the month in
	// words.
	Month, MonthText         string
	PrevURL, NextURL         string
	Types, Offices, Statuses []Option
	// Type is the period type shown (monthly by default); OfficeIDs and
	// StatusValues the filter's values, posted again with a bulk action.
	Type                    string
	OfficeIDs, StatusValues []string
	ClearURL                string
	// Problem is a translated message about refused filters or a refused
	// bulk action ("" none).
	Problem string
	Summary MonthEndSummary
	Rows    []MonthEndRow
	Pager   Pager
	// CanManage: the caller may close and pay periods (the checkboxes and
	// buttons are shown).
	CanManage             bool
	CSRF                  string
	ExportCSV, ExportXLSX string
	Results               *MonthEndResults
}

// MonthEndSummary is the whole filtered set: its periods by status, the
// pending transactions, the net amount per currency.
type MonthEndSummary struct {
	Periods, Open, Closed, Paid int
	Pending, PendingPeriods     int
	Nets                        []CurrencyAmount
}

// CurrencyAmount is a sum in one currency.
type CurrencyAmount struct {
	Currency string
	Amount   Amount
}

// MonthEndRow is one driver's period of the month.
type MonthEndRow struct {
	PeriodID, DriverID       string
	DriverName, DriverNumber string
	PeriodsURL               string
	Span                     string // the period's dates, shown for types other than monthly
	Status, Currency         string
	Earnings, Deductions     Amount
	Net                      Amount
	Pending                  int
	Selected                 bool
}

// MonthEndResults is what a bulk action did, period by period.
type MonthEndResults struct {
	Action      string // close, pay
	Done, Total int
	Rows        []MonthEndResult
}

// MonthEndResult is one period's outcome.
type MonthEndResult struct {
	DriverName, DriverNumber, URL, Currency string
	OK                                      bool
	// Text is "Closed" or "Marked paid", or the refusal, translated.
	Text string
}

// HiddenField is a form value carried over to the next step.
type HiddenField struct {
	Name, Value string
}

// MonthEndConfirmData asks before a bulk close or pay, naming what it
// will do: how many periods move, how many are skipped, and (closing) the
// pending transactions a forced close closes over.
type MonthEndConfirmData struct {
	Action                  string // close, pay
	MonthText               string
	Selected, Movable, Skip int
	Pending, PendingPeriods int
	Hidden                  []HiddenField
	CSRF, CancelURL         string
}
