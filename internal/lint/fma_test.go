package lint

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
)

// fused matches an arm64 fused multiply-add or -subtract instruction and
// the source position the compiler gives it.
var fused = regexp.MustCompile(`\((/[^)]*\.go:\d+)\)\s+F(N?)M(ADD|SUB)[SD]\s`)

// TestNoFusedMultiplyAdd: the simulated world's floating-point arithmetic
// rounds the same on every machine. Go lets a compiler fuse x*y+z into one
// multiply-add with a single rounding; amd64 compilers do not, arm64 ones
// do, so a fused expression can give another last bit, and a run another
// trace, on an arm64 host. The world's packages are compiled for arm64
// here and must contain no fused instruction: write float64(x*y) + z where
// a product meets a sum (net/exp.go, net's ppm). The standard library's
// own (math/rand/v2's NormFloat64) are outside this check (README,
// Determinism).
func TestNoFusedMultiplyAdd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	r := root(t)
	args := []string{"build", "-o", os.DevNull, "-gcflags=-S"}
	for _, pkg := range world {
		args = append(args, "./"+pkg)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = r
	cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build for arm64: %v\n%s", err, lastLines(out, 20))
	}
	n := 0
	for _, m := range fused.FindAllSubmatch(out, -1) {
		pos := string(m[1])
		if rel, err := filepath.Rel(r, pos); err == nil && filepath.IsLocal(rel) {
			t.Errorf("%s: a fused multiply-add on arm64 (F%sM%s): convert the product, float64(x*y) + z", rel, m[2], m[3])
			n++
		}
	}
	if len(out) < 1000 {
		t.Fatalf("go build -gcflags=-S printed %d bytes: no assembly to check", len(out))
	}
	t.Logf("%d bytes of arm64 assembly checked, %d fused instructions in the world's packages", len(out), n)
}

// lastLines returns the last n lines of b.
func lastLines(b []byte, n int) string {
	i := len(b)
	for ; n > 0 && i > 0; n-- {
		i--
		for i > 0 && b[i-1] != '\n' {
			i--
		}
	}
	return string(b[i:])
}
