package sweep

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"testing"
)

// csvReference is what encoding/csv writes for rec.
func csvReference(t testing.TB, rec []string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return buf.Bytes()
}

// TestCSVFieldAsEncodingCSV: records of fields drawn from characters that
// matter to the quoting (commas, quotes, line ends, ASCII and other
// spaces, `\.`, multi-byte and invalid UTF-8) come out byte for byte as
// encoding/csv writes them, as strings and as bytes.
func TestCSVFieldAsEncodingCSV(t *testing.T) {
	pieces := []string{"a", "7", ",", `"`, "\r", "\n", " ", "\t", "\u00a0", "\u2028", "\u3000", "é", "\xff", `\`, ".", `\.`, "{", ":", "-"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		rec := make([]string, 1+rng.IntN(4))
		for i := range rec {
			for range rng.IntN(5) {
				rec[i] += pieces[rng.IntN(len(pieces))]
			}
		}
		want := csvReference(t, rec)
		if got := appendCSVRecord(nil, rec); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %q, encoding/csv %q", rec, got, want)
		}
		var got []byte
		for i, f := range rec {
			if i > 0 {
				got = append(got, ',')
			}
			got = appendCSVField(got, []byte(f))
		}
		if got = append(got, '\n'); !bytes.Equal(got, want) {
			t.Fatalf("%q as bytes: wrote %q, encoding/csv %q", rec, got, want)
		}
	}
}

// FuzzCSVField: any two fields are written as encoding/csv writes them.
func FuzzCSVField(f *testing.F) {
	for _, s := range []string{"", "a", `\.`, " x", "a,b", `say "hi"`, "\r\n", "\u00a0lead", "\xffbad"} {
		f.Add(s, "z")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		rec := []string{a, b}
		if got, want := appendCSVRecord(nil, rec), csvReference(t, rec); !bytes.Equal(got, want) {
			t.Fatalf("%q: wrote %q, encoding/csv %q", rec, got, want)
		}
	})
}
