package scenarios

import (
	"strings"
	"testing"
)

// TestScenarioFileStrict: duplicate keys (top level and in params) and a
// second document are refused, naming the line (on main the duplicate
// param and the second document were accepted, the latter ignored).
func TestScenarioFileStrict(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: a\nbase: ackloss\nparams:\n  records: 5\n  records: 7\n", `f.yaml:5: params: key "records" repeats line 4`},
		{"name: a\nbase: ackloss\nname: b\n", `f.yaml:3: key "name" repeats line 1`},
		{"name: a\nbase: ackloss\n---\nname: b\nbase: zombie\n", "f.yaml:4: a second YAML document"},
	} {
		_, err := ParseScenarioFile("f.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	for _, src := range []string{"---\nname: a\nbase: ackloss\n", "name: a\nbase: ackloss\n...\n"} {
		if _, err := ParseScenarioFile("f.yaml", []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
}
