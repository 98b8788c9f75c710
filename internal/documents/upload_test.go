package documents

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/apperr"
)

func TestDetectType(t *testing.T) {
	pad := func(b string) []byte { return append([]byte(b), bytes.Repeat([]byte{0x42}, 600)...) }
	cases := []struct {
		name     string
		head     []byte
		wantType string
		wantExt  string
		ok       bool
	}{
		{"pdf", pad("%PDF-1.7\n"), "application/pdf", "pdf", true},
		{"jpeg", pad("\xff\xd8\xff\xe0\x00\x10JFIF"), "image/jpeg", "jpg", true},
		{"png", pad("\x89PNG\r\n\x1a\n"), "image/png", "png", true},
		{"webp", pad("RIFF\x24\x00\x00\x00WEBPVP8 "), "image/webp", "webp", true},
		{"heic", pad("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic"), "image/heic", "heic", true},
		{"heix", pad("\x00\x00\x00\x18ftypheix\x00\x00\x00\x00mif1heix"), "image/heic", "heic", true},
		{"heif mif1", pad("\x00\x00\x00\x18ftypmif1\x00\x00\x00\x00mif1heic"), "image/heif", "heif", true},
		{"heic sequence", pad("\x00\x00\x00\x18ftyphevc\x00\x00\x00\x00msf1hevc"), "image/heic", "heic", true},
		{"heif with heic compatible", pad("\x00\x00\x00\x18ftypabcd\x00\x00\x00\x00mif1heic"), "image/heic", "heic", true},
		{"avif", pad("\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1miaf"), "", "", false},
		{"mp4", pad("\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"), "", "", false},
		{"exe", pad("MZ\x90\x00\x03\x00\x00\x00"), "", "", false},
		{"elf", pad("\x7fELF\x02\x01\x01"), "", "", false},
		{"zip (docx)", pad("PK\x03\x04\x14\x00"), "", "", false},
		{"gif", pad("GIF89a"), "", "", false},
		{"html", []byte("<!DOCTYPE html><html><script>alert(1)</script>"), "", "", false},
		{"svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>`), "", "", false},
		{"text", []byte("hello"), "", "", false},
		{"empty", nil, "", "", false},
		{"short ftyp", []byte("\x00\x00\x00\x18ftyphei"), "", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			head := c.head
			if len(head) > sniffLen {
				head = head[:sniffLen]
			}
			typ, ext, ok := DetectType(head)
			if ok != c.ok || (ok && (typ != c.wantType || ext != c.wantExt)) {
				t.Errorf("DetectType = %q %q %v, want %q %q %v", typ, ext, ok, c.wantType, c.wantExt, c.ok)
			}
		})
	}
}

func TestSanitizeFilename(t *testing.T) {
	long := strings.Repeat("a", 300)
	cases := []struct{ in, want string }{
		{"řidičák.pdf", "řidičák.pdf"},
		{"r\u030cidic\u030ca\u0301k.pdf", "řidičák.pdf"}, // NFD (macOS) → NFC
		{"../../etc/passwd.pdf", "passwd.pdf"},
		{`..\..\boot.ini.pdf`, "boot.ini.pdf"},
		{"/abs/path/", "x.pdf"},
		{"a\x00b\x1b[31m.pdf", "ab[31m.pdf"},
		{"invoice\u202Efdp.exe", "invoicefdp.exe"},
		{"zero\u200Bwidth.pdf", "zerowidth.pdf"},
		{"  spaced name.pdf  ", "spaced name.pdf"},
		{"..", "x.pdf"},
		{"...", "x.pdf"},
		{"", "x.pdf"},
		{"\xff\xfe.pdf", ".pdf"},
		{"паспорт 護照.pdf", "паспорт 護照.pdf"},
		{long + ".pdf", strings.Repeat("a", 251) + ".pdf"},
		{long, strings.Repeat("a", 255)},
		{strings.Repeat("ž", 256), strings.Repeat("ž", 255)},
		{"a." + strings.Repeat("b", 300), "a." + strings.Repeat("b", 253)},
	}
	for _, c := range cases {
		if got := SanitizeFilename(c.in, "x.pdf"); got != c.want {
			t.Errorf("SanitizeFilename(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestIsCountryCode(t *testing.T) {
	for code, want := range map[string]bool{
		"CZ": true, "SK": true, "DE": true, "UA": true, "XK": true, "GB": true,
		"cz": false, "XX": false, "EU": false, "ZZ": false, "AA": false, "CZE": false, "C": false, "": false, "1A": false,
	} {
		if got := IsCountryCode(code); got != want {
			t.Errorf("IsCountryCode(%q) = %v, want %v", code, got, want)
		}
	}
}

// formBody builds a multipart body; a part named "file" gets a file name.
func formBody(t *testing.T, parts ...[2]string) *multipart.Reader {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, p := range parts {
		var pw io.Writer
		var err error
		if p[0] == "file" {
			pw, err = w.CreateFormFile("file", "scan.pdf")
		} else {
			pw, err = w.CreateFormField(p[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write([]byte(p[1]))
	}
	_ = w.Close()
	return multipart.NewReader(&buf, w.Boundary())
}

func TestReadUpload(t *testing.T) {
	// A folder of its own: other tests and processes spool uploads too.
	t.Setenv("TMPDIR", t.TempDir())
	pdf := "%PDF-1.7\n" + strings.Repeat("x", 2000)
	t.Run("metadata before and after the file", func(t *testing.T) {
		up, ch, err := readUpload(formBody(t,
			[2]string{"number", " A-1 "}, [2]string{"file", pdf}, [2]string{"country", "sk"},
			[2]string{"valid_until", "2030-01-31"}, [2]string{"meta", `{"b": 1}`}, [2]string{"unknown", "ignored"},
			[2]string{"valid_from", ""}), 1<<20, "passport")
		if err != nil {
			t.Fatal(err)
		}
		defer up.remove()
		sum := sha256.Sum256([]byte(pdf))
		if up.size != int64(len(pdf)) || up.sha256 != hex.EncodeToString(sum[:]) || up.mimeType != "application/pdf" || up.ext != "pdf" || up.originalName != "scan.pdf" {
			t.Errorf("upload %+v", up)
		}
		if err := up.rewind(); err != nil {
			t.Fatal(err)
		}
		if got, _ := io.ReadAll(up.file); string(got) != pdf {
			t.Errorf("spooled %d bytes, not the file", len(got))
		}
		if *ch.Number.Value != "A-1" || *ch.Country.Value != "SK" || ch.ValidUntil.Value.String() != "2030-01-31" ||
			string(*ch.Meta.Value) != `{"b":1}` || ch.ValidFrom.Set {
			t.Errorf("change %+v", ch)
		}
	})
	t.Run("size limit is inclusive", func(t *testing.T) {
		up, _, err := readUpload(formBody(t, [2]string{"file", pdf}), int64(len(pdf)), "passport")
		if err != nil {
			t.Fatalf("exactly the limit: %v", err)
		}
		name := up.file.Name()
		up.remove()
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("temporary file left after remove: %v", err)
		}
		_, _, err = readUpload(formBody(t, [2]string{"file", pdf}), int64(len(pdf))-1, "passport")
		if apperr.KindOf(err) != apperr.KindPayloadTooLarge {
			t.Errorf("one byte over: %v", err)
		}
		_, _, err = readUpload(formBody(t, [2]string{"file", pdf}), 100, "passport")
		if apperr.KindOf(err) != apperr.KindPayloadTooLarge {
			t.Errorf("over the limit within the sniffed head: %v", err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name  string
			parts [][2]string
			kind  apperr.Kind
			field string
		}{
			{"no file", [][2]string{{"number", "1"}}, apperr.KindValidation, "file"},
			{"two files", [][2]string{{"file", pdf}, {"file", pdf}}, apperr.KindValidation, "file"},
			{"wrong type", [][2]string{{"file", "MZ" + strings.Repeat("\x00", 600)}}, apperr.KindUnsupportedMediaType, ""},
			{"bad date", [][2]string{{"file", pdf}, {"valid_until", "31.12.2030"}}, apperr.KindValidation, "valid_until"},
			{"bad meta", [][2]string{{"file", pdf}, {"meta", "[]"}}, apperr.KindValidation, "meta"},
			{"long number", [][2]string{{"file", pdf}, {"number", strings.Repeat("1", 101)}}, apperr.KindValidation, "number"},
			{"number part too big", [][2]string{{"file", pdf}, {"number", strings.Repeat("1", 5000)}}, apperr.KindValidation, "number"},
			{"country", [][2]string{{"file", pdf}, {"country", "Czech Republic"}}, apperr.KindValidation, "country"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				files := tempFiles(t)
				up, _, err := readUpload(formBody(t, c.parts...), 1<<20, "passport")
				if apperr.KindOf(err) != c.kind {
					t.Fatalf("error %v, want kind %d", err, c.kind)
				}
				var ae *apperr.Error
				if c.field != "" && (!errorsAs(err, &ae) || len(ae.Fields[c.field]) == 0) {
					t.Errorf("no message for %s: %v", c.field, err)
				}
				if up != nil {
					t.Error("an upload returned with an error")
				}
				if after := tempFiles(t); after > files {
					t.Errorf("%d temporary files left behind", after-files)
				}
			})
		}
	})
	t.Run("file input left empty", func(t *testing.T) {
		// A browser sends an empty part without a file name for it: the
		// file is missing, not of a wrong type.
		body := "--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"\"\r\nContent-Type: application/octet-stream\r\n\r\n\r\n" +
			"--b\r\nContent-Disposition: form-data; name=\"number\"\r\n\r\nA-1\r\n--b--\r\n"
		_, _, err := readUpload(multipart.NewReader(strings.NewReader(body), "b"), 1<<20, "passport")
		var ae *apperr.Error
		if apperr.KindOf(err) != apperr.KindValidation || !errorsAs(err, &ae) || ae.Fields["file"][0] != "The file field is required." {
			t.Errorf("error %v, want the file field required", err)
		}
	})
	t.Run("broken body", func(t *testing.T) {
		mr := multipart.NewReader(strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF-1.7 cut"), "b")
		if _, _, err := readUpload(mr, 1<<20, "passport"); apperr.KindOf(err) != apperr.KindBadRequest {
			t.Errorf("error %v, want BadRequest", err)
		}
	})
}

func errorsAs(err error, target **apperr.Error) bool {
	e, ok := err.(*apperr.Error)
	*target = e
	return ok
}

// tempFiles counts spooled uploads in the temporary directory.
func tempFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "konvoj-upload-") {
			n++
		}
	}
	return n
}

func TestParseJSONChange(t *testing.T) {
	body := func(s string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ch, err := parseJSONChange(body(`{"number": null, "country": "de", "valid_from": "", "meta": {"a": [1]}, "status": "valid"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !ch.Number.Set || ch.Number.Value != nil || *ch.Country.Value != "DE" || !ch.ValidFrom.Set || ch.ValidFrom.Value != nil ||
		ch.ValidUntil.Set || string(*ch.Meta.Value) != `{"a":[1]}` {
		t.Errorf("change %+v", ch)
	}
	m := metadata{Number: ptr("old"), Meta: json.RawMessage(`{"x":1}`)}.apply(ch)
	if m.Number != nil || *m.Country != "DE" || string(m.Meta) != `{"a":[1]}` {
		t.Errorf("applied %+v", m)
	}
	if m := (metadata{Meta: json.RawMessage(`{"x":1}`)}).apply(change{Meta: opt[json.RawMessage]{Set: true}}); string(m.Meta) != "{}" {
		t.Errorf("meta null gives %s", m.Meta)
	}

	_, err = parseJSONChange(body(`{"number": 5, "country": "XX", "valid_until": "2026-02-30", "meta": [1], "valid_from": true}`))
	var ae *apperr.Error
	if !errorsAs(err, &ae) {
		t.Fatalf("error %v", err)
	}
	for _, f := range MetadataFields {
		if len(ae.Fields[f]) == 0 {
			t.Errorf("no message for %s: %v", f, ae.Fields)
		}
	}
}

func ptr[T any](v T) *T { return &v }
