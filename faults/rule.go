package faults

// IsRule reports whether a is a message rule: an action that arms a rule
// at its time and acts later, on the message it names by its number on
// its link ([Drop], [Reject], [Delay], [Duplicate], [Late]). A world
// prints a rule's line when the rule fires, where it acts on its
// message, not when it is armed; a rule that never fires prints nothing.
func IsRule(a Action) bool {
	switch a.(type) {
	case Drop, Reject, Delay, Duplicate, Late:
		return true
	}
	return false
}

// ByNumber reports whether a is a message rule that names its message by
// its number on its link alone, so that arming it later changes nothing
// for a message sent after it is armed: every rule but a [Late] of a
// request type, which counts that type's requests from when it is armed.
func ByNumber(a Action) bool {
	l, late := a.(Late)
	return IsRule(a) && (!late || l.Type == "")
}
