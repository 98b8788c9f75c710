package i18n

// Payslips (docs/finance.md, "Payslips"): the PDF's labels, in the driver's
// language, and the download links of the pay and periods pages. Drivers
// read them, so Polish, Ukrainian and Romanian have them in their files.
// The PDF takes its column headers, type and status words and totals from
// the finance and pay keys.
func init() {
	Add(EN, map[string]string{
		"payslip.title":                       "Payslip",
		"payslip.driver":                      "Driver",
		"payslip.internal_number":             "Driver number",
		"payslip.period":                      "Pay period",
		"payslip.status":                      "Period status",
		"payslip.currency":                    "Currency",
		"payslip.issued":                      "Issued on",
		"payslip.none":                        "No transactions in this period.",
		"payslip.page":                        "Page {page} of {pages}",
		"payslip.category.damage_fine":        "Damage",
		"payslip.category.penalty":            "Penalty",
		"payslip.category.penalty_correction": "Penalty correction",
		"payslip.download":                    "Download payslip",
		"payslip.download.period":             "Download payslip: {period}, {currency}",
	})
	Add(CS, map[string]string{
		"payslip.title":                       "Výplatní páska",
		"payslip.driver":                      "Řidič",
		"payslip.internal_number":             "Osobní číslo",
		"payslip.period":                      "Výplatní období",
		"payslip.status":                      "Stav období",
		"payslip.currency":                    "Měna",
		"payslip.issued":                      "Vystaveno",
		"payslip.none":                        "V tomto období nejsou žádné transakce.",
		"payslip.page":                        "Strana {page} z {pages}",
		"payslip.category.damage_fine":        "Škoda",
		"payslip.category.penalty":            "Pokuta",
		"payslip.category.penalty_correction": "Oprava pokuty",
		"payslip.download":                    "Stáhnout výplatní pásku",
		"payslip.download.period":             "Stáhnout výplatní pásku: {period}, {currency}",
	})
}
