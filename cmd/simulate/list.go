package main

import (
	"fmt"
	"io"

	"github.com/idemsim/idemsim/scenarios"
)

// writeList prints -list: one scenario a line, its name padded to the
// longest name plus two spaces so every summary starts in the same
// column, then the summary and the validate marker (listMarker).
func writeList(w io.Writer, all []*scenarios.Scenario) {
	width := 0
	for _, s := range all {
		width = max(width, len(s.Name))
	}
	for _, s := range all {
		fmt.Fprintf(w, "%-*s  %s%s\n", width, s.Name, s.Summary, listMarker(s.Name))
	}
}
