package web_test

import (
	"mime"
	"testing"

	"github.com/konvoj/konvoj/web"
)

func TestContentDisposition(t *testing.T) {
	cases := []struct{ name, want string }{
		{"scan.pdf", `attachment; filename="scan.pdf"; filename*=UTF-8''scan.pdf`},
		{"řidičák.pdf", `attachment; filename="ridicak.pdf"; filename*=UTF-8''%C5%99idi%C4%8D%C3%A1k.pdf`},
		{`pas "nový" \ 1.pdf`, `attachment; filename="pas _novy_ _ 1.pdf"; filename*=UTF-8''pas%20%22nov%C3%BD%22%20%5C%201.pdf`},
		{"護照.pdf", `attachment; filename="__.pdf"; filename*=UTF-8''%E8%AD%B7%E7%85%A7.pdf`},
		{"a;b=c%.pdf", `attachment; filename="a;b=c%.pdf"; filename*=UTF-8''a%3Bb%3Dc%25.pdf`},
		{"", `attachment; filename="download"`},
	}
	for _, c := range cases {
		got := web.ContentDisposition(c.name)
		if got != c.want {
			t.Errorf("ContentDisposition(%q)\n got %s\nwant %s", c.name, got, c.want)
		}
		if c.name == "" {
			continue
		}
		// A standard parser gets the exact name back (from filename*).
		disp, params, err := mime.ParseMediaType(got)
		if err != nil || disp != "attachment" || params["filename"] != c.name {
			t.Errorf("%q parses as %q %q (%v)", got, disp, params["filename"], err)
		}
	}
}

// TestDownloadName: a download carries the detected type's extension and
// no bidi or control characters, whatever name the client uploaded.
func TestDownloadName(t *testing.T) {
	cases := []struct{ name, mime, want string }{
		{"x.html", "application/pdf", "x.pdf"},
		{"scan.PDF", "application/pdf", "scan.PDF"},
		{"invoice\u202Efdp.html", "application/pdf", "invoicefdp.pdf"},
		{"photo\u202Egnp.exe", "image/png", "photognp.png"},
		{"photo.jpeg", "image/jpeg", "photo.jpeg"},
		{"photo", "image/jpeg", "photo.jpg"},
		{".html", "application/pdf", "download.pdf"},
		{"", "image/webp", "download.webp"},
		{"řidičák.pdf", "application/pdf", "řidičák.pdf"},
		{"a\x00b.pdf", "application/pdf", "ab.pdf"},
	}
	for _, c := range cases {
		if got := web.DownloadName(c.name, c.mime); got != c.want {
			t.Errorf("DownloadName(%q, %s) = %q, want %q", c.name, c.mime, got, c.want)
		}
	}
}
