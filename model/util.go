package model

import "strconv"

func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }
