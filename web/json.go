package web

import (
	"bytes"
	"strconv"
	"sync"

	gojson "github.com/goccy/go-json"
	"github.com/labstack/echo/v4"
)

// jsonSerializer writes every JSON answer of both fronts (c.JSON). It
// encodes with goccy/go-json, which produces the same bytes as
// encoding/json (TestJSONSerializerMatchesStandard) but compiles each type's
// encoder once instead of walking it by reflection per value, which is
// most of the cost of encoding a list (docs/performance.md, "Encoding
// answers"). Request bodies are read by the
// API's own strict decoder (web/api), never by Deserialize.
type jsonSerializer struct{}

// Serialize writes i as JSON, with a trailing newline as encoding/json's
// Encoder does, in one write with its Content-Length. Written straight to
// the response, an answer over net/http's 2 kB buffer went out chunked:
// three writes to the socket instead of two, the last one the 7-byte end
// of the chunks, and each write to a waiting client costs a wake-up
// (docs/performance.md, "Encoding answers").
func (jsonSerializer) Serialize(c echo.Context, i any, indent string) error {
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer putAnswerBuffer(buf)
	buf.Reset()
	enc := gojson.NewEncoder(buf)
	if indent != "" {
		enc.SetIndent("", indent)
	}
	if err := enc.Encode(i); err != nil {
		return err
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentLength, strconv.Itoa(buf.Len()))
	_, err := res.Write(buf.Bytes())
	return err
}

// answerBuffers hold encoded answers between requests.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putAnswerBuffer returns buf to the pool unless one large answer grew it:
// kept, it would hold that much memory for every later small answer.
func putAnswerBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= 256<<10 {
		answerBuffers.Put(buf)
	}
}

// Deserialize is Echo's standard decoding, for anything that calls c.Bind.
func (jsonSerializer) Deserialize(c echo.Context, i any) error {
	return echo.DefaultJSONSerializer{}.Deserialize(c, i)
}
