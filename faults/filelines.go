package faults

import (
	"regexp"
	"strconv"
)

// lineRef is a plan error's reference to a plan line.
var lineRef = regexp.MustCompile(`\bline [0-9]+`)

// FileLines rewrites every plan line a plan error's text names ("line
// N", the line the error is about and those it refers to) as the line of
// the file the plan sits in from line first on (a scenario file's "plan"
// key): "line first+N-1".
func FileLines(msg string, first int) string {
	return lineRef.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(m[len("line "):])
		return "line " + strconv.Itoa(first+n-1)
	})
}
