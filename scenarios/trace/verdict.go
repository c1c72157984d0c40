package trace

import (
	"strconv"

	"github.com/idemsim/idemsim/model"
)

// AppendVerdict appends the broker's verdict on a batch as its trace line
// shows it: "append <batch> off=F..L", "duplicate <batch> off=F..L" or
// "reject <batch> ERROR".
func AppendVerdict(b []byte, bt *model.Batch, r *model.AppendResult) []byte {
	switch {
	case r.Duplicate:
		b = append(b, "duplicate "...)
	case r.Err == model.ErrNone:
		b = append(b, "append "...)
	default:
		b = append(b, "reject "...)
	}
	b = bt.AppendDescription(b)
	if r.Err != model.ErrNone {
		b = append(b, ' ')
		return append(b, r.Err.String()...)
	}
	b = append(b, " off="...)
	b = strconv.AppendInt(b, r.FirstOffset, 10)
	b = append(b, ".."...)
	return strconv.AppendInt(b, r.LastOffset, 10)
}
