// Package leaktest checks, in tests, that no goroutine outlives the real
// runs of internal/validate and its packages.
package leaktest

import (
	"runtime"
	"testing"
	"time"
)

// Check fails t if more goroutines run than before once 5 s have passed,
// listing them; what names the runs ("the runs").
func Check(t testing.TB, before int, what string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after %s, %d before:\n%s", n, what, before, buf[:runtime.Stack(buf, true)])
	}
}
