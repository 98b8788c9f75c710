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
			[2]string{"valid_from", ""}), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		defer up.Remove()
		sum := sha256.Sum256([]byte(pdf))
		if up.Size() != int64(len(pdf)) || up.SHA256() != hex.EncodeToString(sum[:]) || up.MimeType() != "application/pdf" ||
			up.Ext() != "pdf" || up.OriginalName() != "scan.pdf" {
			t.Errorf("upload %+v", up)
		}
		if *ch.Number.Value != "A-1" || *ch.Country.Value != "SK" || ch.ValidUntil.Value.String() != "2030-01-31" ||
			string(*ch.Meta.Value) != `{"b":1}` || ch.ValidFrom.Set {
			t.Errorf("change %+v", ch)
		}
	})
	t.Run("size limit is inclusive", func(t *testing.T) {
		up, _, err := readUpload(formBody(t, [2]string{"file", pdf}), int64(len(pdf)))
		if err != nil {
			t.Fatalf("exactly the limit: %v", err)
		}
		up.Remove()
		if n := tempFiles(t); n != 0 {
			t.Errorf("%d temporary files left after remove", n)
		}
		_, _, err = readUpload(formBody(t, [2]string{"file", pdf}), int64(len(pdf))-1)
		if apperr.KindOf(err) != apperr.KindPayloadTooLarge {
			t.Errorf("one byte over: %v", err)
		}
		_, _, err = readUpload(formBody(t, [2]string{"file", pdf}), 100)
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
				up, _, err := readUpload(formBody(t, c.parts...), 1<<20)
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
		_, _, err := readUpload(multipart.NewReader(strings.NewReader(body), "b"), 1<<20)
		var ae *apperr.Error
		if apperr.KindOf(err) != apperr.KindValidation || !errorsAs(err, &ae) || ae.Fields["file"][0] != "The file field is required." {
			t.Errorf("error %v, want the file field required", err)
		}
	})
	t.Run("broken body", func(t *testing.T) {
		mr := multipart.NewReader(strings.NewReader("--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\n%PDF-1.7 cut"), "b")
		if _, _, err := readUpload(mr, 1<<20); apperr.KindOf(err) != apperr.KindBadRequest {
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
