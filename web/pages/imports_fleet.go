package pages

import (
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
	"github.com/konvoj/konvoj/internal/imports"
)

// importRecordURL is the page of a record an import of kind changed: a
// driver's, a vehicle's or a trailer's.
func importRecordURL(kind string, id uuid.UUID) string {
	if kind == string(imports.Drivers) || kind == "" {
		return driverURL(id)
	}
	return holderURL(string(fleetKindOf(kind)), id)
}

// fleetKindOf is the holder type of a fleet import's kind (vehicles:
// vehicle).
func fleetKindOf(kind string) fleet.Kind { return fleet.Kind(strings.TrimSuffix(kind, "s")) }

// importKindValueText is importValueText for a field of an import of kind:
// a vehicle's or trailer's closed field (type, status, use, fuel,
// refrigeration) in words.
func importKindValueText(lang i18n.Lang, kind, field string, raw json.RawMessage, offices map[uuid.UUID]string) string {
	if kind == string(imports.Vehicles) || kind == string(imports.Trailers) {
		// A kind's name is its holder type's with an s.
		if values, key := fleet.Choices(fleetKindOf(kind), field); values != nil {
			var v any
			if json.Unmarshal(raw, &v) == nil && v != nil {
				switch x := v.(type) {
				case string:
					return lang.T(key(x))
				case bool:
					if x {
						return lang.T(key("true"))
					}
					return lang.T(key("false"))
				}
			}
		}
	}
	return importValueText(lang, field, raw, offices)
}
