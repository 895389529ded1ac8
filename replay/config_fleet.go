package replay

import (
	"fmt"
	"strings"
)

// Replica is one served copy of a model: its base URL and how many calls it takes at once.
type Replica struct {
	BaseURL     string
	Concurrency int
}

// rawReplica mirrors a [[models.NAME.replicas]] table.
type rawReplica struct {
	BaseURL     *string `toml:"base_url"`
	Concurrency *int    `toml:"concurrency"`
}

// rawFleet is the part of a model entry that spreads calls over replicas and bounds them:
// replicas (instead of base_url), requests_per_minute and tokens_per_minute.
type rawFleet struct {
	Replicas          []rawReplica `toml:"replicas"`
	RequestsPerMinute *int         `toml:"requests_per_minute"`
	TokensPerMinute   *int         `toml:"tokens_per_minute"`
}

// checkBaseURL refuses a base URL that is not an http(s) URL or that carries credentials; key
// names it in the error.
func checkBaseURL(u *string, key string) (string, error) {
	if u == nil || strings.TrimSpace(*u) == "" {
		return "", fmt.Errorf("%s: required", key)
	}
	if !strings.HasPrefix(*u, "http://") && !strings.HasPrefix(*u, "https://") {
		return "", fmt.Errorf("%s: must be an http:// or https:// URL, got %q", key, *u)
	}
	if err := checkURLCredentials(*u); err != nil {
		return "", fmt.Errorf("%s: %v", key, err)
	}
	return *u, nil
}

// validateFleet fills m.Replicas, m.RequestsPerMinute and m.TokensPerMinute. A model has
// either base_url (one replica, the model's concurrency) or replicas (each with its own
// concurrency, the model's by default), never both. m.Concurrency must be final already.
func validateFleet(key func(string) string, baseURL *string, r rawFleet, m *Model) error {
	if err := setPositive(&m.RequestsPerMinute, r.RequestsPerMinute, key("requests_per_minute")); err != nil {
		return err
	}
	if err := setPositive(&m.TokensPerMinute, r.TokensPerMinute, key("tokens_per_minute")); err != nil {
		return err
	}
	if r.Replicas == nil {
		u, err := checkBaseURL(baseURL, key("base_url"))
		if err != nil {
			return err
		}
		m.BaseURL, m.Replicas = u, []Replica{{BaseURL: u, Concurrency: m.Concurrency}}
		return nil
	}
	if baseURL != nil {
		return fmt.Errorf("%s: give base_url or replicas, not both", key("replicas"))
	}
	if len(r.Replicas) == 0 {
		return fmt.Errorf("%s: must list at least one replica", key("replicas"))
	}
	seen := map[string]bool{}
	for i, rr := range r.Replicas {
		rkey := func(field string) string { return key(fmt.Sprintf("replicas[%d].%s", i, field)) }
		u, err := checkBaseURL(rr.BaseURL, rkey("base_url"))
		if err != nil {
			return err
		}
		if seen[strings.TrimRight(u, "/")] {
			return fmt.Errorf("%s: %q is listed twice", rkey("base_url"), u)
		}
		seen[strings.TrimRight(u, "/")] = true
		rep := Replica{BaseURL: u, Concurrency: m.Concurrency}
		if err := setPositive(&rep.Concurrency, rr.Concurrency, rkey("concurrency")); err != nil {
			return err
		}
		m.Replicas = append(m.Replicas, rep)
	}
	m.BaseURL = m.Replicas[0].BaseURL
	return nil
}
