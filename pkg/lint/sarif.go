package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/url"
	"path/filepath"
	"strings"
)

// SARIF 2.1.0 (OASIS, https://docs.oasis-open.org/sarif/sarif/v2.1.0/sarif-v2.1.0.html), the
// subset lint writes: one run, its tool with every rule, one result per finding.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// SARIFRootBase is the uriBaseId artifact URIs are relative to (§3.14.14: %SRCROOT% is the
	// conventional name of the root of the sources; GitHub code scanning resolves it to the
	// repository checkout).
	SARIFRootBase = "%SRCROOT%"
	// InformationURI is the project's home page, named by the SARIF tool and the JUnit suite.
	InformationURI = "https://github.com/kubectl-indexed/kubectl-indexed"
)

// SARIFOptions tune WriteSARIF.
type SARIFOptions struct {
	// ToolVersion is the version of kubectl-indexed (tool.driver.version).
	ToolVersion string
	// Root is the absolute directory %SRCROOT% stands for: a file under it gets a URI relative
	// to it, any other file an absolute file:// URI. Empty: every relative file path is taken
	// as relative to the root already.
	Root string
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                   `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult               `json:"results"`
	ColumnKind         string                      `json:"columnKind"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifMessage struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRule struct {
	ID                   string             `json:"id"`
	Name                 string             `json:"name,omitempty"`
	ShortDescription     sarifMessage       `json:"shortDescription"`
	FullDescription      sarifMessage       `json:"fullDescription"`
	Help                 sarifMessage       `json:"help"`
	HelpURI              string             `json:"helpUri"`
	DefaultConfiguration sarifConfiguration `json:"defaultConfiguration"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifMessage      `json:"message"`
	Locations  []sarifLocation   `json:"locations"`
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
	Region           *sarifRegion     `json:"region,omitempty"`
}

type sarifArtifactLoc struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine int `json:"startLine"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

// SARIFLevel maps a severity to a SARIF level: error, warning, or note for info.
func SARIFLevel(s Severity) string { return severities[s].sarif }

// WriteSARIF writes report as a SARIF 2.1.0 log: tool.driver names every rule with its why and
// fix as help, and each finding is one result, in the report's order.
func WriteSARIF(w io.Writer, report *Report, opts SARIFOptions) error {
	rules := Rules()
	index := make(map[string]int, len(rules))
	driver := sarifDriver{Name: "kubectl-indexed lint", Version: sarifVersion(opts.ToolVersion), InformationURI: InformationURI}
	for i, r := range rules {
		index[r.ID] = i
		driver.Rules = append(driver.Rules, sarifRule{
			ID:               r.ID,
			Name:             ruleName(r.ID), // "" (omitted) when it would only repeat the ID
			ShortDescription: sarifMessage{Text: r.What},
			FullDescription:  sarifMessage{Text: r.What + " " + r.Why},
			Help: sarifMessage{
				Text:     "Why: " + r.Why + "\nFix: " + r.Fix,
				Markdown: "**Why:** " + r.Why + "\n\n**Fix:** " + r.Fix,
			},
			HelpURI:              InformationURI + "/blob/main/docs/lint.md#rules",
			DefaultConfiguration: sarifConfiguration{Level: SARIFLevel(r.Severity)},
		})
	}
	run := sarifRun{Tool: sarifTool{Driver: driver}, Results: make([]sarifResult, 0, len(report.Findings)), ColumnKind: "unicodeCodePoints"}
	if opts.Root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{SARIFRootBase: {URI: fileURI(opts.Root, true)}}
	}
	for _, f := range report.Findings {
		ri, ok := index[f.Rule]
		if !ok {
			return fmt.Errorf("finding of unknown rule %q", f.Rule)
		}
		msg := f.Message
		if f.Object != "" {
			msg = f.Object + ": " + msg
		}
		res := sarifResult{RuleID: f.Rule, RuleIndex: ri, Level: SARIFLevel(f.Severity), Message: sarifMessage{Text: msg},
			Locations: []sarifLocation{}}
		loc := sarifLocation{}
		if f.File != "" && f.File != "-" {
			loc.PhysicalLocation = &sarifPhysical{ArtifactLocation: artifactLocation(f.File, opts.Root)}
			if f.Line > 0 {
				loc.PhysicalLocation.Region = &sarifRegion{StartLine: f.Line}
			}
		}
		if f.Object != "" {
			name := f.Object
			if f.Path != "" {
				name += "." + f.Path
			}
			loc.LogicalLocations = []sarifLogical{{FullyQualifiedName: name, Kind: "object"}}
		}
		if loc.PhysicalLocation != nil || loc.LogicalLocations != nil {
			res.Locations = append(res.Locations, loc)
		}
		props := map[string]string{"path": f.Path, "namespace": f.Namespace}
		maps.DeleteFunc(props, func(_, v string) bool { return v == "" })
		if len(props) > 0 {
			res.Properties = props
		}
		run.Results = append(run.Results, res)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}

// artifactLocation names file relative to %SRCROOT% when it lies under root (or root is
// unknown and file is relative), as an absolute file:// URI otherwise.
func artifactLocation(file, root string) sarifArtifactLoc {
	if root != "" {
		abs := file
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, abs)
		}
		if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return sarifArtifactLoc{URI: relativeURI(rel), URIBaseID: SARIFRootBase}
		}
		return sarifArtifactLoc{URI: fileURI(abs, false)}
	}
	if filepath.IsAbs(file) {
		return sarifArtifactLoc{URI: fileURI(file, false)}
	}
	return sarifArtifactLoc{URI: relativeURI(filepath.Clean(file)), URIBaseID: SARIFRootBase}
}

// relativeURI is a relative reference (RFC 3986 §4.2) for a relative file path: slashes,
// each segment percent-encoded.
func relativeURI(rel string) string {
	u := url.URL{Path: filepath.ToSlash(rel)}
	s := u.EscapedPath()
	// A first segment with a colon would read as a scheme (RFC 3986 §4.2).
	if first, _, _ := strings.Cut(s, "/"); strings.Contains(first, ":") {
		s = "./" + s
	}
	return s
}

// fileURI is the file:// URI of an absolute path; dir adds the trailing slash a base URI needs
// (SARIF §3.14.14).
func fileURI(abs string, dir bool) string {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/...
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// ruleName is the rule ID in PascalCase, the form SARIF §3.49.7 suggests for
// reportingDescriptor.name, or "" for a one-word ID: a name that differs from the ID only in
// case is one the Multitool rejects (SARIF1001: name and id must differ).
func ruleName(id string) string {
	if !strings.Contains(id, "-") {
		return ""
	}
	var b strings.Builder
	for _, part := range strings.Split(id, "-") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// sarifVersion is a tool version that starts with a number, as SARIF consumers compare them
// (the Multitool's SARIF2005): "v0.3.1" becomes "0.3.1", an unreleased "dev" or commit
// "0.0.0-dev".
func sarifVersion(v string) string {
	v = cmp.Or(v, "dev")
	if len(v) > 1 && v[0] == 'v' && v[1] >= '0' && v[1] <= '9' {
		return v[1:]
	}
	if v[0] >= '0' && v[0] <= '9' {
		return v
	}
	return "0.0.0-" + v
}
