package main

// workspaceFlag is the --db flag of the commands that open the workspace database, with its
// default said once. Kong flattens the embedded struct, so the flag is each command's own and
// keeps its place in the help.
type workspaceFlag struct {
	DB string `name:"db" type:"path" help:"Workspace database (default: $XDG_DATA_HOME/ealscope/workspace.db)."`
}

// corpusFlag is --corpus of the commands that import runs (import, open): corpus files the
// runs need, said once and flattened in place like workspaceFlag.
type corpusFlag struct {
	Corpus []string `name:"corpus" type:"existingfile" help:"Corpus file the runs need (repeatable)."`
}
