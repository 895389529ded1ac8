package workbench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ealscope/ealscope/engine"
	"github.com/ealscope/ealscope/replay"
	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/rundir"
)

// ErrNoEditor is returned when neither $VISUAL nor $EDITOR names an editor.
var ErrNoEditor = errors.New("edited memory needs $EDITOR (or $VISUAL)")

// Edit is one hand edit of a re-run memory: the file the editor opens and the command that
// opens it. The headless command runs it in the foreground; the TUI hands Command to the
// terminal and calls Read when the editor exits. Close removes the file.
type Edit struct {
	src     runs.RerunSource
	dir     string
	Path    string
	Editor  string
	Command *exec.Cmd
}

// EditableMemory is the text an edit starts from: the written memory at the block (typed
// payloads indented for editing), else the oracle-exact one.
func EditableMemory(src runs.RerunSource) (string, error) {
	var m replay.RerunMemory
	var err error
	if src.MemoryID != "" {
		m, err = replay.WrittenMemory(src.Architecture, src.Payload, src.MemoryID)
	} else {
		m, err = replay.ExactMemory(src.Domain, src.Case, src.Block, src.Architecture)
	}
	if err != nil {
		return "", err
	}
	if s, ok := m.Payload.(string); ok {
		return s, nil
	}
	b, err := json.MarshalIndent(m.Payload, "", "  ")
	if err != nil {
		return "", err
	}
	return string(b) + "\n", nil
}

// StartEdit writes the starting memory to a private temporary file and prepares the editor
// command ($VISUAL, else $EDITOR) on it. It does I/O: call it from a command, never while
// building one.
func StartEdit(src runs.RerunSource) (*Edit, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if strings.TrimSpace(editor) == "" {
		return nil, ErrNoEditor
	}
	text, err := EditableMemory(src)
	if err != nil {
		return nil, err
	}
	ext := ".txt"
	if src.Architecture == engine.ArchTyped {
		ext = ".json"
	}
	dir, err := os.MkdirTemp("", "ealscope-edit-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "memory"+ext)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	fields := strings.Fields(editor)
	return &Edit{src: src, dir: dir, Path: path, Editor: editor, Command: exec.Command(fields[0], append(fields[1:], path)...)}, nil
}

// Read reads the edited file back as an edited arm, validated in the memory's domain and
// architecture. runErr is the editor's exit error, if any.
func (e *Edit) Read(runErr error) (replay.RerunMemory, error) {
	if runErr != nil {
		return replay.RerunMemory{}, fmt.Errorf("editor %s: %w", e.Editor, runErr)
	}
	data, err := rundir.ReadRegularFile(e.Path, rundir.MaxInputFileBytes)
	if err != nil {
		return replay.RerunMemory{}, err
	}
	return replay.ParseMemoryText(e.src.Domain, e.src.Architecture, "edited memory", engine.VariantEdited, data)
}

// Close removes the edit's temporary file.
func (e *Edit) Close() { os.RemoveAll(e.dir) }
