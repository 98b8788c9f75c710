package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The committed static/app.css must be what `make css` builds from the
// current templates, and static/htmx.min.js and static/workbox/ the pinned
// npm files: a class added to a template without rebuilding would
// silently do nothing.
func TestCommittedAssetsAreCurrent(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(repoRoot, "node_modules", ".bin", "tailwindcss")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("tailwindcss is not installed (scripts/install-deps.sh runs npm ci): %v", err)
	}
	out := filepath.Join(t.TempDir(), "app.css")
	cmd := exec.Command("node_modules/.bin/tailwindcss", "-c", "tailwind.config.js", "-i", "static/input.css", "-o", out, "--minify")
	cmd.Dir = repoRoot
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tailwindcss: %v\n%s", err, b)
	}
	built, _ := os.ReadFile(out)
	committed, _ := os.ReadFile(filepath.Join(repoRoot, "static", "app.css"))
	if !bytes.Equal(built, committed) {
		t.Error("static/app.css is out of date: run `make css` and commit it")
	}
	pinned, err := os.ReadFile(filepath.Join(repoRoot, "node_modules", "htmx.org", "dist", "htmx.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	copied, _ := os.ReadFile(filepath.Join(repoRoot, "static", "htmx.min.js"))
	if !bytes.Equal(pinned, copied) {
		t.Error("static/htmx.min.js differs from the pinned htmx.org: run `make htmx` and commit it")
	}
	workbox := map[string]string{"workbox-sw.js": "workbox-sw/build/workbox-sw.js", "LICENSE": "workbox-sw/LICENSE"}
	for _, m := range []string{"core", "routing", "strategies", "precaching"} {
		workbox["workbox-"+m+".prod.js"] = "workbox-" + m + "/build/workbox-" + m + ".prod.js"
	}
	for name, src := range workbox {
		pinned, err := os.ReadFile(filepath.Join(repoRoot, "node_modules", src))
		if err != nil {
			t.Fatal(err)
		}
		copied, _ := os.ReadFile(filepath.Join(repoRoot, "static", "workbox", name))
		if !bytes.Equal(pinned, copied) {
			t.Errorf("static/workbox/%s differs from the pinned %s: run `make workbox` and commit it", name, src)
		}
	}
}
