package indexstatus

import (
	"fmt"
	"strings"

	"github.com/kubectl-indexed/kubectl-indexed/pkg/indexes"
	"github.com/kubectl-indexed/kubectl-indexed/pkg/textwrap"
)

// CauseClauses groups what a sentence says about indexes by cause, as the text view's tables
// group their rows: one clause per distinct wording, naming its indexes as a range set, in the
// order of each cause's first index. At 2,000 indexes a cause shared by 40 of them is one
// clause, not 40 (nor one per pod). The lineage verdict groups its failed shards with it.
type CauseClauses struct {
	order []*causeClause
	by    map[string]*causeClause
}

// causeClause is the indexes of one cause and the pods (or other things) counted for them.
type causeClause struct {
	words string
	ix    indexes.Builder
	n     int
}

// Add records that index i has the cause words, counting n things (pods, restarts) for it.
func (c *CauseClauses) Add(i int, words string, n int) {
	if c.by == nil {
		c.by = map[string]*causeClause{}
	}
	cl := c.by[words]
	if cl == nil {
		cl = &causeClause{words: words}
		c.by[words] = cl
		c.order = append(c.order, cl)
	}
	cl.ix.Add(i)
	cl.n += n
}

// Join words the clauses (at most listLimit, then "and N more causes"), joined by "; ".
func (c *CauseClauses) Join(clause func(ix indexes.Set, n int, words string) string) string {
	var parts []string
	for k, cl := range c.order {
		if k == listLimit {
			parts = append(parts, fmt.Sprintf("and %d more %s", len(c.order)-k, textwrap.Plural(len(c.order)-k, "cause", "causes")))
			break
		}
		parts = append(parts, clause(cl.ix.Set(), cl.n, cl.words))
	}
	return strings.Join(parts, "; ")
}

// indexWords names a set: "index 4", "indexes 1,4,7" (cut at setWidth).
func indexWords(s indexes.Set) string {
	return textwrap.Plural(s.Len(), "index ", "indexes ") + s.Truncated(setWidth)
}
