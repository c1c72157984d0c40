package params

import "fmt"

// BugSetConflict returns the error for a command line whose -set gives a
// key one of its -bug IDs sets a different value: the -set would silently
// turn the defect off, so the command line refuses it (one line). A -set
// of the same value is no conflict.
func BugSetConflict(bugs []string, sets []KV) error {
	for _, id := range bugs {
		b, err := LookupBug(id)
		if err != nil {
			continue
		}
		for _, bk := range b.Sets {
			for _, kv := range sets {
				if kv.Key == bk.Key && kv.Value != bk.Value {
					return fmt.Errorf("-bug %s sets %s=%s, and -set %s=%s would turn it off (give one)", b.ID, bk.Key, bk.Value, kv.Key, kv.Value)
				}
			}
		}
	}
	return nil
}
