package replay

import (
	"fmt"

	"github.com/ealscope/ealscope/engine"
)

// Surface is the domain's presentation and memory-implementation identity (engine.Surface).
type Surface = engine.Surface

// FreeTextProfileSchemaID is LangMem's free-text profile class.
const FreeTextProfileSchemaID = "langmem.knowledge.extraction.Memory"

// SurfaceOf returns the surface of a domain; a domain without a presentation cannot be run.
func SurfaceOf(d engine.Domain) (Surface, error) {
	s := d.Surface()
	if s.PresentationID == "" || s.MemoryImplementationID == "" {
		return Surface{}, fmt.Errorf("domain %s: ealscope has no run surface (presentation, memory implementation) for it yet", d.ID())
	}
	return s, nil
}

// EmptyTypedPayload is the empty typed profile of a domain.
func EmptyTypedPayload(d engine.MemoryCodec) map[string]any {
	return map[string]any{"schema_version": d.TypedSchemaVersion(), "authorizations": []any{}}
}
