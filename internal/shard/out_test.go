package shard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutNotInput: a merge's output may be a new directory beside its
// inputs, but not one of them, nor inside one, nor around one.
func TestOutNotInput(t *testing.T) {
	tmp := t.TempDir()
	in := []string{filepath.Join(tmp, "s0"), filepath.Join(tmp, "s1")}
	for _, d := range in {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := OutNotInput(filepath.Join(tmp, "merged"), in); err != nil {
		t.Errorf("a new directory: %v", err)
	}
	if err := OutNotInput(filepath.Join(tmp, "s0x"), in); err != nil {
		t.Errorf("a sibling whose name starts with an input's: %v", err)
	}
	for _, out := range []string{in[1], in[1] + string(filepath.Separator), filepath.Join(in[0], "m"), tmp, filepath.Join(in[1], "..", "s1")} {
		if err := OutNotInput(out, in); err == nil {
			t.Errorf("-out %s: accepted", out)
		}
	}
	want := "-out " + in[0] + " is also an input (" + in[0] + "); merge never writes into an input: give a new directory"
	if err := OutNotInput(in[0], in); err == nil || err.Error() != want {
		t.Errorf("-out an input: %v, want %s", err, want)
	}
}

// TestOutNotInputLink: an output that is an input under another name
// (a symbolic link to it) is refused too.
func TestOutNotInputLink(t *testing.T) {
	tmp := t.TempDir()
	in := filepath.Join(tmp, "s0")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(tmp, "alias")
	if err := os.Symlink(in, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := OutNotInput(link, []string{in}); err == nil {
		t.Error("a link to an input: accepted")
	}
}
