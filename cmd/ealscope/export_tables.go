package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ealscope/ealscope/runs"
	"github.com/ealscope/ealscope/runs/tablefile"
)

// exportGroup is `export`: a chain's story (the default, `export --case ...`) or the analysis
// tables (`export tables`).
type exportGroup struct {
	Story  exportCmd       `cmd:"" default:"withargs" help:"Write a chain's story as Markdown, a self-contained HTML page or SVG frames (the default)."`
	Tables exportTablesCmd `cmd:"" help:"Write the workspace's analysis tables (docs/TABLES.md) as Parquet or CSV files, one per table."`
}

type exportTablesCmd struct {
	workspaceFlag
	Out    string   `name:"out" required:"" type:"path" help:"Directory for the table files (created if missing)."`
	Format string   `name:"format" default:"parquet" enum:"parquet,csv" help:"parquet (default) or csv (RFC 4180)."`
	RunIDs []string `name:"run" help:"Only this run (id or unique prefix; repeatable). Default: every run."`
	JSON   bool     `name:"json" help:"Print the files written and their row counts as JSON."`
}

// exportedTable is one file of `export tables --json`.
type exportedTable struct {
	Table string `json:"table"`
	Path  string `json:"path"`
	Rows  int64  `json:"rows"`
}

// Run writes every table from one read snapshot of the workspace. Each file is written beside
// its final name and renamed when complete, so a failed export never leaves a half-written
// table under a table's name.
func (c *exportTablesCmd) Run(g *Globals) error {
	ctx := context.Background()
	store, err := runs.OpenExisting(c.DB)
	if err != nil {
		return err
	}
	defer store.Close()
	exp, err := store.BeginTableExport(ctx, c.RunIDs)
	if err != nil {
		return err
	}
	defer exp.Close()
	if err := os.MkdirAll(c.Out, 0o755); err != nil {
		return err
	}
	var done []exportedTable
	for _, t := range runs.AnalysisTables() {
		path := filepath.Join(c.Out, t.Name+tablefile.Extension(c.Format))
		n, err := writeTable(ctx, exp, t, c.Format, path)
		if err != nil {
			return err
		}
		done = append(done, exportedTable{Table: t.Name, Path: path, Rows: n})
		if !c.JSON {
			fmt.Fprintf(g.textErr(), "wrote %s (%d rows)\n", path, n)
		}
	}
	if c.JSON {
		return writeJSON(g.Stdout, map[string]any{"format": c.Format, "tables": done})
	}
	return nil
}

func writeTable(ctx context.Context, exp *runs.TableExport, t runs.TableSpec, format, path string) (rows int64, err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	w, err := tablefile.New(format, f, t.Columns)
	if err != nil {
		return 0, err
	}
	if err = exp.Rows(ctx, t, func(row []any) error {
		rows++
		return w.Write(row)
	}); err != nil {
		return 0, err
	}
	if err = w.Close(); err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return 0, err
	}
	// CreateTemp makes the file private; a table is as readable as any file ealscope writes.
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return 0, err
	}
	return rows, os.Rename(f.Name(), path)
}
