package i18n

// Messages of table exports (CSV, XLSX) and of one-time form tokens.
func init() {
	Add(EN, map[string]string{
		"msg.export.format":     "The format must be csv or xlsx.",
		"msg.forms.token":       "This form is not valid any more. Open it again and send it once more.",
		"msg.forms.in_progress": "This form is already being saved. Wait a moment, then look at the list.",
	})
	Add(CS, map[string]string{
		"msg.export.format":     "Formát musí být csv nebo xlsx.",
		"msg.forms.token":       "Tento formulář už neplatí. Otevřete ho znovu a odešlete.",
		"msg.forms.in_progress": "Tento formulář se právě ukládá. Chvíli počkejte a podívejte se do seznamu.",
	})
}
