package procurement

import (
	"strings"
	"testing"
)

// TestSchemaVersionNumberSaysString: a schema_version written as the number 3 is refused with
// a message saying it must be the string "3" (3 and "3" print alike).
func TestSchemaVersionNumberSaysString(t *testing.T) {
	_, err := ParseTypedPayload(map[string]any{"schema_version": float64(3), "authorizations": []any{}})
	if err == nil || !strings.Contains(err.Error(), `must be the string "3", got the number 3`) {
		t.Errorf("error: %v", err)
	}
}
