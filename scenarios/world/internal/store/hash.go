package store

import (
	"reflect"

	"github.com/idemsim/idemsim/scenarios/world/internal/hashwalk"
	"github.com/idemsim/idemsim/sim"
)

// RecordSetHash is the state hash's walk of a RecordSet
// (scenarios/world/statehash.go): its members, in order, made whole, not
// the window's storage.
var RecordSetHash = hashwalk.Special{Type: reflect.TypeFor[RecordSet](),
	Fields: []string{"n", "slots", "odd", "app", "off", "base", "size", "slots[]Flags", "slots[]Sent", "slots[]Part"}, Walk: recordSetHash}

func recordSetHash(h *hashwalk.Hasher, f hashwalk.Fields) {
	h.U64(uint64(f.At(0).Int()))
	slots, odd, app := f.At(1), f.At(2), int32(f.At(3).Int())
	off, base := int(f.At(4).Int()), f.At(5).Int()
	flags, sentAt, partAt := f.Path(7), f.Path(8), f.Path(9)
	for i := off; i < off+int(f.At(6).Int()); i++ {
		switch sl, n := slots.Index(i), base+int64(i-off); {
		case sl.FieldByIndex(flags).Uint()&uint64(SlotOdd) != 0:
			h.Value(odd.MapIndex(reflect.ValueOf(n)))
		case sl.FieldByIndex(flags).Uint()&uint64(SlotPresent) != 0:
			sent, part := sim.Time(sl.FieldByIndex(sentAt).Int()), int32(sl.FieldByIndex(partAt).Int())
			h.Value(reflect.ValueOf(Member(app, n, RecordSlot{Sent: sent, Part: part}, nil)))
		}
	}
}
