package indexes

// Named is the set as a sentence names it: "index 4" for one index, "indexes 2,4-9" for more
// (or none), the list cut at limit bytes as Truncated cuts it (limit <= 0: the whole list).
func (s Set) Named(limit int) string {
	noun := "indexes "
	if s.Len() == 1 {
		noun = "index "
	}
	if limit <= 0 {
		return noun + s.String()
	}
	return noun + s.Truncated(limit)
}
