package safefile

// TOMLCounts is what CheckTOML counted in data, with no limit in the way.
type TOMLCounts struct{ Depth, Keys, Tables, Values int }

func CountTOML(data []byte) (TOMLCounts, error) {
	n := len(data) + 1
	s, err := scanTOML("counts.toml", data, TOMLLimits{Depth: n, Keys: n, KeyLen: n, Tables: n, Values: n})
	return TOMLCounts{Depth: s.maxDepth, Keys: s.keys, Tables: s.tables, Values: s.values}, err
}
