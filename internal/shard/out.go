package shard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OutNotInput refuses a merge's output directory that is one of its
// inputs, or holds one, or is inside one: merge never writes into an
// input.
func OutNotInput(out string, dirs []string) error {
	ao, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, d := range dirs {
		ad, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		same := ao == ad
		if fo, err1 := os.Stat(ao); err1 == nil {
			if fd, err2 := os.Stat(ad); err2 == nil && os.SameFile(fo, fd) {
				same = true
			}
		}
		if same || within(ad, ao) || within(ao, ad) {
			return fmt.Errorf("-out %s is also an input (%s); merge never writes into an input: give a new directory", out, d)
		}
	}
	return nil
}

// within reports whether path p is inside directory dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
