package i18n

// Messages of month-end for the whole company: the month of the company's
// pay periods, the bulk close and pay, the payroll (office staff only:
// "msg.finance.").
func init() {
	Add(EN, map[string]string{
		"msg.finance.month_required":   "Choose the month: its first day, written YYYY-MM-01.",
		"msg.finance.month_start":      "\"{value}\" is not the first day of a month; write the month as YYYY-MM-01.",
		"msg.finance.driver_ids_empty": "Name at least one driver, or leave the list of drivers out to act on every driver.",
		"msg.finance.driver_id":        "\"{value}\" is not a driver id (a UUID).",
		"msg.finance.month_no_period":  "This driver has no pay period starting in {month}.",
	})
	Add(CS, map[string]string{
		"msg.finance.month_required":   "Zvolte měsíc: jeho první den ve tvaru RRRR-MM-01.",
		"msg.finance.month_start":      "„{value}“ není první den měsíce; měsíc zapište jako RRRR-MM-01.",
		"msg.finance.driver_ids_empty": "Uveďte aspoň jednoho řidiče, nebo seznam řidičů vynechte a akce se týká všech.",
		"msg.finance.driver_id":        "„{value}“ není ID řidiče (UUID).",
		"msg.finance.month_no_period":  "Tento řidič nemá výplatní období, které začíná v měsíci {month}.",
	})
}
