package sweep

import (
	"unicode"
	"unicode/utf8"
)

// runs.csv is written as encoding/csv's Writer writes it (comma ',',
// UseCRLF false), with the encoding done here on bytes so that a row is
// appended to one buffer, with no string per cell: a field is quoted when
// it holds a comma, a quote, a carriage return or a newline, when its
// first character is a space (unicode.IsSpace), or when it is `\.`; in a
// quoted field a quote is doubled, and a record ends with a newline.
// TestCSVFieldAsEncodingCSV and FuzzCSVField hold it to encoding/csv.

// appendCSVField appends field s, quoted if it must be.
func appendCSVField[S ~string | ~[]byte](b []byte, s S) []byte {
	if !csvNeedsQuotes(s) {
		return append(b, s...)
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, s[start:i+1]...)
			b = append(b, '"')
			start = i + 1
		}
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// csvNeedsQuotes reports whether encoding/csv quotes field s.
func csvNeedsQuotes[S ~string | ~[]byte](s S) bool {
	if len(s) == 0 {
		return false
	}
	if len(s) == 2 && s[0] == '\\' && s[1] == '.' {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	if c := s[0]; c < utf8.RuneSelf {
		return unicode.IsSpace(rune(c))
	}
	var first [utf8.UTFMax]byte
	r, _ := utf8.DecodeRune(first[:copy(first[:], s)])
	return unicode.IsSpace(r)
}

// appendCSVRecord appends the fields of rec as one record.
func appendCSVRecord(b []byte, rec []string) []byte {
	for i, f := range rec {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, f)
	}
	return append(b, '\n')
}
