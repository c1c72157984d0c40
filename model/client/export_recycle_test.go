package client

// SetDebugRecycle turns the recycling checks (debugRecycle) on or off and
// returns the previous setting; for the tests of package model_test.
func SetDebugRecycle(on bool) bool {
	old := debugRecycle
	debugRecycle = on
	return old
}
