package i18n

// Messages of table exports (CSV, XLSX).
func init() {
	Add(EN, map[string]string{
		"msg.export.format": "The format must be csv or xlsx.",
	})
	Add(CS, map[string]string{
		"msg.export.format": "Formát musí být csv nebo xlsx.",
	})
}
