package procurement

import (
	"encoding/json"
	"testing"

	"github.com/ealscope/ealscope/engine/pyjson"
)

// The presentation profile stored in trial metadata must hash to EAL-Bench's published
// presentation_hash, and the writer's schema text must be the v3 profile it describes.
func TestSurface(t *testing.T) {
	s := Domain{}.Surface()
	if got := pyjson.MustContentHash(s.Presentation); got != PresentationHash {
		t.Errorf("presentation profile hashes to %s, want %s", got, PresentationHash)
	}
	if s.TypedProfileSchemaID != "domains.procurement.schemas.ProcurementAuthorizationMemoryProfile" || s.TypedSchemaName != "ProcurementAuthorizationMemoryProfile" {
		t.Errorf("typed profile ids: %q, %q", s.TypedProfileSchemaID, s.TypedSchemaName)
	}
	var schema struct {
		Title      string `json:"title"`
		Properties struct {
			Authorizations struct {
				MaxItems int `json:"maxItems"`
			} `json:"authorizations"`
			SchemaVersion struct {
				Const string `json:"const"`
			} `json:"schema_version"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(s.TypedSchemaJSON), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Title != s.TypedSchemaName || schema.Properties.Authorizations.MaxItems != MaxAuthorizations || schema.Properties.SchemaVersion.Const != TypedSchemaVersion {
		t.Errorf("schema: %+v", schema)
	}
	if s.MemoryImplementationID != MemoryImplementationID || s.MemoryImplementationHash != MemoryImplementationHash || s.PresentationID != PresentationID {
		t.Errorf("identity: %+v", s)
	}
}
