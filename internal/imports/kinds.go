package imports

import (
	"slices"
	"strings"
	"sync"

	"github.com/konvoj/konvoj/internal/fleet"
	"github.com/konvoj/konvoj/internal/i18n"
)

// Kind is what an import brings in: drivers, vehicles or trailers. One
// machinery reads, matches, checks, records and runs them all; the rows are
// judged and written by the area's own service (drivers.Service.Import,
// fleet.Service.ImportVehicles and ImportTrailers).
type Kind string

// The kinds of import.
const (
	Drivers  Kind = "drivers"
	Vehicles Kind = "vehicles"
	Trailers Kind = "trailers"
)

// Kinds are every kind, in the order the import page offers them.
var Kinds = []Kind{Drivers, Vehicles, Trailers}

// ParseKind reads a kind's name; ok is false for any other.
func ParseKind(s string) (Kind, bool) {
	k := Kind(s)
	return k, slices.Contains(Kinds, k)
}

// fleetKind is the fleet's kind of a vehicles or trailers import.
func (k Kind) fleetKind() fleet.Kind {
	// A kind's name is its records' with an s.
	return fleet.Kind(strings.TrimSuffix(string(k), "s"))
}

// isFleet reports whether the kind is the fleet's.
func (k Kind) isFleet() bool { return k == Vehicles || k == Trailers }

// TemplateName is the kind's template file name, without the extension.
func (k Kind) TemplateName() string { return string(k) + "-import-template" }

// fleetAliases are the folded headers of a fleet kind's fields: the API
// names, the export's column headers (fleet.field.*) and the field labels
// (field.*) in every language.
var fleetAliases = map[Kind]func() map[string]string{
	Vehicles: sync.OnceValue(func() map[string]string { return fleetAliasesOf(Vehicles) }),
	Trailers: sync.OnceValue(func() map[string]string { return fleetAliasesOf(Trailers) }),
}

func fleetAliasesOf(k Kind) map[string]string {
	m := map[string]string{}
	add := func(name, field string) {
		if key := fold(name); key != "" {
			if _, taken := m[key]; !taken {
				m[key] = field
			}
		}
	}
	fields := fleet.ImportFields(k.fleetKind())
	for _, f := range fields {
		add(f, f)
	}
	for _, l := range i18n.Langs {
		for _, f := range fields {
			for _, key := range []string{"fleet.field." + f, "field." + f} {
				if l.Has(key) {
					add(l.T(key), f)
				}
			}
		}
	}
	return m
}
