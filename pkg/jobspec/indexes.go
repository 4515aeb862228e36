package jobspec

import (
	"fmt"
	"strconv"
	"strings"
)

// ValidateIndexesFormat mirrors validation.go: validateIndexesFormat, the grammar the API
// server accepts for completedIndexes, failedIndexes and successPolicy succeededIndexes:
// "" or comma-separated intervals "N" / "N-M" (N<M), strictly increasing, every index below
// completions. It returns the number of indexes covered.
func ValidateIndexesFormat(indexesStr string, completions int32) (int32, error) {
	if len(indexesStr) == 0 {
		return 0, nil
	}
	var lastIndex *int32
	var total int32
	for _, intervalStr := range strings.Split(indexesStr, ",") {
		x, y, err := parseIndexInterval(intervalStr, completions)
		if err != nil {
			return 0, err
		}
		if lastIndex != nil && *lastIndex >= x {
			return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", *lastIndex, x)
		}
		total += y - x + 1
		lastIndex = &y
	}
	return total, nil
}

// IndexesCovered returns the indexes of a valid interval list (as ValidateIndexesFormat
// accepts it), or nil.
func IndexesCovered(indexesStr string, completions int32) []int32 {
	if _, err := ValidateIndexesFormat(indexesStr, completions); err != nil || indexesStr == "" {
		return nil
	}
	var out []int32
	for _, iv := range strings.Split(indexesStr, ",") {
		x, y, _ := parseIndexInterval(iv, completions)
		for i := x; i <= y; i++ {
			out = append(out, i)
		}
	}
	return out
}

func parseIndexInterval(intervalStr string, completions int32) (int32, int32, error) {
	limitsStr := strings.Split(intervalStr, "-")
	if len(limitsStr) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", intervalStr)
	}
	x, err := strconv.Atoi(limitsStr[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limitsStr[0])
	}
	if x >= int(completions) {
		return 0, 0, fmt.Errorf("too large index: %q", limitsStr[0])
	}
	if len(limitsStr) > 1 {
		y, err := strconv.Atoi(limitsStr[1])
		if err != nil {
			return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limitsStr[1])
		}
		if y >= int(completions) {
			return 0, 0, fmt.Errorf("too large index: %q", limitsStr[1])
		}
		if x >= y {
			return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
		}
		return int32(x), int32(y), nil
	}
	return int32(x), int32(x), nil
}
