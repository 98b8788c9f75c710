package api_test

import (
	"bytes"
	"context"
	"net"
	"net/url"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/konvoj/konvoj/internal/auth"
	"github.com/konvoj/konvoj/internal/webhooks"
	"github.com/konvoj/konvoj/web"
	"github.com/konvoj/konvoj/web/app"
	"github.com/konvoj/konvoj/web/webtest"
)

// BenchmarkLiveStreams holds 2,000 streams open on one instance and fans 50
// events a second out to them for 10 seconds (docs/performance.md, "Live
// updates"). The clients are bare connections that read into one buffer, so
// the memory and CPU measured are the server's, less what a bare reader
// costs. Run: go test -run '^$' -bench BenchmarkLiveStreams -benchtime 1x ./web/api/
func BenchmarkLiveStreams(b *testing.B) {
	const streams, perSecond, seconds = 2000, 50, 10
	env := webtest.New(b, webtest.WithApp(func(o *app.Options) {
		o.Server.Live = web.LiveOptions{PerUser: streams, PerCompany: streams}
	}))
	co := env.Company("Bench", "enterprise")
	admin := env.As(co, auth.RoleAdmin)
	u, _ := url.Parse(env.Server.URL)
	ctx := context.Background()

	for range b.N {
		heapBefore := heapInUse()
		var frames atomic.Int64
		var wg sync.WaitGroup
		conns := make([]net.Conn, 0, streams)
		for range streams {
			c, err := net.Dial("tcp", u.Host)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := c.Write([]byte("GET /api/v0/events HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + admin.Token + "\r\nAccept: text/event-stream\r\n\r\n")); err != nil {
				b.Fatal(err)
			}
			conns = append(conns, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					frames.Add(int64(bytes.Count(buf[:n], []byte("\nevent: "))))
					if err != nil {
						return
					}
				}
			}()
		}
		for env.App.Server.Streams() < streams {
			time.Sleep(10 * time.Millisecond)
		}
		heapOpen := heapInUse()
		cpuBefore := cpuTime()
		start := time.Now()
		tick := time.NewTicker(time.Second / perSecond)
		// Each event its own transaction, as changes are; several commit at
		// once when the database is slower than the rate.
		var producers sync.WaitGroup
		for i := range perSecond * seconds {
			<-tick.C
			producers.Add(1)
			go func() {
				defer producers.Done()
				tx, err := env.DB.Begin(ctx)
				if err != nil {
					b.Error(err)
					return
				}
				defer tx.Rollback(ctx)
				if err := webhooks.Emit(ctx, tx, co, webhooks.ImportCompleted, map[string]any{"n": i, "rows_total": 120, "status": "completed"}); err != nil {
					b.Error(err)
					return
				}
				if err := tx.Commit(ctx); err != nil {
					b.Error(err)
				}
			}()
		}
		producers.Wait()
		tick.Stop()
		produced := time.Since(start)
		want := int64(streams * perSecond * seconds)
		for frames.Load() < want && time.Since(start) < time.Duration(seconds+10)*time.Second {
			time.Sleep(10 * time.Millisecond)
		}
		elapsed := time.Since(start)
		cpu := cpuTime() - cpuBefore
		heapPeak := heapInUse()
		// A reader the loaded machine starved past its buffer is dropped
		// (as a slow client is): counted, not a failure.
		b.ReportMetric(float64(env.App.Server.Dropped()), "dropped")
		b.ReportMetric(float64(frames.Load())/float64(want)*100, "delivered-%")
		for _, c := range conns {
			c.Close()
		}
		wg.Wait()
		b.ReportMetric(float64(heapOpen-heapBefore)/streams, "heap-B/stream")
		b.ReportMetric(float64(heapPeak-heapBefore)/streams, "heap-after-B/stream")
		b.ReportMetric(cpu.Seconds()/elapsed.Seconds()*100, "cpu-%")
		b.ReportMetric(float64(cpu.Microseconds())/float64(streams)/elapsed.Seconds(), "cpu-µs/stream/s")
		b.ReportMetric(float64(frames.Load())/elapsed.Seconds(), "frames/s")
		b.ReportMetric(float64(perSecond*seconds)/produced.Seconds(), "events/s")
		b.ReportMetric((elapsed-produced).Seconds()*1000, "drain-ms")
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
