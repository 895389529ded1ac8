package replay

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	good := `
[models.local]
base_url = "http://127.0.0.1:8000/v1"
model = "served-model-id"
api_key_env = "OPENAI_API_KEY"
temperature = 0.7
max_tokens = 1024
concurrency = 3
timeout_s = 30

[models.bare]
base_url = "https://example.test/v1"
model = "m"
`
	cfg, err := ParseConfig("config.toml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	local := cfg.Models["local"]
	if local.BaseURL != "http://127.0.0.1:8000/v1" || local.Temperature != 0.7 || local.MaxTokens != 1024 || local.Concurrency != 3 || local.TimeoutS != 30 || local.APIKeyEnv != "OPENAI_API_KEY" {
		t.Fatalf("local %+v", local)
	}
	bare := cfg.Models["bare"]
	if bare.Temperature != DefaultTemperature || bare.MaxTokens != DefaultMaxTokens || bare.Concurrency != DefaultConcurrency || bare.TimeoutS != DefaultTimeoutS {
		t.Fatalf("defaults not applied: %+v", bare)
	}
	bad := []struct{ text, want string }{
		{"[models.local]\nmodel = \"m\"\n", "config.toml: models.local.base_url: required"},
		{"[models.local]\nbase_url = \"http://x/v1\"\n", "config.toml: models.local.model: required"},
		{"[models.local]\nbase_url = \"http://x/v1\"\nmodel = \"m\"\napi_key = \"sk-oops\"\n", "config.toml: models.local.api_key: unknown key"},
		{"[palette]\nname = \"x\"\n", "config.toml: palette"},
		{"theme = \"sepia\"\n", "config.toml: theme: must be"},
		{"[keys]\n\"chain.first_false_authority\" = \"F\"\n", "config.toml"},
		{"[models.local]\nbase_url = \"ftp://x\"\nmodel = \"m\"\n", "models.local.base_url: must be an http"},
		{"[models.local]\nbase_url = \"http://x/v1\"\nmodel = \"m\"\nconcurrency = 0\n", "models.local.concurrency: must be positive"},
		{"[models.local\n", "config.toml:2: expected"},
		{"[models.local]\nbase_url = \"http://user:pw@127.0.0.1:8000/v1\"\nmodel = \"m\"\n", "models.local.base_url: must not hold credentials (user:password@ in http://[REDACTED]@...): put the key in an environment variable and name it with api_key_env"},
		{"[models.local]\nbase_url = \"https://sk-abcdef123456@example.test/v1\"\nmodel = \"m\"\n", "models.local.base_url: must not hold credentials"},
		{"[models.local]\nbase_url = \"http://x/v1\"\nmodel = \"m\"\ntimeout_s = nan\n", "models.local.timeout_s: must be a finite number, got NaN"},
		{"[models.local]\nbase_url = \"http://x/v1\"\nmodel = \"m\"\ntimeout_s = inf\n", "models.local.timeout_s: must be a finite number, got +Inf"},
		{"[models.local]\nbase_url = \"http://x/v1\"\nmodel = \"m\"\ntemperature = nan\n", "models.local.temperature: must be between 0 and 2, got NaN"},
	}
	for _, b := range bad {
		_, err := ParseConfig("config.toml", []byte(b.text))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %v, want %q", b.text, err, b.want)
		}
	}
	if _, err := cfg.Lookup("missing"); err == nil || !strings.Contains(err.Error(), "config.toml: models.missing") {
		t.Errorf("lookup error %v", err)
	}
}

func TestConfigPathResolution(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "c.toml")
	os.WriteFile(p, []byte("[models.x]\nbase_url = \"http://h/v1\"\nmodel = \"m\"\n"), 0o600)
	t.Setenv(ConfigEnv, p)
	if ConfigPath("") != p {
		t.Fatalf("env path not used: %s", ConfigPath(""))
	}
	if ConfigPath("/explicit.toml") != "/explicit.toml" {
		t.Fatal("explicit path not preferred")
	}
	cfg, err := LoadConfig("")
	if err != nil || cfg.Models["x"].Model != "m" {
		t.Fatalf("%v %+v", err, cfg)
	}
	t.Setenv(ConfigEnv, filepath.Join(dir, "absent.toml"))
	if _, err := LoadConfig(""); err == nil {
		t.Fatal("a named but missing config file was accepted")
	}
}

func TestModelAPIKeyFromEnvironment(t *testing.T) {
	m := Model{APIKeyEnv: "EALSCOPE_TEST_KEY_VAR"}
	t.Setenv("EALSCOPE_TEST_KEY_VAR", "first")
	if m.APIKey() != "first" {
		t.Fatal("key not read")
	}
	t.Setenv("EALSCOPE_TEST_KEY_VAR", "second")
	if m.APIKey() != "second" {
		t.Fatal("key cached instead of read at call time")
	}
}

// The TUI's sections live in the same file: a config with keys and theme is valid for the
// model commands too.
func TestParseConfigKeysAndTheme(t *testing.T) {
	cfg, err := ParseConfig("config.toml", []byte("theme = \"light\"\n[keys]\n\"chain.first_false_authority\" = [\"F\", \"f\"]\n[models.local]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Theme != "light" || len(cfg.Keys["chain.first_false_authority"]) != 2 || cfg.Models["local"].Model != "m" {
		t.Fatalf("%+v", cfg)
	}
}
