package verbrun

import (
	"errors"
	"slices"
	"testing"
)

// Each step runs only when the one before succeeded, and the first error is returned.
func TestRunStopsAtTheFirstError(t *testing.T) {
	bad := errors.New("refused")
	for _, tc := range []struct {
		failAt int // 0: none
		want   []string
	}{
		{0, []string{"complete", "validate", "run"}},
		{1, []string{"complete"}},
		{2, []string{"complete", "validate"}},
		{3, []string{"complete", "validate", "run"}},
	} {
		var ran []string
		step := func(name string, n int) func() error {
			return func() error {
				ran = append(ran, name)
				if n == tc.failAt {
					return bad
				}
				return nil
			}
		}
		err := Run(step("complete", 1), step("validate", 2), step("run", 3))
		if !slices.Equal(ran, tc.want) || (tc.failAt == 0) != (err == nil) || (err != nil && !errors.Is(err, bad)) {
			t.Errorf("fail at %d: ran %v, err %v", tc.failAt, ran, err)
		}
	}
}
