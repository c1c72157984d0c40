package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// openOutDir checks DIR and creates the temporary directory. DIR's
// parent must exist: only DIR itself is created. A non-empty DIR is
// replaced only with -force, and only when it looks like an earlier
// output ([earlierOutput]); what will be replaced is then said on stderr.
// The directory is made mode 0755 (less the umask), so that a shared
// report is readable by others; files are written 0644.
func openOutDir(dir string, force bool, stderr io.Writer) (*outDir, error) {
	final := filepath.Clean(dir)
	switch ents, err := os.ReadDir(final); {
	case err == nil && len(ents) > 0 && !force:
		return nil, fmt.Errorf("%s is not empty (allowed: a new or empty directory; -force replaces an earlier output)", dir)
	case err == nil && len(ents) > 0:
		if err := earlierOutput(dir, ents); err != nil {
			return nil, err
		}
		names := make([]string, len(ents))
		for i, e := range ents {
			names[i] = e.Name()
		}
		fmt.Fprintf(stderr, "simulate: -force: %s holds an earlier output; its %d files (%s) are replaced when this command completes\n", dir, len(ents), strings.Join(names, ", "))
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
	switch fi, err := os.Stat(parent); {
	case os.IsNotExist(err):
		return nil, fmt.Errorf("%s: its parent directory %s does not exist (allowed: a new directory in an existing one; create %s first)", dir, parent, parent)
	case err != nil:
		return nil, fmt.Errorf("%s: %v", dir, unwrapPath(err))
	case !fi.IsDir():
		return nil, fmt.Errorf("%s: %s is not a directory", dir, parent)
	}
	tmp, err := mkdirPartial(parent, filepath.Base(final))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, unwrapPath(err))
	}
	return &outDir{final: final, tmp: tmp, force: force}, nil
}

// mkdirPartial creates parent/.NAME.partial-PID-K, mode 0755 less the
// umask, for the first K from 0 that is free.
func mkdirPartial(parent, name string) (string, error) {
	for k := 0; ; k++ {
		p := filepath.Join(parent, fmt.Sprintf(".%s.partial-%d-%d", name, os.Getpid(), k))
		err := os.Mkdir(p, 0o755)
		if err == nil || !os.IsExist(err) {
			return p, err
		}
	}
}

// outputExts are the kinds of file an -out directory holds: summaries,
// tables, reports, charts, plans and diagrams, histories and pages.
var outputExts = []string{".json", ".csv", ".tsv", ".md", ".svg", ".png", ".plan", ".mmd", ".jsonl", ".html"}

// earlierOutput refuses to replace a directory that does not look like
// an earlier -out: one without summary.json (every sweep, exploration
// and merge writes it), or holding a directory or a kind of file the
// simulator does not write.
func earlierOutput(dir string, ents []os.DirEntry) error {
	summary := false
	for _, e := range ents {
		switch {
		case e.Name() == "summary.json":
			summary = true
		case e.IsDir() || !slices.Contains(outputExts, filepath.Ext(e.Name())):
			return fmt.Errorf("%s is not replaced: it holds %s, which no simulate output has (-force replaces only an earlier output: remove it, or give another directory)", dir, e.Name())
		}
	}
	if !summary {
		return fmt.Errorf("%s is not replaced: it has no summary.json, so it is not an earlier simulate output (-force replaces only those; give another directory)", dir)
	}
	return nil
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

// writeFileAtomic writes data to path through a temporary file in the
// same directory, so that path is never half-written (-html, validate's
// -o).
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".partial-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
