package shard

import (
	"encoding/json"
	"testing"
)

// TestParse: "i/n" with 0 <= i < n parses; anything else is refused with
// the -shard flag's message.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Shard
	}{
		{"0/1", Shard{0, 1}},
		{"0/4", Shard{0, 4}},
		{"3/4", Shard{3, 4}},
		{"+1/2", Shard{1, 2}},
		{"01/02", Shard{1, 2}},
	} {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "1", "/", "0/", "/4", "4/4", "5/4", "-1/4", "0/0", "0/-1", "a/b", " 0/4", "0/4 ", "0/4/8", "1.0/4"} {
		_, err := Parse(in)
		want := `"` + in + `" is not allowed (allowed: i/n with 0 <= i < n, e.g. 0/4)`
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q): %v, want %s", in, err, want)
		}
	}
}

// TestString: a shard prints as "i/n", which parses back.
func TestString(t *testing.T) {
	s := Shard{Index: 2, Count: 7}
	if got := s.String(); got != "2/7" {
		t.Fatalf("String() = %q", got)
	}
	if p, err := Parse(s.String()); err != nil || p != s {
		t.Fatalf("Parse(%q) = %v, %v", s, p, err)
	}
}

// TestJSON: a shard is {"index": i, "count": n} in a sweep's
// summary.json (docs/sweeps.md).
func TestJSON(t *testing.T) {
	b, err := json.Marshal(Shard{Index: 1, Count: 4})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"index":1,"count":4}`; got != want {
		t.Fatalf("JSON %s, want %s", got, want)
	}
}

// FuzzParse: Parse never panics; whatever it accepts is a shard
// 0 <= i < n that prints as text Parse reads back to the same shard.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0/1", "3/4", "4/4", "-1/2", "+1/2", "01/02", "a/b", "", "/", "1/2/3", "9223372036854775807/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sh, err := Parse(s)
		if err != nil {
			if sh != (Shard{}) {
				t.Fatalf("Parse(%q) refused but returned %v", s, sh)
			}
			return
		}
		if sh.Index < 0 || sh.Index >= sh.Count {
			t.Fatalf("Parse(%q) = %v: not 0 <= i < n", s, sh)
		}
		back, err := Parse(sh.String())
		if err != nil || back != sh {
			t.Fatalf("Parse(%q) = %v, which prints as %q and reads back as %v, %v", s, sh, sh.String(), back, err)
		}
	})
}
