package sweep

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeRefusesOldHashes: a shard whose trace hashes carry no scheme
// tag (as versions before 0.2.0 wrote them) is refused, in runs.csv and in
// summary.json's sums, instead of merged with v2 hashes.
func TestMergeRefusesOldHashes(t *testing.T) {
	dir := t.TempDir()
	write := func(name, hash string) string {
		p := filepath.Join(dir, name)
		body := "point,seed,mode,trace_hash\n0,1,off," + hash + "\n"
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.csv", "v2:0123456789abcdef")
	old := write("old.csv", "0123456789abcdef")
	var out bytes.Buffer
	if err := mergeCSV(&out, []string{good}, []int64{1}, nil); err != nil {
		t.Fatalf("v2 shard: %v", err)
	}
	err := mergeCSV(&out, []string{good, old}, []int64{1, 1}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a v2 hash") {
		t.Fatalf("untagged shard merged: %v", err)
	}
	var h Hex64
	if err := json.Unmarshal([]byte(`"0123456789abcdef"`), &h); err == nil {
		t.Fatalf("untagged trace_hash_sum accepted")
	}
	if err := json.Unmarshal([]byte(`"v2:0123456789abcdef"`), &h); err != nil || h != 0x0123456789abcdef {
		t.Fatalf("v2 trace_hash_sum: %x, %v", uint64(h), err)
	}
}
