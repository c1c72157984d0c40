package model

import "strconv"

// AppendBrokers appends broker indexes as names: "[b1,b2]".
func AppendBrokers(dst []byte, ids []int32) []byte {
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, 'b')
		dst = append(dst, strconv.FormatInt(int64(id)+1, 10)...)
	}
	return append(dst, ']')
}
