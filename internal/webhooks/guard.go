package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// The SSRF guard (docs/webhooks.md, "Where deliveries may go"): a webhook
// URL is chosen by a tenant's admin, and Konvoj connects to it from inside
// the operator's network. Unless AllowPrivate is on, the URL must be https
// and its host must not be, nor resolve to, a loopback, private, link-local,
// multicast or unspecified address. The name is resolved when the endpoint
// is saved (a clear 422) and every connection checks the address it
// actually dials (Dialer), so a name that resolves elsewhere later (DNS
// rebinding) is refused too.

// Resolver looks a host name up (net.DefaultResolver; tests use one that
// asks their own DNS server).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Guard checks webhook targets.
type Guard struct {
	// AllowPrivate turns the guard off: plain http and inner addresses are
	// allowed (WEBHOOK_ALLOW_PRIVATE, for tests and development).
	AllowPrivate bool
	// Resolver resolves names at save time; nil is net.DefaultResolver.
	Resolver Resolver
}

// URLError is a refused URL and why.
type URLError struct{ Reason string }

func (e *URLError) Error() string { return "webhook url refused: " + e.Reason }

// Why a URL is refused.
const (
	ReasonInvalid      = "not an absolute http(s) URL"
	ReasonHTTPS        = "not https"
	ReasonCredentials  = "carries a user or password"
	ReasonPrivate      = "an inner address"
	ReasonUnresolvable = "the host name does not resolve"
)

// errBlocked is a connection the dialer refused.
var errBlocked = errors.New("the address is loopback, private, link-local, multicast or unspecified, which webhooks may not reach")

// blockedPrefixes are the special ranges netip's predicates do not name.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),     // "this network"
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),  // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"), // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),   // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),  // NAT64 to any IPv4, the inner ones too
}

// Blocked reports whether a webhook may not be sent to the address.
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// CheckURL checks a URL when an endpoint is saved: a *URLError says why it
// is refused; another error is a failure to check.
func (g Guard) CheckURL(ctx context.Context, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return &URLError{Reason: ReasonInvalid}
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !g.AllowPrivate {
			return &URLError{Reason: ReasonHTTPS}
		}
	default:
		return &URLError{Reason: ReasonInvalid}
	}
	if u.User != nil {
		return &URLError{Reason: ReasonCredentials}
	}
	if u.Fragment != "" {
		return &URLError{Reason: ReasonInvalid}
	}
	if g.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if a, err := netip.ParseAddr(host); err == nil {
		if Blocked(a) {
			return &URLError{Reason: ReasonPrivate}
		}
		return nil
	}
	r := g.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		var dnsErr *net.DNSError
		if err == nil || errors.As(err, &dnsErr) {
			return &URLError{Reason: ReasonUnresolvable}
		}
		return fmt.Errorf("resolve %s: %w", host, err)
	}
	for _, a := range addrs {
		if Blocked(a) {
			return &URLError{Reason: ReasonPrivate}
		}
	}
	return nil
}

// Dialer returns a dialer that refuses blocked addresses at connect time
// (after resolution, so for the address actually dialled), unless the
// guard allows them.
func (g Guard) Dialer() *net.Dialer {
	d := &net.Dialer{Timeout: connectTimeout}
	if g.AllowPrivate {
		return d
	}
	d.Control = func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("webhook dial %s: %w", address, err)
		}
		if Blocked(ap.Addr()) {
			return fmt.Errorf("webhook dial %s: %w", address, errBlocked)
		}
		return nil
	}
	return d
}
