package cli

import (
	"io"
	"os"

	"golang.org/x/term"
)

// terminalWidth reports whether w is a terminal and, if so, its width in
// columns (0 when the terminal does not say). Tests replace it to play a
// terminal.
var terminalWidth = func(w io.Writer) (width int, ok bool) {
	f, isFile := w.(*os.File)
	if !isFile || !term.IsTerminal(int(f.Fd())) {
		return 0, false
	}
	if width, _, err := term.GetSize(int(f.Fd())); err == nil && width > 0 {
		return width, true
	}
	return 0, true
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	_, ok := terminalWidth(w)
	return ok
}
