package main

import (
	"fmt"
	"strings"
)

// splitShell splits a command line as a POSIX shell does for words:
// single quotes, double quotes (with \" \\ \$ \` escapes), backslash
// escapes and backslash-newline continuations. Operators (| > ; &) are
// an error: a printed command is one simulate command.
func splitShell(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	in := false // a word is open
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i++
		case c == '\\' && i+1 < len(s):
			w.WriteByte(s[i+1])
			i, in = i+1, true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			w.WriteString(s[i+1 : i+1+j])
			i, in = i+1+j, true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		case strings.IndexByte("|>;&<", c) >= 0:
			return nil, fmt.Errorf("shell operator %q outside quotes in %q", c, s)
		default:
			w.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words, nil
}
