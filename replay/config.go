// Package replay is everything in ealscope that calls a model: the built-in and
// OpenAI-compatible executors and writers, the run pipeline that turns a corpus into an
// EAL-layout run directory, concurrency, retries and resumption.
package replay

import (
	"cmp"
	"errors"
	"fmt"
	"github.com/ealscope/ealscope/runs/rundir"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/adrg/xdg"
)

// ConfigEnv names the environment variable that points at the config file when --config is
// not given.
const ConfigEnv = "EALSCOPE_CONFIG"

// Defaults for optional model settings (EAL-Bench's executor task parameters).
const (
	DefaultTemperature = 1.0
	DefaultMaxTokens   = 4096
	DefaultConcurrency = 8
	DefaultTimeoutS    = 120.0
)

// Model is one [models.NAME] entry: an OpenAI-compatible chat-completions endpoint. It keeps
// the *name* of the variable holding the API key, never the key: the key is read from the
// environment at call time so that nothing ealscope writes can contain it.
type Model struct {
	Name        string
	BaseURL     string
	Model       string
	APIKeyEnv   string
	Temperature float64
	MaxTokens   int
	Concurrency int
	TimeoutS    float64
	// Replicas are the base URLs calls are spread over (one: BaseURL), each with its own
	// concurrency limit; BaseURL is the first.
	Replicas []Replica
	// RequestsPerMinute and TokensPerMinute bound the model's calls over all replicas (0: no
	// limit).
	RequestsPerMinute int
	TokensPerMinute   int
}

// APIKey reads the key from the environment now ("" when no variable is configured).
func (m Model) APIKey() string {
	if m.APIKeyEnv == "" {
		return ""
	}
	return os.Getenv(m.APIKeyEnv)
}

// Config is the parsed config file. Model entries are their own type so that later sections
// (keys, theme) can join without touching them.
type Config struct {
	// Path is the file the config was read from ("" when no file exists).
	Path   string
	Models map[string]Model
	// Keys remaps TUI actions: action name -> keys ("chain.first_false" = ["f", "F"]).
	Keys map[string][]string
	// Theme is "dark", "light" or "" (ask the terminal).
	Theme string
}

// rawModel mirrors the TOML shape; pointers tell "absent" from "zero".
type rawModel struct {
	BaseURL     *string  `toml:"base_url"`
	Model       *string  `toml:"model"`
	APIKeyEnv   *string  `toml:"api_key_env"`
	Temperature *float64 `toml:"temperature"`
	MaxTokens   *int     `toml:"max_tokens"`
	Concurrency *int     `toml:"concurrency"`
	TimeoutS    *float64 `toml:"timeout_s"`
	rawFleet
}

type rawConfig struct {
	Models map[string]rawModel `toml:"models"`
	Keys   map[string][]string `toml:"keys"`
	Theme  *string             `toml:"theme"`
}

// ConfigPath resolves the config file: the explicit path, else $EALSCOPE_CONFIG, else
// $XDG_CONFIG_HOME/ealscope/config.toml.
func ConfigPath(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if env := os.Getenv(ConfigEnv); env != "" {
		return env
	}
	return filepath.Join(xdg.ConfigHome, "ealscope", "config.toml")
}

// LoadConfig reads and validates the config file at ConfigPath(explicit). A missing file is
// an error only when it was named explicitly (flag or environment); the default location may
// be absent, which yields an empty config.
func LoadConfig(explicit string) (*Config, error) {
	path := ConfigPath(explicit)
	data, err := rundir.ReadRegularFile(path, rundir.MaxInputFileBytes)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && explicit == "" && os.Getenv(ConfigEnv) == "" {
			return &Config{Models: map[string]Model{}}, nil
		}
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	return ParseConfig(path, data)
}

// ParseConfig validates config text strictly: unknown keys are errors, and every error names
// the file and the dotted key.
func ParseConfig(path string, data []byte) (*Config, error) {
	var raw rawConfig
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var perr toml.ParseError
		if errors.As(err, &perr) {
			return nil, fmt.Errorf("%s:%d: %s", path, perr.Position.Line, perr.Message)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if undecoded := md.Undecoded(); len(undecoded) > 0 {
		keys := make([]string, len(undecoded))
		for i, k := range undecoded {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("%s: %s: unknown key", path, keys[0])
	}
	cfg := &Config{Path: path, Models: map[string]Model{}, Keys: raw.Keys}
	if raw.Theme != nil {
		switch *raw.Theme {
		case "dark", "light", "auto":
			if *raw.Theme != "auto" {
				cfg.Theme = *raw.Theme
			}
		default:
			return nil, fmt.Errorf("%s: theme: must be \"dark\", \"light\" or \"auto\", got %q", path, *raw.Theme)
		}
	}
	names := make([]string, 0, len(raw.Models))
	for name := range raw.Models {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		m, err := validateModel(path, name, raw.Models[name])
		if err != nil {
			return nil, err
		}
		cfg.Models[name] = m
	}
	return cfg, nil
}

func validateModel(path, name string, r rawModel) (Model, error) {
	key := func(field string) string { return fmt.Sprintf("%s: models.%s.%s", path, name, field) }
	m := Model{Name: name, Temperature: DefaultTemperature, MaxTokens: DefaultMaxTokens, Concurrency: DefaultConcurrency, TimeoutS: DefaultTimeoutS}
	if r.Replicas == nil {
		if _, err := checkBaseURL(r.BaseURL, key("base_url")); err != nil {
			return m, err
		}
	}
	if r.Model == nil || strings.TrimSpace(*r.Model) == "" {
		return m, fmt.Errorf("%s: required", key("model"))
	}
	m.Model = *r.Model
	if r.APIKeyEnv != nil {
		if strings.TrimSpace(*r.APIKeyEnv) == "" {
			return m, fmt.Errorf("%s: must name an environment variable (omit the key for none)", key("api_key_env"))
		}
		m.APIKeyEnv = *r.APIKeyEnv
	}
	if r.Temperature != nil {
		// Written so NaN fails too: every comparison with NaN is false.
		if !(*r.Temperature >= 0 && *r.Temperature <= 2) {
			return m, fmt.Errorf("%s: must be between 0 and 2, got %v", key("temperature"), *r.Temperature)
		}
		m.Temperature = *r.Temperature
	}
	err := cmp.Or(
		setPositive(&m.MaxTokens, r.MaxTokens, key("max_tokens")),
		setPositive(&m.Concurrency, r.Concurrency, key("concurrency")),
		setPositive(&m.TimeoutS, r.TimeoutS, key("timeout_s")),
	)
	if err != nil {
		return m, err
	}
	return m, validateFleet(key, r.BaseURL, r.rawFleet, &m)
}

// setPositive sets *dst to the configured *v, which must be above 0; a nil v (the key is
// not in the file) keeps the default.
func setPositive[T int | float64](dst, v *T, key string) error {
	if v == nil {
		return nil
	}
	if f := float64(*v); math.IsNaN(f) || math.IsInf(f, 0) {
		// NaN passes every comparison and an infinite timeout never fires.
		return fmt.Errorf("%s: must be a finite number, got %v", key, *v)
	}
	if *v <= 0 {
		return fmt.Errorf("%s: must be positive, got %v", key, *v)
	}
	*dst = *v
	return nil
}

// Lookup returns the named model entry, or an error naming the file and key.
func (c *Config) Lookup(name string) (Model, error) {
	if m, ok := c.Models[name]; ok {
		return m, nil
	}
	file := c.Path
	if file == "" {
		file = ConfigPath("")
	}
	known := make([]string, 0, len(c.Models))
	for n := range c.Models {
		known = append(known, n)
	}
	sort.Strings(known)
	hint := "no models are configured"
	if len(known) > 0 {
		hint = "configured: " + strings.Join(known, ", ")
	}
	return Model{}, fmt.Errorf("%s: models.%s: no such model entry (%s)", file, name, hint)
}

// checkURLCredentials refuses a base URL carrying credentials: Go would send "user:password@" as
// Basic auth to the endpoint, which may echo it, and the URL itself is written into run
// manifests. Keys belong in the environment variable api_key_env names.
func checkURLCredentials(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL: %v", err)
	}
	if u.User != nil {
		return fmt.Errorf("must not hold credentials (user:password@ in %s://%s@...): put the key in an environment variable and name it with api_key_env", u.Scheme, Redacted)
	}
	return nil
}
