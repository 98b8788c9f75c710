package views

import "github.com/a-h/templ"

// The fleet's pages (docs/web-app.md, "Vehicles and trailers"): the lists,
// the record pages, the forms and the delete confirmation of vehicles and
// trailers. Kind is "vehicle" or "trailer" throughout; Path is the list's
// address (/vehicles, /trailers).

// FleetListData is a vehicles or trailers list page: the filter form and
// the results (FleetResults, also swapped alone by htmx).
type FleetListData struct {
	Kind, Path string
	Search     string
	// CanCreate offers the new record's form, CanImport the import.
	CanCreate, CanImport bool
	// Filter choices; Tags only when the records carry any.
	Statuses, Types, Tags, Ready []Option
	Results                      FleetResults
}

// FleetResults is the part of the list page htmx replaces.
type FleetResults struct {
	Kind, Path        string
	SortBy, SortOrder string
	Columns           []SortColumn
	Rows              []FleetRow
	Pager             Pager
	// Problem names refused values of a hand-edited address.
	Problem  string
	Filtered bool
	// ExportCSV and ExportXLSX download the filtered list ("": not
	// offered).
	ExportCSV, ExportXLSX string
}

// FleetRow is one vehicle or trailer of a list.
type FleetRow struct {
	URL, Number, Plate string
	// Type and MakeModel are in words ("" shows a dash).
	Type, MakeModel string
	Status          string
	Ready           bool
	// NotReady says why a record is not ready, in words.
	NotReady  string
	Documents []StatusCount
}

// FleetPageData is a vehicle's or trailer's page.
type FleetPageData struct {
	Kind, Path, URL string
	Number, Plate   string
	// Type is the type in words.
	Type     string
	Status   string
	Ready    bool
	NotReady string
	Tags     []string
	Sections []FleetSection
	// Unit is the active transport unit the record is in (nil: none).
	Unit               *FleetUnit
	CanEdit, CanDelete bool
	// ShowDocuments shows the documents section; Documents are its
	// cards, in the driver page's form.
	ShowDocuments bool
	Documents     []DocumentCard
	HistoryURL    string
}

// FleetSection is a titled group of a record's fields.
type FleetSection struct {
	// Title is an i18n key.
	Title  string
	Fields []FleetValue
}

// FleetValue is one field of a record page: Field names its word
// (field.<name>), Value is already in words ("" shows a dash).
type FleetValue struct {
	Field, Value string
	Wide         bool
}

// FleetUnit is the active transport unit: its driver and the unit's
// other record (a vehicle's trailer, a trailer's vehicle).
type FleetUnit struct {
	DriverName, DriverNumber, DriverURL string
	// Other is the unit's trailer (on a vehicle's page) or vehicle (on a
	// trailer's), nil when the unit has none.
	Other *FleetUnitRecord
}

// FleetUnitRecord is the other vehicle or trailer of a unit.
type FleetUnitRecord struct {
	// Label is an i18n key (fleet.unit.trailer, fleet.unit.vehicle).
	Label, Number, Plate, URL string
}

// FleetFormData is a vehicle's or trailer's create or edit form.
type FleetFormData struct {
	Kind, Path string
	Creating   bool
	Action     string
	CSRF       string
	// Number is the edited record's internal number ("" when creating).
	Number, CancelURL string
	// Values by field name, as sent or as stored.
	Values map[string]string
	// Errors are translated messages by field; "" holds form-level ones.
	Errors map[string][]string
	// Choices of the select fields by field name.
	Choices map[string][]Option
}

// FleetDeleteData is the confirmation before a vehicle or trailer is
// deleted.
type FleetDeleteData struct {
	Kind, Number, Plate, Action, CSRF, CancelURL string
}

// fleetField is one input of a fleet form.
type fleetField struct {
	Name string
	// Kind: text, number, decimal, date, select, checkbox, textarea.
	Kind     string
	Required bool
	Wide     bool
	// Only shows the field only for a light vehicle ("pkv") or a trailer
	// with refrigeration ("frigo"); the page sends it only then.
	Only string
	// Hint is the text key of a help line under the input.
	Hint string
}

type fleetGroup struct {
	Title  string
	Fields []fleetField
}

var vehicleFormGroups = []fleetGroup{
	{Title: "fleet.section.identity", Fields: []fleetField{
		{Name: "type", Kind: "select", Required: true},
		{Name: "assignment_mode", Kind: "select", Only: "pkv", Hint: "fleet.assignment_hint"},
		{Name: "status", Kind: "select"},
		{Name: "plate_number", Kind: "text", Required: true},
		{Name: "vin", Kind: "text"},
		{Name: "office_id", Kind: "select"},
		{Name: "tags", Kind: "text", Wide: true, Hint: "fleet.tags_hint"},
	}},
	{Title: "fleet.section.technical", Fields: []fleetField{
		{Name: "make", Kind: "text"},
		{Name: "model", Kind: "text"},
		{Name: "year", Kind: "number"},
		{Name: "color", Kind: "text"},
		{Name: "fuel_type", Kind: "select"},
		{Name: "emission_class", Kind: "text"},
		{Name: "gross_weight_kg", Kind: "number"},
		{Name: "payload_kg", Kind: "number"},
		{Name: "axles", Kind: "number"},
		{Name: "odometer_km", Kind: "number"},
		{Name: "first_registration_date", Kind: "date"},
	}},
	{Title: "fleet.section.notes", Fields: []fleetField{
		{Name: "notes", Kind: "textarea", Wide: true},
	}},
}

var trailerFormGroups = []fleetGroup{
	{Title: "fleet.section.identity", Fields: []fleetField{
		{Name: "type", Kind: "select", Required: true},
		{Name: "status", Kind: "select"},
		{Name: "plate_number", Kind: "text", Required: true},
		{Name: "vin", Kind: "text"},
		{Name: "office_id", Kind: "select"},
		{Name: "tags", Kind: "text", Wide: true, Hint: "fleet.tags_hint"},
	}},
	{Title: "fleet.section.technical", Fields: []fleetField{
		{Name: "make", Kind: "text"},
		{Name: "model", Kind: "text"},
		{Name: "year", Kind: "number"},
		{Name: "color", Kind: "text"},
		{Name: "gross_weight_kg", Kind: "number"},
		{Name: "payload_kg", Kind: "number"},
		{Name: "axles", Kind: "number"},
		{Name: "volume_m3", Kind: "decimal"},
		{Name: "first_registration_date", Kind: "date"},
	}},
	{Title: "fleet.section.refrigeration", Fields: []fleetField{
		{Name: "has_refrigeration", Kind: "checkbox", Wide: true, Hint: "fleet.refrigeration_hint"},
		{Name: "temperature_min", Kind: "decimal", Only: "frigo"},
		{Name: "temperature_max", Kind: "decimal", Only: "frigo"},
	}},
	{Title: "fleet.section.notes", Fields: []fleetField{
		{Name: "notes", Kind: "textarea", Wide: true},
	}},
}

func fleetFormGroups(kind string) []fleetGroup {
	if kind == "trailer" {
		return trailerFormGroups
	}
	return vehicleFormGroups
}

// FleetFormField is a fleet form's field as the pages read it back and
// show it: Group is its section's title key.
type FleetFormField struct {
	Name, Kind, Only, Group string
	Wide                    bool
}

// FleetFormFields lists every field the kind's form can send, in form
// order.
func FleetFormFields(kind string) []FleetFormField {
	var out []FleetFormField
	for _, g := range fleetFormGroups(kind) {
		for _, f := range g.Fields {
			out = append(out, FleetFormField{Name: f.Name, Kind: f.Kind, Only: f.Only, Group: g.Title, Wide: f.Wide})
		}
	}
	return out
}

// errorFields are the fields with a message, in form order.
func (d FleetFormData) errorFields() []string {
	var out []string
	for _, f := range FleetFormFields(d.Kind) {
		if len(d.Errors[f.Name]) > 0 {
			out = append(out, f.Name)
		}
	}
	return out
}

// fleetInvalid marks an input with a message for assistive technology.
func fleetInvalid(d FleetFormData, name string) templ.Attributes {
	if len(d.Errors[name]) == 0 {
		return templ.Attributes{}
	}
	return templ.Attributes{"aria-invalid": "true", "aria-describedby": errID(name)}
}

// fleetOnlyClass hides a field that applies only to light vehicles or
// to trailers with refrigeration while the form says otherwise
// (static/input.css, without JavaScript).
func fleetOnlyClass(only string) string {
	switch only {
	case "pkv":
		return "fleet-pkv-only"
	case "frigo":
		return "fleet-frigo-only"
	}
	return ""
}

func fleetStatusClass(status string) string {
	switch status {
	case "active":
		return "bg-blue-50 text-blue-800 ring-blue-700/20"
	case "in_service":
		return "bg-amber-50 text-amber-900 ring-amber-700/25"
	case "sold":
		return "bg-gray-100 text-gray-700 ring-gray-600/25"
	}
	return "bg-gray-50 text-gray-700 ring-gray-500/25"
}

// FleetTitleKey is the list's title key of the kind.
func FleetTitleKey(kind string) string {
	if kind == "trailer" {
		return "fleet.trailers.title"
	}
	return "fleet.vehicles.title"
}
