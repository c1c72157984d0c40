package storage

import "strconv"

// appendInt appends v in decimal.
func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

// itoa returns v in decimal.
func itoa(v int64) string {
	var buf [20]byte
	return string(appendInt(buf[:0], v))
}
