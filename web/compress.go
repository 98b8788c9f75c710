package web

import (
	"compress/gzip"
	"net/http"
	"strings"

	"github.com/CAFxX/httpcompression"
	"github.com/labstack/echo/v4"
)

// CompressMinSize is the smallest answer compressed (docs/performance.md,
// "Compression"): below it the saving is a few bytes and costs a
// compressor's setup.
const CompressMinSize = 1024

// compressedTypes are the answers worth compressing: pages, styles,
// scripts and JSON. Everything else (PDFs, images, ZIPs, XLSX, CSV
// exports) goes out as stored: already compressed, or a download whose
// bytes, length and ETag the client checks.
var compressedTypes = []string{
	"text/html", "text/css", "text/javascript", "application/javascript",
	"application/json", "application/problem+json", "image/svg+xml",
}

// newCompressor is the compression middleware of the library: brotli
// before gzip when the client takes both, Vary: Accept-Encoding on every
// answer. Its levels favour speed: the answers are made per request.
func newCompressor() func(http.Handler) http.Handler {
	compress, err := httpcompression.Adapter(
		httpcompression.BrotliCompressionLevel(4),
		httpcompression.GzipCompressionLevel(gzip.DefaultCompression),
		httpcompression.MinSize(CompressMinSize),
		httpcompression.ContentTypes(compressedTypes, false),
	)
	if err != nil {
		panic("web: compression options: " + err.Error()) // fixed options: a bug, not a runtime condition
	}
	return compress
}

// compress answers in gzip or brotli when the request accepts it and the
// answer is large enough and of a compressed type. It is the outermost
// middleware: an error is answered inside it (c.Error), while the
// compressor is still open, rather than by Echo after the chain returned.
// A range request is answered as is: its bytes are of the stored
// representation. A live-update stream too: each event must leave at once.
func (s *Server) compress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Header.Get("Range") != "" || r.Header.Get("Accept-Encoding") == "" || streamPaths[r.URL.Path] {
			return next(c)
		}
		res := c.Response()
		plain := res.Writer
		defer func() { res.Writer = plain }()
		s.compressor(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			res.Writer = w
			c.SetRequest(r)
			if err := next(c); err != nil {
				c.Error(err)
			}
		})).ServeHTTP(weakETag{plain}, r)
		return nil
	}
}

// weakETag is the plain writer under the compressor: an answer that goes
// out compressed carries its ETag as a weak one, since a strong ETag names
// the exact bytes and the compressed ones differ.
type weakETag struct{ http.ResponseWriter }

func (w weakETag) WriteHeader(code int) {
	w.weaken()
	w.ResponseWriter.WriteHeader(code)
}

func (w weakETag) Write(b []byte) (int, error) {
	w.weaken()
	return w.ResponseWriter.Write(b)
}

func (w weakETag) weaken() {
	h := w.Header()
	if h.Get("Content-Encoding") == "" {
		return
	}
	if tag := h.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
		h.Set("ETag", "W/"+tag)
	}
}

// Flush passes a streamed answer's flush on.
func (w weakETag) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection's writer.
func (w weakETag) Unwrap() http.ResponseWriter { return w.ResponseWriter }
