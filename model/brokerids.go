package model

// AppendBrokers appends broker indexes as names: "[b1,b2]".
func AppendBrokers(dst []byte, ids []int32) []byte {
	dst = append(dst, '[')
	for i, id := range ids {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, 'b')
		dst = append(dst, itoa(int64(id)+1)...)
	}
	return append(dst, ']')
}
