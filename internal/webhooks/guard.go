package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
)

// The SSRF guard (docs/webhooks.md, "Where deliveries may go"): a webhook
// URL is chosen by a tenant's admin, and Konvoj connects to it from inside
// the operator's network. Its port must be 1-65535. Unless AllowPrivate is
// on, the URL must be https and its host must not be, nor resolve to, an
// address that is not globally reachable (Blocked). The name is resolved when the endpoint
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
	ReasonPort         = "the port is not 1-65535"
)

// errBlocked is a connection the dialer refused.
var errBlocked = errors.New("the address is not a public one (loopback, private, link-local, multicast, unspecified, reserved or special-purpose), which webhooks may not reach")

// globalUnicast6 is the only IPv6 space allocated for global unicast: the
// rest holds loopback, unspecified, IPv4-compatible (::127.0.0.1) and
// IPv4-translated forms, NAT64 (64:ff9b::/96, 64:ff9b:1::/48), discard-only
// (100::/64), segment routing SIDs (5f00::/16), unique-local, link-local,
// site-local and multicast addresses, none of which a webhook may reach.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

// blockedPrefixes are the ranges of the IANA special-purpose address
// registries that are not globally reachable and that netip's predicates
// do not name (loopback, private, link-local, multicast, unspecified are
// checked by those).
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation (TEST-NET-1)
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast (deprecated)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation (TEST-NET-2)
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation (TEST-NET-3)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments: Teredo (2001::/32), benchmarking, ORCHID
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("2002::/16"),       // 6to4 (deprecated): it carries any IPv4 address, the inner ones too
	netip.MustParsePrefix("3fff::/20"),       // documentation
}

// Blocked reports whether a webhook may not be sent to the address: it is
// not globally reachable by the IANA special-purpose registries of IPv4
// and IPv6 (docs/webhooks.md, "Where deliveries may go"). An IPv4-mapped
// address (::ffff:a.b.c.d) counts as its IPv4 address; an address with a
// zone (fe80::1%eth0) is never global. This one check serves both the save
// (CheckURL) and every connection (Dialer).
func Blocked(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.Zone() != "" || (a.Is6() && !globalUnicast6.Contains(a)) {
		return true
	}
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
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
	// url.Parse takes any digits as a port; empty is the scheme's default.
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return &URLError{Reason: ReasonPort}
		}
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
