package model

// MarkerType is the control record of a transaction marker.
type MarkerType uint8

// Marker types.
const (
	MarkerNone MarkerType = iota
	MarkerCommit
	MarkerAbort
)

// String returns "COMMIT", "ABORT" or "".
func (m MarkerType) String() string {
	switch m {
	case MarkerCommit:
		return "COMMIT"
	case MarkerAbort:
		return "ABORT"
	}
	return ""
}
