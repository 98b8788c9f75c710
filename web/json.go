package web

import (
	gojson "github.com/goccy/go-json"
	"github.com/labstack/echo/v4"
)

// jsonSerializer writes every JSON answer of both fronts (c.JSON). It
// encodes with goccy/go-json, which produces the same bytes as
// encoding/json (TestJSONSerializerMatchesStandard) but compiles each type's
// encoder once instead of walking it by reflection per value: on a list of
// 20 finance transactions that is about a third of the encoding time
// (docs/performance.md, "Encoding answers"). Request bodies are read by the
// API's own strict decoder (web/api), never by Deserialize.
type jsonSerializer struct{}

// Serialize writes i as JSON, with a trailing newline as encoding/json's
// Encoder does.
func (jsonSerializer) Serialize(c echo.Context, i any, indent string) error {
	enc := gojson.NewEncoder(c.Response())
	if indent != "" {
		enc.SetIndent("", indent)
	}
	return enc.Encode(i)
}

// Deserialize is Echo's standard decoding, for anything that calls c.Bind.
func (jsonSerializer) Deserialize(c echo.Context, i any) error {
	return echo.DefaultJSONSerializer{}.Deserialize(c, i)
}
