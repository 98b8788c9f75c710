package config

import (
	"os"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDefaults(t *testing.T) {
	c, err := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32)}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTPAddr != ":8080" || c.JWTAlg != "HS256" || c.StorageDisk != "local" || c.StorageLocalDir != "./data/files" ||
		c.UploadMaxBytes != 20971520 || c.RateLimitStore != "memory" || c.PublicURL != "http://localhost:8080" || c.AuthDevLogin {
		t.Fatalf("defaults: %+v", c)
	}
}

func TestInvalidValuesAreAllReported(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		want []string
	}{
		"hs256 without secret":         {map[string]string{}, []string{"JWT_SECRET is required"}},
		"unknown alg":                  {map[string]string{"JWT_ALG": "none"}, []string{"JWT_ALG must be"}},
		"rs256 without keys":           {map[string]string{"JWT_ALG": "RS256"}, []string{"JWT_PUBLIC_KEY_FILE, JWT_JWKS_URL"}},
		"dev login refused with https": {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "AUTH_DEV_LOGIN": "true", "PUBLIC_URL": "https://konvoj.example"}, []string{"AUTH_DEV_LOGIN=true is refused with an https PUBLIC_URL"}},
		"bad pool size and proxies":    {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "DATABASE_MAX_CONNS": "0", "TRUSTED_PROXIES": "10.0.0.0/8, nonsense"}, []string{"DATABASE_MAX_CONNS", "TRUSTED_PROXIES"}},
		"dev login needs hs256":        {map[string]string{"JWT_ALG": "RS256", "JWT_JWKS_URL": "http://x/jwks", "AUTH_DEV_LOGIN": "true"}, []string{"AUTH_DEV_LOGIN"}},
		"s3 incomplete":                {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "STORAGE_DISK": "s3"}, []string{"S3_ENDPOINT", "S3_BUCKET", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"}},
		"bad numbers and booleans":     {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "UPLOAD_MAX_BYTES": "-5", "AUTH_DEV_LOGIN": "maybe"}, []string{"UPLOAD_MAX_BYTES", "AUTH_DEV_LOGIN must be true or false"}},
		"redis without url":            {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "RATE_LIMIT_STORE": "redis"}, []string{"REDIS_URL is required"}},
		"bad log settings":             {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "LOG_FORMAT": "xml", "LOG_LEVEL": "loud"}, []string{"LOG_FORMAT", "LOG_LEVEL"}},
		"bad urls":                     {map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "DATABASE_URL": "mysql://x", "PUBLIC_URL": "localhost"}, []string{"DATABASE_URL", "PUBLIC_URL"}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Load(env(c.env))
			if err == nil {
				t.Fatal("want an error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A short JWT_SECRET is weak but allowed (no minimum length is required, docs/operations.md): the
// server starts and warns.
func TestShortSecretWarns(t *testing.T) {
	c, err := Load(env(map[string]string{"JWT_SECRET": "secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "JWT_SECRET") {
		t.Fatalf("warnings %v", c.Warnings)
	}
	if c, _ := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32)})); len(c.Warnings) != 0 {
		t.Fatalf("warnings for a long secret: %v", c.Warnings)
	}
}

func TestPoolSizeProxiesAndMetricsAddr(t *testing.T) {
	c, err := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32)}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseMaxConns < 8 || c.TrustedProxies != nil || c.MetricsAddr != "" || c.HTTPS() {
		t.Fatalf("defaults: %+v", c)
	}
	c, err = Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "DATABASE_MAX_CONNS": "13",
		"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7, ::1", "METRICS_ADDR": "127.0.0.1:9090", "PUBLIC_URL": "https://k.example"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.DatabaseMaxConns != 13 || len(c.TrustedProxies) != 3 || c.TrustedProxies[1].String() != "192.168.1.7/32" ||
		c.TrustedProxies[2].String() != "::1/128" || c.MetricsAddr != "127.0.0.1:9090" || !c.HTTPS() {
		t.Fatalf("parsed: %+v", c)
	}
	// Profiles are served on loopback only.
	for _, addr := range []string{"127.0.0.1:6060", "[::1]:6060", "localhost:6060"} {
		if c, err := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "PPROF_ADDR": addr})); err != nil || c.PprofAddr != addr {
			t.Fatalf("PPROF_ADDR %s: %v %q", addr, err, c.PprofAddr)
		}
	}
	for _, addr := range []string{":6060", "0.0.0.0:6060", "10.0.0.5:6060", "127.0.0.1", "example.com:6060"} {
		if _, err := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "PPROF_ADDR": addr})); err == nil || !strings.Contains(err.Error(), "PPROF_ADDR") {
			t.Fatalf("PPROF_ADDR %s accepted: %v", addr, err)
		}
	}
	// The development sign-in stays possible on http.
	if _, err := Load(env(map[string]string{"JWT_SECRET": strings.Repeat("s", 32), "AUTH_DEV_LOGIN": "true"})); err != nil {
		t.Fatal(err)
	}
}

// TestOperationsTableListsEveryVariable keeps docs/operations.md's
// configuration table in step with Vars, the source of truth.
func TestOperationsTableListsEveryVariable(t *testing.T) {
	raw, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows = append(rows, strings.SplitN(line[1:], "|", 2)[0])
		}
	}
	table := strings.Join(rows, " ")
	for _, v := range Vars {
		if !strings.Contains(table, "`"+v.Name+"`") {
			t.Errorf("docs/operations.md's configuration table lacks %s", v.Name)
		}
	}
}
