package indexes

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestParseTable(t *testing.T) {
	cases := []struct {
		in          string
		completions int
		want        []Interval
		wantString  string
		wantErr     string
	}{
		{in: "", completions: 3, want: nil, wantString: ""},
		{in: "0", completions: 1, want: []Interval{{0, 0}}, wantString: "0"},
		{in: "0,1,3-5,7", completions: 8, want: []Interval{{0, 1}, {3, 5}, {7, 7}}, wantString: "0,1,3-5,7"},
		// The API server accepts "1-2"; the controller would write "1,2".
		{in: "1-2", completions: 3, want: []Interval{{1, 2}}, wantString: "1,2"},
		// Adjacent fragments are merged: the writer never splits a run.
		{in: "0,1,2", completions: 3, want: []Interval{{0, 2}}, wantString: "0-2"},
		{in: "0-2,3-5", completions: 6, want: []Interval{{0, 5}}, wantString: "0-5"},
		// strconv.Atoi reads "+3" and "007".
		{in: "+3,007", completions: 8, want: []Interval{{3, 3}, {7, 7}}, wantString: "3,7"},
		{in: "0-99999", completions: 100000, want: []Interval{{0, 99999}}, wantString: "0-99999"},
		// Unbounded.
		{in: "5", completions: Unbounded, want: []Interval{{5, 5}}, wantString: "5"},
		// Errors, as the API server words them.
		{in: "3,1", completions: 6, wantErr: "non-increasing order, previous: 3, current: 1"},
		{in: "1,1", completions: 6, wantErr: "non-increasing order, previous: 1, current: 1"},
		{in: "0-3,2", completions: 6, wantErr: "non-increasing order, previous: 3, current: 2"},
		{in: "2-2", completions: 6, wantErr: "non-increasing order, previous: 2, current: 2"},
		{in: "3-1", completions: 6, wantErr: "non-increasing order, previous: 3, current: 1"},
		{in: "7", completions: 6, wantErr: `too large index: "7"`},
		{in: "1-7", completions: 6, wantErr: `too large index: "7"`},
		{in: "x", completions: 6, wantErr: `cannot convert string to integer for index: "x"`},
		{in: "1,", completions: 6, wantErr: `cannot convert string to integer for index: ""`},
		{in: ",1", completions: 6, wantErr: `cannot convert string to integer for index: ""`},
		{in: "1,,2", completions: 6, wantErr: `cannot convert string to integer for index: ""`},
		{in: "-1", completions: 6, wantErr: `cannot convert string to integer for index: ""`},
		{in: "1-", completions: 6, wantErr: `cannot convert string to integer for index: ""`},
		{in: " 1", completions: 6, wantErr: `cannot convert string to integer for index: " 1"`},
		{in: "1-2-3", completions: 6, wantErr: `the fragment "1-2-3" violates the requirement that an index interval can have at most two parts separated by '-'`},
		{in: "1--2", completions: 6, wantErr: `the fragment "1--2" violates the requirement that an index interval can have at most two parts separated by '-'`},
		{in: "99999999999999999999", completions: 6, wantErr: `cannot convert string to integer for index: "99999999999999999999"`},
		{in: "0", completions: 0, wantErr: `too large index: "0"`},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q/%d", c.in, c.completions), func(t *testing.T) {
			got, err := Parse(c.in, c.completions)
			if c.wantErr != "" {
				if err == nil || err.Error() != c.wantErr {
					t.Fatalf("Parse(%q) error = %v, want %q", c.in, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", c.in, err)
			}
			if !slices.Equal(got.Intervals(), c.want) {
				t.Errorf("Parse(%q) = %v, want %v", c.in, got.Intervals(), c.want)
			}
			if s := got.String(); s != c.wantString {
				t.Errorf("String() = %q, want %q", s, c.wantString)
			}
		})
	}
}

func TestParseLenientTable(t *testing.T) {
	cases := []struct {
		in           string
		completions  int
		want         string
		wantProblems int
	}{
		{in: "", completions: 3, want: ""},
		{in: "0,1,3-5,7", completions: 8, want: "0,1,3-5,7"},
		{in: "1-2", completions: 3, want: "1,2"},
		// Corrupt fragments are skipped, the rest read.
		{in: "x,2,y-3,4", completions: 6, want: "2,4", wantProblems: 2},
		{in: "1,,3", completions: 6, want: "1,3", wantProblems: 1},
		// Reading stops at the first index at or above completions (elastic scale-down).
		{in: "0,4,1", completions: 3, want: "0", wantProblems: 1},
		// An interval reaching past completions is clipped.
		{in: "0-9", completions: 4, want: "0-3", wantProblems: 1},
		// Parts after a second '-' are ignored.
		{in: "1-2-3", completions: 6, want: "1,2", wantProblems: 1},
		// Unsorted input is read as a set.
		{in: "3,1", completions: 6, want: "1,3", wantProblems: 1},
		// An inverted interval covers nothing.
		{in: "5-3", completions: 6, want: "", wantProblems: 1},
		{in: "-", completions: 6, want: "", wantProblems: 1},
		{in: "0", completions: 0, want: "", wantProblems: 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q/%d", c.in, c.completions), func(t *testing.T) {
			got, problems := ParseLenient(c.in, c.completions)
			if got.String() != c.want {
				t.Errorf("ParseLenient(%q, %d) = %q, want %q", c.in, c.completions, got.String(), c.want)
			}
			if len(problems) != c.wantProblems {
				t.Errorf("problems = %q, want %d of them", problems, c.wantProblems)
			}
			if ref := controllerCovered(c.in, c.completions); !got.Equal(ref) {
				t.Errorf("ParseLenient(%q) = %q, controller reads %q", c.in, got, ref)
			}
		})
	}
}

func TestSetOperations(t *testing.T) {
	a := Of(0, 1, 2, 5, 7, 8, 9, 20)
	b := Of(2, 3, 8, 15, 20, 21)
	check := func(name string, got Set, want []int) {
		t.Helper()
		if !got.Equal(Of(want...)) {
			t.Errorf("%s = %q, want %q", name, got, Of(want...))
		}
		if slices.Collect(got.All()) == nil && len(want) > 0 {
			t.Errorf("%s: All yields nothing", name)
		}
	}
	check("union", a.Union(b), []int{0, 1, 2, 3, 5, 7, 8, 9, 15, 20, 21})
	check("intersect", a.Intersect(b), []int{2, 8, 20})
	check("difference", a.Difference(b), []int{0, 1, 5, 7, 9})
	check("complement", a.Complement(12), []int{3, 4, 6, 10, 11})
	check("below", a.Below(8), []int{0, 1, 2, 5, 7})
	if got, want := a.String(), "0-2,5,7-9,20"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if a.Len() != 8 || !a.Has(8) || a.Has(3) || a.Has(21) || a.Has(-1) || a.Max() != 20 {
		t.Errorf("Len/Has/Max wrong for %q", a)
	}
	if (Set{}).Max() != -1 || !(Set{}).IsEmpty() || (Set{}).String() != "" {
		t.Error("empty set misbehaves")
	}
	if got := Range(5, 3); !got.IsEmpty() {
		t.Errorf("Range(5,3) = %q", got)
	}
}

func TestTruncated(t *testing.T) {
	s := Of(0, 2, 4, 6, 8, 10, 12)
	if got, want := s.Truncated(100), "0,2,4,6,8,10,12"; got != want {
		t.Errorf("Truncated(100) = %q, want %q", got, want)
	}
	if got, want := s.Truncated(7), "0,2,4,6 (and 3 more)"; got != want {
		t.Errorf("Truncated(7) = %q, want %q", got, want)
	}
	if got, want := Range(0, 99999).Truncated(3), "0-99999"; got != want {
		t.Errorf("one interval is always shown: got %q", got)
	}
}

func TestBuilderOutOfOrder(t *testing.T) {
	var b Builder
	for _, i := range []int{9, 3, 4, 5, 1, 2, 9, 0, -4, 7} {
		b.Add(i)
	}
	b.AddInterval(10, 12)
	if got, want := b.Set().String(), "0-5,7,9-12"; got != want {
		t.Errorf("Builder = %q, want %q", got, want)
	}
	b.Add(6)
	if got, want := b.Set().String(), "0-7,9-12"; got != want {
		t.Errorf("Builder after Add(6) = %q, want %q", got, want)
	}
}

func TestWriterMatchesController(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		var idx []int
		for i := range 200 {
			if r.IntN(3) == 0 {
				idx = append(idx, i)
			}
		}
		s := Of(idx...)
		if got, want := s.String(), controllerString(s.Intervals()); got != want {
			t.Fatalf("String = %q, controller writes %q", got, want)
		}
		back, err := Parse(s.String(), 200)
		if err != nil || !back.Equal(s) {
			t.Fatalf("Parse(String()) = %q, %v; want %q", back, err, s)
		}
	}
}

func TestJSON(t *testing.T) {
	var s Set
	if err := s.UnmarshalText([]byte("1-2,4")); err != nil {
		t.Fatal(err)
	}
	b, _ := s.MarshalText()
	if string(b) != "1,2,4" {
		t.Errorf("MarshalText = %q", b)
	}
	if err := s.UnmarshalText([]byte("2,1")); err == nil {
		t.Error("UnmarshalText accepted a decreasing list")
	}
	// omitzero leaves out an empty set however it was made, as omitempty an empty string.
	type row struct {
		A Set `json:"a,omitzero"`
		B Set `json:"b"`
	}
	if b, err := json.Marshal(row{A: Set{}.Union(Set{}), B: Of(3)}); err != nil || string(b) != `{"b":"3"}` {
		t.Errorf("json = %s, %v", b, err)
	}
}

func TestParseRootIndexes(t *testing.T) {
	if s, err := ParseRootIndexes("0,2147483646"); err != nil || s.Max() != 2147483646 {
		t.Errorf("the largest completion index: %v, %v", s, err)
	}
	if _, err := ParseRootIndexes("2147483647"); err == nil {
		t.Error("an index no Job has was accepted")
	}
	if _, err := ParseRootIndexes("3,1"); err == nil {
		t.Error("a decreasing list was accepted")
	}
}

// --- reference implementations, copied from Kubernetes v1.37.2 for comparison ---

// apiserverValidate is validateIndexesFormat + parseIndexInterval
// (pkg/apis/batch/validation/validation.go), with the int32 completions widened to int.
func apiserverValidate(indexesStr string, completions int) (int, error) {
	if len(indexesStr) == 0 {
		return 0, nil
	}
	var lastIndex *int
	var total int
	for _, intervalStr := range strings.Split(indexesStr, ",") {
		x, y, err := apiserverParseIndexInterval(intervalStr, completions)
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

func apiserverParseIndexInterval(intervalStr string, completions int) (int, int, error) {
	limitsStr := strings.Split(intervalStr, "-")
	if len(limitsStr) > 2 {
		return 0, 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", intervalStr)
	}
	x, err := strconv.Atoi(limitsStr[0])
	if err != nil {
		return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limitsStr[0])
	}
	if x >= completions {
		return 0, 0, fmt.Errorf("too large index: %q", limitsStr[0])
	}
	if len(limitsStr) > 1 {
		y, err := strconv.Atoi(limitsStr[1])
		if err != nil {
			return 0, 0, fmt.Errorf("cannot convert string to integer for index: %q", limitsStr[1])
		}
		if y >= completions {
			return 0, 0, fmt.Errorf("too large index: %q", limitsStr[1])
		}
		if x >= y {
			return 0, 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", x, y)
		}
		return x, y, nil
	}
	return x, x, nil
}

// controllerParse is parseIndexesFromString (pkg/controller/job/indexed_job_utils.go).
func controllerParse(indexesStr string, completions int) []Interval {
	if indexesStr == "" {
		return nil
	}
	var result []Interval
	var lastInterval *Interval
	for _, intervalStr := range strings.Split(indexesStr, ",") {
		limitsStr := strings.Split(intervalStr, "-")
		var inter Interval
		var err error
		inter.First, err = strconv.Atoi(limitsStr[0])
		if err != nil {
			continue
		}
		if inter.First >= completions {
			break
		}
		if len(limitsStr) > 1 {
			inter.Last, err = strconv.Atoi(limitsStr[1])
			if err != nil {
				continue
			}
			if inter.Last >= completions {
				inter.Last = completions - 1
			}
		} else {
			inter.Last = inter.First
		}
		if lastInterval != nil && lastInterval.Last == inter.First-1 {
			lastInterval.Last = inter.Last
		} else {
			result = append(result, inter)
			lastInterval = &result[len(result)-1]
		}
	}
	return result
}

// controllerCovered is the set of indexes the controller's intervals cover.
func controllerCovered(s string, completions int) Set {
	return FromIntervals(controllerParse(s, completions)...)
}

// controllerString is orderedIntervals.String (pkg/controller/job/indexed_job_utils.go).
func controllerString(oi []Interval) string {
	var builder strings.Builder
	for _, v := range oi {
		if builder.Len() > 0 {
			builder.WriteRune(',')
		}
		builder.WriteString(strconv.Itoa(v.First))
		if v.Last > v.First {
			if v.Last == v.First+1 {
				builder.WriteRune(',')
			} else {
				builder.WriteRune('-')
			}
			builder.WriteString(strconv.Itoa(v.Last))
		}
	}
	return builder.String()
}

// grammarAccepts is an independent statement of the grammar of completedIndexes and
// failedIndexes (pkg/controller/job/indexed_job_utils.go in Kubernetes v1.37.2):
// list := "" | iv ("," iv)*, iv := N | N "-" M with N < M, every number < completions, each
// interval strictly after the previous one; N as strconv.Atoi reads it.
var fragRE = regexp.MustCompile(`^\+?([0-9]+)(?:-\+?([0-9]+))?$`)

func grammarAccepts(s string, completions int) ([]Interval, bool) {
	if s == "" {
		return nil, true
	}
	var out []Interval
	prev := -1
	for _, frag := range strings.Split(s, ",") {
		m := fragRE.FindStringSubmatch(frag)
		if m == nil {
			return nil, false
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || n >= completions || n <= prev {
			return nil, false
		}
		last := n
		if m[2] != "" {
			mm, err := strconv.Atoi(m[2])
			if err != nil || mm >= completions || mm <= n {
				return nil, false
			}
			last = mm
		}
		out = append(out, Interval{n, last})
		prev = last
	}
	return out, true
}

// ValidateFormat answers as the API server's validateIndexesFormat for successPolicy
// succeededIndexes: the count, and the error texts lint shows word for word.
func TestValidateFormat(t *testing.T) {
	for _, tc := range []struct {
		in          string
		completions int32
		total       int32
		err         string
	}{
		{"", 8, 0, ""}, {"0", 8, 1, ""}, {"0,2-4,6", 8, 5, ""}, {"1-2", 8, 2, ""},
		{"2-1", 8, 0, "non-increasing order, previous: 2, current: 1"},
		{"0,0", 8, 0, "non-increasing order, previous: 0, current: 0"},
		{"1,", 8, 0, `cannot convert string to integer for index: ""`},
		{"-1", 8, 0, `cannot convert string to integer for index: ""`},
		{"8", 8, 0, `too large index: "8"`},
		// No completions, or negative ones: every index is too large (not Unbounded).
		{"", -1, 0, ""},
		{"0", 0, 0, `too large index: "0"`},
		{"0", -1, 0, `too large index: "0"`},
		{"0-2147483646", 2147483647, 2147483647, ""},
	} {
		total, err := ValidateFormat(tc.in, tc.completions)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if total != tc.total || gotErr != tc.err {
			t.Errorf("%q/%d: %d, %q; want %d, %q", tc.in, tc.completions, total, gotErr, tc.total, tc.err)
		}
	}
	if set, err := Parse("0,2-4", 8); err != nil || !slices.Equal(slices.Collect(set.All()), []int{0, 2, 3, 4}) {
		t.Errorf("indexes of 0,2-4: %v, %v", set, err)
	}
}

// --- fuzz tests ---

func addSeeds(f *testing.F) {
	for _, s := range []string{"", "0", "0,1,3-5,7", "1-2", "3,1", "1-2-3", "x", "1,,2", ",", "-", "-1", "+3", "007",
		"0-99999", "5-3", "99999999999999999999", "1-", "0,2-4,6,8-9", " 1", "1 ,2", "0-1,1-2"} {
		f.Add(s, uint32(10))
		f.Add(s, uint32(100000))
	}
}

// FuzzParse checks Parse against the API server's own code and against the grammar, and the
// round trip through the writer.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string, c uint32) {
		completions := int(c % 200000)
		got, err := Parse(s, completions)
		_, refErr := apiserverValidate(s, completions)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("Parse(%q, %d) error = %v; the API server says %v", s, completions, err, refErr)
		}
		if err != nil {
			if err.Error() != refErr.Error() {
				t.Fatalf("Parse(%q, %d) error = %q; the API server says %q", s, completions, err, refErr)
			}
		}
		ivs, ok := grammarAccepts(s, completions)
		if ok != (err == nil) {
			t.Fatalf("Parse(%q, %d) error = %v; grammar accepts: %v", s, completions, err, ok)
		}
		if err != nil {
			return
		}
		if want := FromIntervals(ivs...); !got.Equal(want) {
			t.Fatalf("Parse(%q) = %q, grammar reads %q", s, got, want)
		}
		// Valid input is read the same by the controller, and the writer's output is valid
		// input that reads back to the same set.
		if ref := controllerCovered(s, completions); !ref.Equal(got) {
			t.Fatalf("Parse(%q) = %q, controller reads %q", s, got, ref)
		}
		w := got.String()
		if w != controllerString(got.Intervals()) {
			t.Fatalf("String() = %q, controller writes %q", w, controllerString(got.Intervals()))
		}
		back, err := Parse(w, completions)
		if err != nil || !back.Equal(got) {
			t.Fatalf("Parse(String()) = %q, %v; want %q", back, err, got)
		}
		if got.Len() > completions {
			t.Fatalf("Len %d > completions %d", got.Len(), completions)
		}
	})
}

// FuzzValidateFormat checks ValidateFormat against the API server's own code, for any int32
// completions (negative ones included): same verdict, same error text, same count.
func FuzzValidateFormat(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string, c uint32) {
		completions := int32(c) // the whole int32 range
		total, err := ValidateFormat(s, completions)
		refTotal, refErr := apiserverValidate(s, int(completions))
		if (err == nil) != (refErr == nil) || (err != nil && err.Error() != refErr.Error()) {
			t.Fatalf("ValidateFormat(%q, %d) error = %v; the API server says %v", s, completions, err, refErr)
		}
		if int(total) != refTotal {
			t.Fatalf("ValidateFormat(%q, %d) = %d; the API server counts %d", s, completions, total, refTotal)
		}
	})
}

// FuzzParseLenient checks that ParseLenient never panics and reads what the controller reads.
func FuzzParseLenient(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, s string, c uint32) {
		completions := int(c % 200000)
		got, problems := ParseLenient(s, completions)
		if want := controllerCovered(s, completions); !got.Equal(want) {
			t.Fatalf("ParseLenient(%q, %d) = %q, controller reads %q", s, completions, got, want)
		}
		if got.Max() >= completions {
			t.Fatalf("ParseLenient(%q, %d) holds %d", s, completions, got.Max())
		}
		if _, err := Parse(s, completions); err == nil && len(problems) > 0 {
			t.Fatalf("ParseLenient(%q) reports %q for valid input", s, problems)
		}
		if len(problems) > maxProblems+1 {
			t.Fatalf("%d problems", len(problems))
		}
	})
}

// --- benchmarks on 100,000-index strings ---

func benchStrings() map[string]string {
	var every, pairs []int
	for i := range 200000 {
		if i%2 == 0 {
			every = append(every, i)
		}
		if i%3 != 2 && i < 150000 {
			pairs = append(pairs, i)
		}
	}
	return map[string]string{
		"singletons": Of(every...).String(), // 100,000 indexes, 100,000 fragments "0,2,4,..."
		"pairs":      Of(pairs...).String(), // 100,000 indexes written "0,1,3,4,..."
		"one-range":  "0-99999",
	}
}

func BenchmarkParse(b *testing.B) {
	for name, s := range benchStrings() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				set, err := Parse(s, 200000)
				if err != nil || set.Len() != 100000 {
					b.Fatalf("Parse: %v, %d", err, set.Len())
				}
			}
		})
	}
}

func BenchmarkParseLenient(b *testing.B) {
	for name, s := range benchStrings() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				if set, _ := ParseLenient(s, 200000); set.Len() != 100000 {
					b.Fatalf("ParseLenient: %d", set.Len())
				}
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	for name, s := range benchStrings() {
		set, _ := Parse(s, 200000)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				if set.String() != s {
					b.Fatal("round trip")
				}
			}
		})
	}
}

// BenchmarkControllerParse is the controller's own reader on the same strings, for comparison.
func BenchmarkControllerParse(b *testing.B) {
	for name, s := range benchStrings() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				_ = controllerParse(s, 200000)
			}
		})
	}
}

func TestFirst(t *testing.T) {
	s := Of(0, 2, 3, 4, 5, 9)
	for n, want := range map[int]string{-1: "", 0: "", 1: "0", 2: "0,2", 4: "0,2-4", 6: "0,2-5,9", 100: "0,2-5,9"} {
		if got := s.First(n).String(); got != want {
			t.Errorf("First(%d) = %q, want %q", n, got, want)
		}
		if got := s.First(n); got.Len() != min(max(n, 0), s.Len()) {
			t.Errorf("First(%d) has %d indexes", n, got.Len())
		}
	}
}

func TestWrapped(t *testing.T) {
	s := Of(0, 1, 2, 3, 5, 6, 9, 11, 12, 13, 100, 1000)
	for _, tc := range []struct {
		width int
		want  []string
	}{
		{80, []string{"0-3,5,6,9,11-13,100,1000"}},
		{10, []string{"0-3,5,6,9,", "11-13,100,", "1000"}},
		{9, []string{"0-3,5,6,", "9,11-13,", "100,1000"}},
		{2, []string{"0-3,", "5,6,", "9,", "11-13,", "100,", "1000"}},
	} {
		got := s.Wrapped(tc.width)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("width %d: %q, want %q", tc.width, got, tc.want)
		}
		for _, l := range got {
			if len(l) > tc.width && tc.width >= len("11-13,") {
				t.Errorf("width %d: line %q is longer", tc.width, l)
			}
		}
		if strings.ReplaceAll(strings.Join(got, ""), ",,", ",") != s.String() {
			t.Errorf("width %d: the lines %q do not make %q", tc.width, got, s.String())
		}
	}
	if got := (Set{}).Wrapped(10); got != nil {
		t.Errorf("empty: %q", got)
	}
}

// Below returns the indexes of s that are less than n.
func (s Set) Below(n int) Set { return s.Intersect(Range(0, n-1)) }
