package webhooks_test

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"testing"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/konvoj/konvoj/internal/webhooks"
)

// dnsServer is a DNS server on 127.0.0.1 that answers A and AAAA queries
// from its table, so a test can have names resolve to inner addresses
// without touching any real name server.
func dnsServer(t *testing.T, table map[string][]netip.Addr) *net.Resolver {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			_ = b.StartQuestions()
			_ = b.Question(q)
			_ = b.StartAnswers()
			name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
			rh := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
			for _, a := range table[name] {
				switch {
				case q.Type == dnsmessage.TypeA && a.Is4():
					_ = b.AResource(rh, dnsmessage.AResource{A: a.As4()})
				case q.Type == dnsmessage.TypeAAAA && a.Is6():
					_ = b.AAAAResource(rh, dnsmessage.AAAAResource{AAAA: a.As16()})
				}
			}
			msg, err := b.Finish()
			if err == nil {
				_, _ = pc.WriteTo(msg, addr)
			}
		}
	}()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", pc.LocalAddr().String())
	}}
}

func TestGuardRefusesInnerAddresses(t *testing.T) {
	ips := func(s ...string) []netip.Addr {
		var out []netip.Addr
		for _, a := range s {
			out = append(out, netip.MustParseAddr(a))
		}
		return out
	}
	resolver := dnsServer(t, map[string][]netip.Addr{
		"loopback.hooks.test":    ips("127.0.0.1"),
		"private.hooks.test":     ips("10.0.0.1"),
		"metadata.hooks.test":    ips("169.254.169.254"),
		"v6loopback.hooks.test":  ips("::1"),
		"mixed.hooks.test":       ips("93.184.215.14", "10.0.0.1"),
		"public.hooks.test":      ips("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
		"mapped.hooks.test":      ips("::ffff:10.0.0.1"),
		"cgnat.hooks.test":       ips("100.64.0.1"),
		"unspecified.hooks.test": ips("0.0.0.0"),
	})
	g := webhooks.Guard{Resolver: resolver}
	ctx := context.Background()
	for raw, want := range map[string]string{
		"https://127.0.0.1/hook":              webhooks.ReasonPrivate,
		"https://10.0.0.1/hook":               webhooks.ReasonPrivate,
		"https://169.254.169.254/latest":      webhooks.ReasonPrivate,
		"https://[::1]/hook":                  webhooks.ReasonPrivate,
		"https://[fe80::1]/hook":              webhooks.ReasonPrivate,
		"https://[::ffff:127.0.0.1]/hook":     webhooks.ReasonPrivate,
		"https://224.0.0.1/hook":              webhooks.ReasonPrivate,
		"https://0.0.0.0/hook":                webhooks.ReasonPrivate,
		"https://loopback.hooks.test/hook":    webhooks.ReasonPrivate,
		"https://private.hooks.test/hook":     webhooks.ReasonPrivate,
		"https://metadata.hooks.test/hook":    webhooks.ReasonPrivate,
		"https://v6loopback.hooks.test/hook":  webhooks.ReasonPrivate,
		"https://mixed.hooks.test/hook":       webhooks.ReasonPrivate,
		"https://mapped.hooks.test/hook":      webhooks.ReasonPrivate,
		"https://cgnat.hooks.test/hook":       webhooks.ReasonPrivate,
		"https://unspecified.hooks.test/hook": webhooks.ReasonPrivate,
		"https://nowhere.hooks.test/hook":     webhooks.ReasonUnresolvable,
		"http://public.hooks.test/hook":       webhooks.ReasonHTTPS,
		"https://user:pw@public.hooks.test/":  webhooks.ReasonCredentials,
		"ftp://public.hooks.test/":            webhooks.ReasonInvalid,
		"/relative":                           webhooks.ReasonInvalid,
		"https://public.hooks.test/hook":      "",
		"https://93.184.215.14:8443/hook":     "",
	} {
		err := g.CheckURL(ctx, raw)
		var ue *webhooks.URLError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", raw, err)
		case want != "" && (!errors.As(err, &ue) || ue.Reason != want):
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
	// The real resolver: localhost is the machine itself.
	if err := (webhooks.Guard{}).CheckURL(ctx, "https://localhost/hook"); err == nil {
		t.Error("https://localhost/hook accepted")
	}
	// With the setting on, inner addresses and plain http are allowed.
	for _, raw := range []string{"http://127.0.0.1:8080/hook", "https://10.0.0.1/hook", "https://private.hooks.test/hook"} {
		if err := (webhooks.Guard{AllowPrivate: true, Resolver: resolver}).CheckURL(ctx, raw); err != nil {
			t.Errorf("%s with WEBHOOK_ALLOW_PRIVATE: %v", raw, err)
		}
	}
}

// Every address of the IANA special-purpose registries that is not
// globally reachable is refused, in every form a URL can write it (IPv4
// inside IPv6 among them), and public addresses pass.
func TestBlockedSpecialPurposeAddresses(t *testing.T) {
	for _, tc := range []struct {
		addr    string
		blocked bool
	}{
		// From the issue.
		{"::127.0.0.1", true},       // IPv4-compatible (deprecated), the loopback inside
		{"::8.8.8.8", true},         // IPv4-compatible, whatever is inside
		{"2002:7f00:1::", true},     // 6to4 of 127.0.0.1
		{"2002:5db8:d70e::1", true}, // 6to4 of a public address: 6to4 is deprecated, refused whole
		{"2001:db8::1", true},       // documentation
		// IPv4.
		{"0.0.0.0", true}, {"0.1.2.3", true}, {"10.1.2.3", true}, {"100.64.0.1", true}, {"100.127.255.254", true},
		{"127.0.0.1", true}, {"127.255.255.254", true}, {"169.254.169.254", true}, {"172.16.0.1", true}, {"172.31.255.254", true},
		{"192.0.0.8", true}, {"192.0.2.1", true}, {"192.88.99.1", true}, {"192.168.1.1", true}, {"198.18.0.1", true},
		{"198.19.255.254", true}, {"198.51.100.7", true}, {"203.0.113.9", true}, {"224.0.0.1", true}, {"239.255.255.250", true},
		{"240.0.0.1", true}, {"255.255.255.255", true},
		// IPv6.
		{"::", true}, {"::1", true}, {"::ffff:127.0.0.1", true}, {"::ffff:10.0.0.1", true}, {"::ffff:0:7f00:1", true},
		{"64:ff9b::7f00:1", true}, {"64:ff9b::808:808", true}, {"64:ff9b:1::a00:1", true}, {"100::1", true},
		{"2001::1", true}, {"2001:0:4136:e378:8000:63bf:3fff:fdd2", true}, {"2001:2::1", true}, {"2001:10::1", true},
		{"2001:1ff::1", true}, {"2001:db8:85a3::8a2e:370:7334", true}, {"3fff::1", true}, {"3fff:fff::1", true},
		{"5f00::1", true}, {"fc00::1", true}, {"fd12:3456::1", true}, {"fe80::1", true}, {"febf::1", true},
		{"fec0::1", true}, {"ff02::1", true}, {"ff0e::1", true}, {"1::1", true}, {"4000::1", true}, {"fe80::1%eth0", true},
		// Public.
		{"93.184.215.14", false}, {"8.8.8.8", false}, {"100.128.0.1", false}, {"172.32.0.1", false}, {"198.20.0.1", false},
		{"::ffff:93.184.215.14", false}, {"2606:2800:21f:cb07:6820:80da:af6b:8b2c", false}, {"2001:4860:4860::8888", false},
		{"2001:200::1", false}, {"2a00:1450:4001:81c::200e", false}, {"3ffe::1", false},
	} {
		if got := webhooks.Blocked(netip.MustParseAddr(tc.addr)); got != tc.blocked {
			t.Errorf("Blocked(%s) = %v, want %v", tc.addr, got, tc.blocked)
		}
	}
}

// A URL with a port outside 1-65535 is refused, as is one whose host is a
// special-purpose address in any written form; WEBHOOK_ALLOW_PRIVATE lifts
// the address rules, never the port's.
func TestGuardRefusesSpecialURLs(t *testing.T) {
	ctx := context.Background()
	for raw, want := range map[string]string{
		"https://[::127.0.0.1]/":           webhooks.ReasonPrivate,
		"https://[2002:7f00:1::]/":         webhooks.ReasonPrivate,
		"https://[2001:db8::1]/":           webhooks.ReasonPrivate,
		"https://[::ffff:7f00:1]/":         webhooks.ReasonPrivate,
		"https://[64:ff9b::a9fe:a9fe]/":    webhooks.ReasonPrivate,
		"https://[fe80::1%25eth0]/":        webhooks.ReasonPrivate,
		"https://192.0.2.10/":              webhooks.ReasonPrivate,
		"https://93.184.215.14:0/hook":     webhooks.ReasonPort,
		"https://93.184.215.14:99999/hook": webhooks.ReasonPort,
		"https://93.184.215.14:65536/hook": webhooks.ReasonPort,
		"https://93.184.215.14:x/hook":     webhooks.ReasonInvalid,
		"https://93.184.215.14:65535/hook": "",
		"https://93.184.215.14:1/hook":     "",
		"https://93.184.215.14:/hook":      "",
		"https://[2001:4860:4860::8888]/":  "",
	} {
		err := (webhooks.Guard{}).CheckURL(ctx, raw)
		var ue *webhooks.URLError
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: refused: %v", raw, err)
		case want != "" && (!errors.As(err, &ue) || ue.Reason != want):
			t.Errorf("%s: got %v, want %q", raw, err, want)
		}
	}
	allow := webhooks.Guard{AllowPrivate: true}
	for _, raw := range []string{"http://127.0.0.1:0/hook", "http://127.0.0.1:99999/hook"} {
		var ue *webhooks.URLError
		if err := allow.CheckURL(ctx, raw); !errors.As(err, &ue) || ue.Reason != webhooks.ReasonPort {
			t.Errorf("%s with WEBHOOK_ALLOW_PRIVATE: %v, want %q", raw, err, webhooks.ReasonPort)
		}
	}
	if err := allow.CheckURL(ctx, "https://[2001:db8::1]:8443/"); err != nil {
		t.Errorf("a documentation address with WEBHOOK_ALLOW_PRIVATE: %v", err)
	}
}

// The dialer checks the address it connects to, whatever the name
// resolved to when the endpoint was saved (DNS rebinding).
func TestGuardDialerRefusesInnerAddresses(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ctx := context.Background()
	if _, err := (webhooks.Guard{}).Dialer().DialContext(ctx, "tcp", ln.Addr().String()); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("dial %s: %v", ln.Addr(), err)
	}
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	if _, err := (webhooks.Guard{}).Dialer().DialContext(ctx, "tcp", net.JoinHostPort("localhost", port)); err == nil {
		t.Error("dial localhost: connected")
	}
	c, err := (webhooks.Guard{AllowPrivate: true}).Dialer().DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatalf("dial with WEBHOOK_ALLOW_PRIVATE: %v", err)
	}
	c.Close()
}

func TestBackoffSpansAboutADay(t *testing.T) {
	var total float64
	for a := 1; a < webhooks.MaxAttempts; a++ {
		total += webhooks.Backoff(a).Hours()
	}
	if total < 22 || total > 26 {
		t.Errorf("the retries span %.1f h, want about 24 h", total)
	}
}
