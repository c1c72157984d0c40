package broker

import "strconv"

// itoa returns v in decimal.
func itoa(v int64) string {
	var buf [20]byte
	return string(strconv.AppendInt(buf[:0], v, 10))
}
