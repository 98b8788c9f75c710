package uploads

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"github.com/konvoj/konvoj/internal/i18n"
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

// TestReceiveFile: the file is spooled whole, its SHA-256 and size are
// those of the bytes sent, and Remove deletes the spool file.
func TestReceiveFile(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	pdf := "%PDF-1.7\n" + strings.Repeat("x", 2000)
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile("file", "scan.pdf")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write([]byte(pdf))
	_ = w.WriteField("note", "seen")
	_ = w.Close()
	label := func(name string) i18n.Message { return i18n.Message{Key: name} }
	r, values, err := ReceiveFile(multipart.NewReader(&buf, w.Boundary()), 1<<20, "evidence", map[string]int64{"note": 100}, label)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Remove()
	sum := sha256.Sum256([]byte(pdf))
	if r.Size() != int64(len(pdf)) || r.SHA256() != hex.EncodeToString(sum[:]) || values["note"] != "seen" {
		t.Errorf("received %+v, values %v", r, values)
	}
	if err := r.rewind(); err != nil {
		t.Fatal(err)
	}
	if got, _ := io.ReadAll(r.file); string(got) != pdf {
		t.Errorf("spooled %d bytes, not the file", len(got))
	}
	name := r.file.Name()
	r.Remove()
	if _, err := os.Stat(name); !os.IsNotExist(err) {
		t.Errorf("temporary file left after remove: %v", err)
	}
}
