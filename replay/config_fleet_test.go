package replay

import (
	"strings"
	"testing"
)

func TestConfigReplicasAndRateLimits(t *testing.T) {
	cfg, err := ParseConfig("c.toml", []byte(`
[models.fleet]
model = "m"
concurrency = 3
requests_per_minute = 600
tokens_per_minute = 90000
[[models.fleet.replicas]]
base_url = "http://a:8000/v1"
concurrency = 16
[[models.fleet.replicas]]
base_url = "http://b:8000/v1"

[models.one]
base_url = "http://c/v1"
model = "m"
`))
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Models["fleet"]
	if len(f.Replicas) != 2 || f.Replicas[0] != (Replica{"http://a:8000/v1", 16}) || f.Replicas[1] != (Replica{"http://b:8000/v1", 3}) ||
		f.RequestsPerMinute != 600 || f.TokensPerMinute != 90000 || f.BaseURL != "http://a:8000/v1" {
		t.Errorf("fleet entry: %+v", f)
	}
	one := cfg.Models["one"]
	if len(one.Replicas) != 1 || one.Replicas[0] != (Replica{"http://c/v1", DefaultConcurrency}) || one.RequestsPerMinute != 0 {
		t.Errorf("single entry: %+v", one)
	}
	for _, bad := range []struct{ toml, want string }{
		{"[models.x]\nmodel = \"m\"\nbase_url = \"http://a\"\n[[models.x.replicas]]\nbase_url = \"http://b\"\n", "models.x.replicas: give base_url or replicas, not both"},
		{"[models.x]\nmodel = \"m\"\nreplicas = []\n", "models.x.replicas: must list at least one replica"},
		{"[models.x]\nmodel = \"m\"\n[[models.x.replicas]]\nbase_url = \"ftp://b\"\n", "models.x.replicas[0].base_url: must be an http"},
		{"[models.x]\nmodel = \"m\"\n[[models.x.replicas]]\nbase_url = \"http://b\"\n[[models.x.replicas]]\nbase_url = \"http://b/\"\n", "models.x.replicas[1].base_url: \"http://b/\" is listed twice"},
		{"[models.x]\nmodel = \"m\"\n[[models.x.replicas]]\nbase_url = \"http://b\"\nconcurrency = 0\n", "models.x.replicas[0].concurrency: must be positive"},
		{"[models.x]\nmodel = \"m\"\nbase_url = \"http://b\"\nrequests_per_minute = -1\n", "models.x.requests_per_minute: must be positive"},
		{"[models.x]\nmodel = \"m\"\n[[models.x.replicas]]\nbase_url = \"http://b\"\nweight = 2\n", "models.x.replicas.weight: unknown key"},
		{"[models.x]\nmodel = \"m\"\n", "models.x.base_url: required"},
	} {
		_, err := ParseConfig("c.toml", []byte(bad.toml))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: got %v, want an error containing %q", bad.toml, err, bad.want)
		}
	}
}
