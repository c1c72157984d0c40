package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// outDir is an -out directory written safely: everything goes into a
// hidden temporary directory beside it, which replaces DIR only when the
// command has written it all. A failed command removes the temporary
// directory, so it leaves no partial DIR; a DIR that exists and is not
// empty is refused unless -force.
type outDir struct {
	final string // DIR, cleaned
	tmp   string // where the files are written
	force bool
}

// openOutDir checks DIR and creates the temporary directory.
func openOutDir(dir string, force bool) (*outDir, error) {
	final := filepath.Clean(dir)
	switch ents, err := os.ReadDir(final); {
	case err == nil && len(ents) > 0 && !force:
		return nil, fmt.Errorf("%s is not empty (allowed: a new or empty directory; -force replaces it)", dir)
	case err != nil && !os.IsNotExist(err):
		if fi, serr := os.Stat(final); serr == nil && !fi.IsDir() {
			return nil, fmt.Errorf("%s is not a directory", dir)
		}
		return nil, fmt.Errorf("%s: %v", dir, unwrapPath(err))
	}
	if _, err := os.Stat(final); err == nil {
		// It is replaced (empty, or with -force): never the current
		// directory or one holding it.
		if err := holdsCwd(final); err != nil {
			return nil, err
		}
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("%s: %v", dir, unwrapPath(err))
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(final)+".partial-")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, unwrapPath(err))
	}
	return &outDir{final: final, tmp: tmp, force: force}, nil
}

// holdsCwd refuses to replace a directory that is or holds the current
// directory.
func holdsCwd(dir string) error {
	ad, err1 := filepath.Abs(dir)
	wd, err2 := os.Getwd()
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%s: cannot tell whether it holds the current directory", dir)
	}
	if rel, err := filepath.Rel(ad, wd); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not replaced: it holds the current directory (give a directory beside or below it)", dir)
	}
	return nil
}

// path returns where a file meant for path p is written: inside the
// temporary directory when p is inside DIR (a -keep-failing file in the
// -out directory, say), p itself otherwise.
func (o *outDir) path(p string) string {
	if o == nil {
		return p
	}
	af, err1 := filepath.Abs(o.final)
	ap, err2 := filepath.Abs(p)
	if err1 != nil || err2 != nil {
		return p
	}
	rel, err := filepath.Rel(af, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || rel == "." {
		return p
	}
	return filepath.Join(o.tmp, rel)
}

// commit puts the temporary directory in DIR's place.
func (o *outDir) commit() error {
	if _, err := os.Lstat(o.final); err == nil {
		// Empty, or -force: the check was made when it was opened.
		if err := os.RemoveAll(o.final); err != nil {
			return err
		}
	}
	return os.Rename(o.tmp, o.final)
}

// abort removes the temporary directory.
func (o *outDir) abort() {
	if o != nil {
		os.RemoveAll(o.tmp)
	}
}
