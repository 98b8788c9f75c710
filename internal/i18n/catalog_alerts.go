package i18n

// The expiry alerts' pages (docs/alerts.md): the document rules; every
// language holds them (see catalog_pl.go, catalog_uk.go, catalog_ro.go).
func init() {
	Add(EN, map[string]string{
		"nav.document_rules":       "Document rules",
		"nav.document_rules.about": "Which documents drivers need and when expiry alerts go out.",

		"rules.title":                       "Document rules",
		"rules.intro":                       "For each document type: whether drivers need it to be ready, for whom, how many days before its expiry the first alert goes out, and whether a driver's own upload waits for review.",
		"rules.type":                        "Document type",
		"rules.required":                    "Required",
		"rules.required_for":                "Required for",
		"rules.lead_days":                   "Alert days before expiry",
		"rules.requires_review":             "Review uploads",
		"rules.required_of":                 "{type}: required",
		"rules.required_for_of":             "{type}: required for",
		"rules.lead_days_of":                "{type}: alert days before expiry",
		"rules.requires_review_of":          "{type}: review uploads",
		"rules.required_for.all":            "All drivers",
		"rules.required_for.non_eu":         "Drivers from outside the EU, EEA and Switzerland",
		"rules.required_for.help":           "Required for: all (every driver), non_eu (drivers from outside the EU, EEA and Switzerland) or tag:name (drivers with that tag).",
		"rules.saved":                       "Document rules saved.",
		"msg.document_rules.rules_required": "The rules field is required and must list at least one document type.",
		"msg.document_rules.type_required":  "The document type is required.",
		"msg.document_rules.type_unknown":   "The document type must be one of: {allowed}.",
		"msg.document_rules.type_repeated":  "The document type {type} is already listed at rules.{index}.",
		"msg.document_rules.boolean":        "The value must be true or false.",
		"msg.document_rules.required_for":   "Required for must be all, non_eu or tag: followed by up to 40 lower-case letters, digits, _ or -.",
		"msg.document_rules.lead_days":      "The lead days must be a whole number from 0 to {max}.",
	})
	Add(CS, map[string]string{
		"nav.document_rules":       "Pravidla dokladů",
		"nav.document_rules.about": "Které doklady řidiči potřebují a kdy chodí upozornění na konec platnosti.",

		"rules.title":                       "Pravidla dokladů",
		"rules.intro":                       "U každého typu dokladu: zda ho řidiči potřebují, aby byli připraveni, pro koho platí, kolik dní před koncem platnosti přijde první upozornění a zda nahrání řidičem čeká na kontrolu.",
		"rules.type":                        "Typ dokladu",
		"rules.required":                    "Povinný",
		"rules.required_for":                "Povinný pro",
		"rules.lead_days":                   "Upozornit dní předem",
		"rules.requires_review":             "Kontrolovat nahrání",
		"rules.required_of":                 "{type}: povinný",
		"rules.required_for_of":             "{type}: povinný pro",
		"rules.lead_days_of":                "{type}: upozornit dní předem",
		"rules.requires_review_of":          "{type}: kontrolovat nahrání",
		"rules.required_for.all":            "Všichni řidiči",
		"rules.required_for.non_eu":         "Řidiči mimo EU, EHP a Švýcarsko",
		"rules.required_for.help":           "Povinný pro: all (každý řidič), non_eu (řidiči mimo EU, EHP a Švýcarsko) nebo tag:název (řidiči s tímto štítkem).",
		"rules.saved":                       "Pravidla dokladů uložena.",
		"msg.document_rules.rules_required": "Pole rules je povinné a musí uvádět alespoň jeden typ dokladu.",
		"msg.document_rules.type_required":  "Zadejte typ dokladu.",
		"msg.document_rules.type_unknown":   "Typ dokladu musí být jeden z: {allowed}.",
		"msg.document_rules.type_repeated":  "Typ dokladu {type} už je uveden na pozici rules.{index}.",
		"msg.document_rules.boolean":        "Hodnota musí být ano, nebo ne.",
		"msg.document_rules.required_for":   "Povinný pro musí být all, non_eu nebo tag: a za ním nejvýše 40 malých písmen, číslic, _ nebo -.",
		"msg.document_rules.lead_days":      "Počet dní předem musí být celé číslo od 0 do {max}.",
	})
}
