// Package config turns the environment into a typed, validated Config once at
// start (docs/operations.md). Every variable has a default fit for local use.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Config is the whole runtime configuration of the konvoj binary.
type Config struct {
	DatabaseURL string
	HTTPAddr    string
	PublicURL   string
	// MetricsAddr, when set, is the only listener serving /metrics.
	MetricsAddr string
	// PprofAddr, when set, is a loopback address serving net/http/pprof
	// (profiling; make bench uses it). Never on HTTP_ADDR.
	PprofAddr string
	// DatabaseMaxConns is the request pool's size.
	DatabaseMaxConns int32
	// TrustedProxies are the networks whose X-Forwarded-For is believed.
	TrustedProxies []*net.IPNet

	JWTAlg           string
	JWTSecret        string
	JWTPublicKeyFile string
	JWTJWKSURL       string
	JWTIssuer        string
	JWTAudience      string

	OIDCIssuerURL    string
	OIDCClientID     string
	OIDCClientSecret string
	AuthDevLogin     bool
	// SessionSecret signs and encrypts the web session cookies (keys are
	// derived from it). Empty only when no web sign-in is possible.
	SessionSecret string

	StorageDisk       string
	StorageLocalDir   string
	S3Endpoint        string
	S3Region          string
	S3Bucket          string
	S3AccessKeyID     string
	S3SecretAccessKey string
	S3UsePathStyle    bool

	UploadMaxBytes int64

	RateLimitStore string
	RedisURL       string

	// SMTPURL is where e-mail goes (empty: it stays in the outbox table);
	// MailFrom is its sender.
	SMTPURL  string
	MailFrom string

	// WebhookAllowPrivate lets webhook URLs use plain http and point at
	// loopback and private addresses (tests, development).
	WebhookAllowPrivate bool

	LogFormat string
	LogLevel  slog.Level

	// Warnings are settings that work but deserve the operator's attention
	// (serve logs them at start).
	Warnings []string
}

// HTTPS reports whether PUBLIC_URL is https: Secure cookies and HSTS.
func (c Config) HTTPS() bool { return strings.HasPrefix(strings.ToLower(c.PublicURL), "https://") }

// Var describes one environment variable, for `konvoj serve --help` and the README.
type Var struct {
	Name, Default, Help string
}

// Vars lists every variable the binary reads.
var Vars = []Var{
	{"DATABASE_URL", "", "PostgreSQL connection URL (required for serve and migrate)"},
	{"HTTP_ADDR", ":8080", "listen address"},
	{"PUBLIC_URL", "http://localhost:8080", "external base URL (links, OIDC redirect); https also turns on HSTS and Secure cookies"},
	{"METRICS_ADDR", "", "when set, /metrics is served on this address only, not on HTTP_ADDR"},
	{"PPROF_ADDR", "", "when set, a loopback address (127.0.0.1:PORT, [::1]:PORT, localhost:PORT) serving Go's /debug/pprof/ profiles; never on HTTP_ADDR"},
	{"DATABASE_MAX_CONNS", "max(8, 4 × CPU cores)", "the server's PostgreSQL pool size"},
	{"TRUSTED_PROXIES", "", "comma-separated CIDRs whose X-Forwarded-For is believed for the client address (none: the peer address is the client)"},
	{"JWT_ALG", "HS256", "token algorithm: HS256, RS256 or ES256"},
	{"JWT_SECRET", "", "shared secret for HS256 (required when JWT_ALG=HS256)"},
	{"JWT_PUBLIC_KEY_FILE", "", "PEM public key for RS256/ES256"},
	{"JWT_JWKS_URL", "", "JWKS endpoint for RS256/ES256 (default: the OIDC issuer's jwks_uri)"},
	{"JWT_ISSUER", "", "required iss claim when set"},
	{"JWT_AUDIENCE", "", "required aud claim when set"},
	{"OIDC_ISSUER_URL", "", "identity provider for web sign-in"},
	{"OIDC_CLIENT_ID", "", "OIDC client id"},
	{"OIDC_CLIENT_SECRET", "", "OIDC client secret"},
	{"AUTH_DEV_LOGIN", "false", "development sign-in page (needs JWT_ALG=HS256; refused with an https PUBLIC_URL)"},
	{"SESSION_SECRET", "derived from JWT_SECRET", "secret (32+ characters) that signs and encrypts web session cookies; required when OIDC_ISSUER_URL is set and JWT_SECRET is empty"},
	{"STORAGE_DISK", "local", "file storage: local or s3"},
	{"STORAGE_LOCAL_DIR", "./data/files", "root folder for local files"},
	{"S3_ENDPOINT", "", "S3-compatible endpoint URL"},
	{"S3_REGION", "", "S3 region"},
	{"S3_BUCKET", "", "S3 bucket"},
	{"S3_ACCESS_KEY_ID", "", "S3 access key id"},
	{"S3_SECRET_ACCESS_KEY", "", "S3 secret access key"},
	{"S3_USE_PATH_STYLE", "false", "path-style S3 addressing (MinIO and most self-hosted servers)"},
	{"UPLOAD_MAX_BYTES", "20971520", "largest accepted upload in bytes"},
	{"RATE_LIMIT_STORE", "memory", "rate-limit buckets: memory or redis (none turns limiting off: load benchmarks only)"},
	{"REDIS_URL", "", "Redis URL for RATE_LIMIT_STORE=redis"},
	{"SMTP_URL", "", "outgoing e-mail: smtp://user:pass@host:587 (STARTTLS) or smtps://… (implicit TLS); unset: e-mails stay in the outbox table and the log"},
	{"MAIL_FROM", "Konvoj <noreply@localhost>", "sender of outgoing e-mail"},
	{"WEBHOOK_ALLOW_PRIVATE", "false", "true lets webhook URLs use plain http and point at loopback, private, link-local and other addresses that are not globally reachable (tests, development; never in production)"},
	{"LOG_FORMAT", "text in a terminal, else json", "json or text"},
	{"LOG_LEVEL", "info", "debug, info, warn or error"},
}

// Load reads and validates the configuration from getenv (os.Getenv in
// production). All problems are reported together, one per line.
func Load(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v, ok := lookup(getenv, name); ok {
			return v
		}
		return def
	}
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	boolVar := func(name string) bool {
		raw := get(name, "false")
		b, err := strconv.ParseBool(raw)
		if err != nil {
			bad("%s must be true or false, got %q", name, raw)
		}
		return b
	}

	c := Config{
		DatabaseURL:         get("DATABASE_URL", ""),
		HTTPAddr:            get("HTTP_ADDR", ":8080"),
		MetricsAddr:         get("METRICS_ADDR", ""),
		PprofAddr:           get("PPROF_ADDR", ""),
		PublicURL:           strings.TrimRight(get("PUBLIC_URL", "http://localhost:8080"), "/"),
		JWTAlg:              strings.ToUpper(get("JWT_ALG", "HS256")),
		JWTSecret:           get("JWT_SECRET", ""),
		JWTPublicKeyFile:    get("JWT_PUBLIC_KEY_FILE", ""),
		JWTJWKSURL:          get("JWT_JWKS_URL", ""),
		JWTIssuer:           get("JWT_ISSUER", ""),
		JWTAudience:         get("JWT_AUDIENCE", ""),
		OIDCIssuerURL:       get("OIDC_ISSUER_URL", ""),
		OIDCClientID:        get("OIDC_CLIENT_ID", ""),
		OIDCClientSecret:    get("OIDC_CLIENT_SECRET", ""),
		AuthDevLogin:        boolVar("AUTH_DEV_LOGIN"),
		StorageDisk:         strings.ToLower(get("STORAGE_DISK", "local")),
		StorageLocalDir:     get("STORAGE_LOCAL_DIR", "./data/files"),
		S3Endpoint:          get("S3_ENDPOINT", ""),
		S3Region:            get("S3_REGION", ""),
		S3Bucket:            get("S3_BUCKET", ""),
		S3AccessKeyID:       get("S3_ACCESS_KEY_ID", ""),
		S3SecretAccessKey:   get("S3_SECRET_ACCESS_KEY", ""),
		S3UsePathStyle:      boolVar("S3_USE_PATH_STYLE"),
		RateLimitStore:      strings.ToLower(get("RATE_LIMIT_STORE", "memory")),
		RedisURL:            get("REDIS_URL", ""),
		SMTPURL:             get("SMTP_URL", ""),
		MailFrom:            get("MAIL_FROM", "Konvoj <noreply@localhost>"),
		WebhookAllowPrivate: boolVar("WEBHOOK_ALLOW_PRIVATE"),
		LogFormat:           strings.ToLower(get("LOG_FORMAT", "")),
	}

	if c.DatabaseURL != "" {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			bad("DATABASE_URL must be a postgres:// URL")
		}
	}
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("PUBLIC_URL must be an absolute http(s) URL, got %q", c.PublicURL)
	}
	switch c.JWTAlg {
	case "HS256":
		if c.JWTSecret == "" {
			bad("JWT_SECRET is required when JWT_ALG=HS256")
		} else if len(c.JWTSecret) < 32 {
			// No minimum length is required (docs/operations.md), so a short secret (a test rig's
			// "secret") must not stop the server; it is only weak.
			c.Warnings = append(c.Warnings, "JWT_SECRET is shorter than 32 characters: tokens signed with it are easy to forge; use a long random secret in production")
		}
	case "RS256", "ES256":
		if c.JWTPublicKeyFile == "" && c.JWTJWKSURL == "" && c.OIDCIssuerURL == "" {
			bad("JWT_ALG=%s needs JWT_PUBLIC_KEY_FILE, JWT_JWKS_URL or OIDC_ISSUER_URL", c.JWTAlg)
		}
		if c.JWTPublicKeyFile != "" {
			if _, err := os.Stat(c.JWTPublicKeyFile); err != nil {
				bad("JWT_PUBLIC_KEY_FILE %q cannot be read: %v", c.JWTPublicKeyFile, err)
			}
		}
	default:
		bad("JWT_ALG must be HS256, RS256 or ES256, got %q", c.JWTAlg)
	}
	if c.JWTJWKSURL != "" {
		if u, err := url.Parse(c.JWTJWKSURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			bad("JWT_JWKS_URL must be an http(s) URL")
		}
	}
	if c.OIDCIssuerURL != "" && c.OIDCClientID == "" {
		bad("OIDC_CLIENT_ID is required when OIDC_ISSUER_URL is set")
	}
	c.SessionSecret = get("SESSION_SECRET", "")
	switch {
	case c.SessionSecret != "":
		if len(c.SessionSecret) < 32 {
			bad("SESSION_SECRET must be at least 32 characters")
		}
	case c.JWTSecret != "":
		// The session keys are derived from it with their own label, so the
		// cookie keys never equal the token secret.
		c.SessionSecret = c.JWTSecret
	case c.OIDCIssuerURL != "":
		bad("SESSION_SECRET is required when OIDC_ISSUER_URL is set and JWT_SECRET is empty")
	}
	if c.AuthDevLogin && c.JWTAlg != "HS256" {
		bad("AUTH_DEV_LOGIN=true is refused unless JWT_ALG=HS256")
	}
	if c.AuthDevLogin && strings.HasPrefix(strings.ToLower(c.PublicURL), "https://") {
		// An https address is a deployment: the development sign-in lists the
		// companies' users to anyone and signs in as any of them.
		bad("AUTH_DEV_LOGIN=true is refused with an https PUBLIC_URL (development only)")
	}
	if c.PprofAddr != "" && !loopback(c.PprofAddr) {
		// Profiles show code paths and memory: never offered to the network.
		bad("PPROF_ADDR must be a loopback address with a port (127.0.0.1:6060, [::1]:6060, localhost:6060), got %q", c.PprofAddr)
	}
	c.DatabaseMaxConns = int32(max(8, 4*runtime.NumCPU()))
	if raw, ok := lookup(getenv, "DATABASE_MAX_CONNS"); ok {
		if n, err := strconv.ParseInt(raw, 10, 32); err != nil || n < 1 {
			bad("DATABASE_MAX_CONNS must be a positive whole number, got %q", raw)
		} else {
			c.DatabaseMaxConns = int32(n)
		}
	}
	for _, raw := range strings.Split(get("TRUSTED_PROXIES", ""), ",") {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		if !strings.Contains(raw, "/") {
			if ip := net.ParseIP(raw); ip != nil && ip.To4() != nil {
				raw += "/32"
			} else {
				raw += "/128"
			}
		}
		_, n, err := net.ParseCIDR(raw)
		if err != nil {
			bad("TRUSTED_PROXIES must be comma-separated CIDRs, got %q", raw)
			continue
		}
		c.TrustedProxies = append(c.TrustedProxies, n)
	}
	switch c.StorageDisk {
	case "local":
		if c.StorageLocalDir == "" {
			bad("STORAGE_LOCAL_DIR must not be empty")
		}
	case "s3":
		for name, v := range map[string]string{"S3_ENDPOINT": c.S3Endpoint, "S3_BUCKET": c.S3Bucket, "S3_ACCESS_KEY_ID": c.S3AccessKeyID, "S3_SECRET_ACCESS_KEY": c.S3SecretAccessKey} {
			if v == "" {
				bad("%s is required when STORAGE_DISK=s3", name)
			}
		}
	default:
		bad("STORAGE_DISK must be local or s3, got %q", c.StorageDisk)
	}
	maxRaw := get("UPLOAD_MAX_BYTES", "20971520")
	if n, err := strconv.ParseInt(maxRaw, 10, 64); err != nil || n <= 0 {
		bad("UPLOAD_MAX_BYTES must be a positive whole number of bytes, got %q", maxRaw)
	} else {
		c.UploadMaxBytes = n
	}
	switch c.RateLimitStore {
	case "memory", "none":
	case "redis":
		if c.RedisURL == "" {
			bad("REDIS_URL is required when RATE_LIMIT_STORE=redis")
		}
	default:
		bad("RATE_LIMIT_STORE must be memory or redis (or none, for load benchmarks only), got %q", c.RateLimitStore)
	}
	switch c.LogFormat {
	case "", "json", "text":
	default:
		bad("LOG_FORMAT must be json or text, got %q", c.LogFormat)
	}
	lvl := get("LOG_LEVEL", "info")
	if err := c.LogLevel.UnmarshalText([]byte(lvl)); err != nil {
		bad("LOG_LEVEL must be debug, info, warn or error, got %q", lvl)
	}

	if len(problems) > 0 {
		return c, errors.New("invalid configuration:\n  " + strings.Join(problems, "\n  "))
	}
	return c, nil
}

// lookup treats an empty variable like an unset one, so `FOO= konvoj serve`
// falls back to the default rather than failing.
func lookup(getenv func(string) string, name string) (string, bool) {
	v := strings.TrimSpace(getenv(name))
	return v, v != ""
}

// loopback reports whether addr is host:port with a loopback host.
func loopback(addr string) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
