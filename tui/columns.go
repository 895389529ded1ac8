package tui

// zipLonger joins the lines of two columns pairwise into at least rows lines; where one
// column is shorter its missing lines are the zero value.
func zipLonger[T any](left, right []T, rows int, join func(l, r T) T) []T {
	n := max(rows, len(left), len(right))
	out := make([]T, n)
	for i := range n {
		var l, r T
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out[i] = join(l, r)
	}
	return out
}

// sideBySide sets two columns of lines side by side, the left one padded to width half and
// a divider between them, in at least rows lines (so a divider can run a pane's full height).
func sideBySide(left, right []string, half, rows int) []string {
	return zipLonger(left, right, rows, func(l, r string) string { return padANSI(l, half) + " │ " + r })
}
