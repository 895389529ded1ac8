package main

// workspaceFlag is the --db flag of the commands that open the workspace database, with its
// default said once. Kong flattens the embedded struct, so the flag is each command's own and
// keeps its place in the help.
type workspaceFlag struct {
	DB string `name:"db" type:"path" help:"Workspace database (default: $XDG_DATA_HOME/ealscope/workspace.db)."`
}
