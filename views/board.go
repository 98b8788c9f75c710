package views

// BoardData is the dispatcher's readiness board on the home page: the
// filter form, the units by readiness (BoardUnits, also fetched alone when
// a filter changes or an event arrives) and the free drivers, vehicles and
// trailers to assign.
type BoardData struct {
	Search  string
	Offices []Option
	// PartURL is the address of the units part, with the filters.
	PartURL   string
	Units     BoardUnits
	CanAssign bool
	// FreeDrivers, FreeVehicles, FreeTrailers are what may still be
	// put into a unit (nil when the caller may not assign).
	FreeDrivers, FreeVehicles, FreeTrailers []BoardFree
	// FreeMore are the lists' limits, said when reached.
	FreeLimit int
}

// BoardUnits is the part of the board a change refreshes: the active
// units in three groups.
type BoardUnits struct {
	PartURL   string
	Groups    []BoardGroup
	Total     int
	CanAssign bool
	Pager     Pager
	// LiveOn are the events that refresh it.
	LiveOn string
}

// BoardGroup is one readiness group: not_ready, lapsing (ready, but
// something lapses within a week) or ready.
type BoardGroup struct {
	Key   string
	Units []BoardUnit
}

// BoardUnit is one unit's row.
type BoardUnit struct {
	ID                          string
	Driver, DriverNumber        string
	DriverURL                   string
	Vehicle, VehicleURL         string
	Trailer, TrailerURL         string
	Ready                       bool
	Reasons                     []string
	ReadyUntil                  string
	DaysLeft                    *int
	TrailerFormURL, UnassignURL string
}

// BoardFree is a free driver, vehicle or trailer.
type BoardFree struct {
	ID                 string
	Label, Number, URL string
	Ready              bool
	// AssignURL opens the assignment form with it chosen.
	AssignURL string
}

// UnitFormData is the assignment form with its preview.
type UnitFormData struct {
	CSRF                        string
	Drivers, Vehicles, Trailers []Option
	On, Through                 string
	Errors                      map[string][]string
	Preview                     *UnitPreview
	CancelURL                   string
}

// UnitPreview says, before the assignment, whether the unit will be ready
// now and whether it stays ready over the trip's days.
type UnitPreview struct {
	// Hint: nothing to check yet (no driver or vehicle chosen).
	Hint     bool
	Problem  string
	ReadyNow bool
	Now      []string
	// Trip is set when trip days were given.
	Trip *UnitTrip
}

// UnitTrip is the preview over the trip's days.
type UnitTrip struct {
	Span    string
	Ready   bool
	Reasons []string
}

// UnitTrailerData is the form that changes a unit's trailer.
type UnitTrailerData struct {
	CSRF, Action, CancelURL string
	Driver, Vehicle         string
	Trailers                []Option
	Errors                  map[string][]string
}

// UnitUnassignData is the confirmation before a unit ends.
type UnitUnassignData struct {
	CSRF, Action, CancelURL  string
	Driver, Vehicle, Trailer string
	Errors                   []string
}

func boardGroupClass(key string) string {
	switch key {
	case "not_ready":
		return "bg-red-50 text-red-900"
	case "lapsing":
		return "bg-amber-50 text-amber-900"
	}
	return "bg-green-50 text-green-900"
}

func boardGroupIcon(key string) string {
	switch key {
	case "not_ready":
		return "x-circle"
	case "lapsing":
		return "clock"
	}
	return "check"
}

func previewClass(ready bool) string {
	if ready {
		return "bg-green-50 text-green-900 ring-green-200"
	}
	return "bg-red-50 text-red-900 ring-red-200"
}
