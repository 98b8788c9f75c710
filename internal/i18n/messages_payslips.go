package i18n

// Payslips' messages (docs/finance.md, "Payslips"): a month asked for in
// the wrong form. Only staff ask for a month's payslips.
func init() {
	Add(EN, map[string]string{
		"msg.finance.month_start": "The {field} must be the first day of a month, written YYYY-MM-01.",
	})
	Add(CS, map[string]string{
		"msg.finance.month_start": "Hodnota {field} musí být první den měsíce ve tvaru RRRR-MM-01.",
	})
}
