package i18n

// Driver tags and language, the company's own document types and the
// validity chains (docs/drivers-and-documents.md).
func init() {
	Add(EN, map[string]string{
		"msg.drivers.tags":          "The tags must be a list of texts.",
		"msg.drivers.tag":           "A tag may hold only lower-case letters, digits, _ and -, up to {max} characters.",
		"msg.drivers.too_many_tags": "A driver may have at most {max} tags.",
		"msg.drivers.language":      "The language must be one of: {allowed}.",
		"msg.list.tag":              "The tag may hold only lower-case letters, digits, _ and -, up to {max} characters.",
		"field.tags":                "tags",
		"field.language":            "language",
		"driver.field.tags":         "Tags",
		"driver.field.language":     "Language",
		"driver.tags_hint":          "Comma-separated, e.g. adr, international. Document rules may require a document for a tag.",
		"driver.language_company":   "Company's language",
		"drivers.filter.tag":        "Tag",
		"drivers.filter.any_tag":    "All tags",
		"doc.limited_by":            "Limited by {type}",
		"doc.limited_by_about":      "Counts as {status} because the {type} is {status}.",
	})
	Add(CS, map[string]string{
		"msg.drivers.tags":          "Štítky musí být seznam textů.",
		"msg.drivers.tag":           "Štítek smí obsahovat jen malá písmena, číslice, _ a -, nejvýše {max} znaků.",
		"msg.drivers.too_many_tags": "Řidič smí mít nejvýše {max} štítků.",
		"msg.drivers.language":      "Jazyk musí být jeden z: {allowed}.",
		"msg.list.tag":              "Štítek smí obsahovat jen malá písmena, číslice, _ a -, nejvýše {max} znaků.",
		"field.tags":                "štítky",
		"field.language":            "jazyk",
		"driver.field.tags":         "Štítky",
		"driver.field.language":     "Jazyk",
		"driver.tags_hint":          "Oddělené čárkou, např. adr, mezinarodni. Pravidla dokladů mohou doklad vyžadovat pro štítek.",
		"driver.language_company":   "Jazyk firmy",
		"drivers.filter.tag":        "Štítek",
		"drivers.filter.any_tag":    "Všechny štítky",
		"doc.limited_by":            "Omezeno dokladem {type}",
		"doc.limited_by_about":      "Platí jako {status}, protože {type} je {status}.",
	})
	Add(PL, map[string]string{
		"field.tags":              "tagi",
		"field.language":          "język",
		"driver.field.tags":       "Tagi",
		"driver.field.language":   "Język",
		"driver.tags_hint":        "Oddzielone przecinkami, np. adr, international.",
		"driver.language_company": "Język firmy",
		"doc.limited_by":          "Ograniczone przez: {type}",
		"doc.limited_by_about":    "Liczy się jako {status}, ponieważ {type} ma status {status}.",
	})
	Add(UK, map[string]string{
		"field.tags":              "мітки",
		"field.language":          "мова",
		"driver.field.tags":       "Мітки",
		"driver.field.language":   "Мова",
		"driver.tags_hint":        "Через кому, напр. adr, international.",
		"driver.language_company": "Мова компанії",
		"doc.limited_by":          "Обмежено документом: {type}",
		"doc.limited_by_about":    "Вважається як {status}, бо {type} має статус {status}.",
	})
	Add(RO, map[string]string{
		"field.tags":              "etichete",
		"field.language":          "limba",
		"driver.field.tags":       "Etichete",
		"driver.field.language":   "Limbă",
		"driver.tags_hint":        "Separate prin virgulă, de ex. adr, international.",
		"driver.language_company": "Limba companiei",
		"doc.limited_by":          "Limitat de {type}",
		"doc.limited_by_about":    "Contează ca {status} pentru că {type} are starea {status}.",
	})
}
