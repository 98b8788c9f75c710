package i18n

// The finance pages (the approval queue, a driver's ledger, pay periods)
// and the export's headers: transaction types and statuses in words, the
// columns. Drivers see the words of their own pay and exports, so Polish,
// Ukrainian and Romanian have them in their files.
func init() {
	Add(EN, map[string]string{
		"finance.type.base_salary":   "Base salary",
		"finance.type.overtime":      "Overtime",
		"finance.type.bonus":         "Bonus",
		"finance.type.penalty":       "Penalty",
		"finance.type.deduction":     "Deduction",
		"finance.type.business_trip": "Business trip",
		"finance.type.allowance":     "Allowance",
		"finance.type.reimbursement": "Reimbursement",

		"finance.status.pending":   "Pending",
		"finance.status.approved":  "Approved",
		"finance.status.paid":      "Paid",
		"finance.status.cancelled": "Cancelled",
		"finance.status.disputed":  "Disputed",

		"finance.col.transaction_date": "Date",
		"finance.col.transaction_type": "Type",
		"finance.col.category":         "Category",
		"finance.col.description":      "Description",
		"finance.col.reference":        "Reference",
		"finance.col.amount":           "Amount",
		"finance.col.currency":         "Currency",
		"finance.col.status":           "Status",
		"finance.col.payment_date":     "Payment date",
		"finance.col.id":               "ID",

		"finance.export.sheet": "Transactions",
	})
	Add(CS, map[string]string{
		"finance.type.base_salary":   "Základní mzda",
		"finance.type.overtime":      "Přesčas",
		"finance.type.bonus":         "Prémie",
		"finance.type.penalty":       "Pokuta",
		"finance.type.deduction":     "Srážka",
		"finance.type.business_trip": "Služební cesta",
		"finance.type.allowance":     "Příplatek",
		"finance.type.reimbursement": "Náhrada výdajů",

		"finance.status.pending":   "Čeká na schválení",
		"finance.status.approved":  "Schváleno",
		"finance.status.paid":      "Vyplaceno",
		"finance.status.cancelled": "Zrušeno",
		"finance.status.disputed":  "Rozporováno",

		"finance.col.transaction_date": "Datum",
		"finance.col.transaction_type": "Druh",
		"finance.col.category":         "Kategorie",
		"finance.col.description":      "Popis",
		"finance.col.reference":        "Reference",
		"finance.col.amount":           "Částka",
		"finance.col.currency":         "Měna",
		"finance.col.status":           "Stav",
		"finance.col.payment_date":     "Datum výplaty",
		"finance.col.id":               "ID",

		"finance.export.sheet": "Transakce",
	})
}
