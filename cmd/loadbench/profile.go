package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// profiler saves a CPU profile and an allocation profile of the server,
// taken over the same window, from its PPROF_ADDR listener.
type profiler struct {
	addr string // host:port of the server's pprof listener
	dir  string // where the profiles go
	bin  string // the server binary, for symbols
}

type profileFile struct {
	Kind, Path string
	Err        error
}

// start begins both profiles for secs seconds; wait returns the files.
func (p profiler) start(prefix string, secs int) (wait func() []profileFile) {
	kinds := []struct{ kind, path string }{
		{"cpu", "/debug/pprof/profile?seconds=" + fmt.Sprint(secs)},
		// With seconds, the allocation profile is the difference over the
		// window: what the requests of the window allocated.
		{"allocs", "/debug/pprof/allocs?seconds=" + fmt.Sprint(secs)},
	}
	files := make([]profileFile, len(kinds))
	var wg sync.WaitGroup
	for i, k := range kinds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := profileFile{Kind: k.kind, Path: filepath.Join(p.dir, prefix+"-"+k.kind+".pb.gz")}
			f.Err = fetch("http://"+p.addr+k.path, f.Path, time.Duration(secs+30)*time.Second)
			files[i] = f
		}()
	}
	return func() []profileFile { wg.Wait(); return files }
}

func fetch(url, path string, timeout time.Duration) error {
	c := http.Client{Timeout: timeout}
	res, err := c.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 512))
		return fmt.Errorf("%s: %s %s", url, res.Status, b)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// top is `go tool pprof -top` of a profile, its first n functions: by CPU
// time, or by bytes allocated.
func (p profiler) top(f profileFile, n int) string {
	if f.Err != nil {
		return fmt.Sprintf("%s profile failed: %v\n", f.Kind, f.Err)
	}
	args := []string{"tool", "pprof", "-top", fmt.Sprintf("-nodecount=%d", n)}
	if f.Kind == "allocs" {
		args = append(args, "-sample_index=alloc_space")
	}
	args = append(args, p.bin, f.Path)
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return fmt.Sprintf("go tool pprof %s: %v\n%s", f.Path, err, out)
	}
	return strings.TrimRight(string(out), "\n") + "\n"
}
