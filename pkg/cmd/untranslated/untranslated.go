// Package untranslated keeps kubectl's message catalog from loading: the plugin's own text is
// English only, and kubectl's packages it links call i18n.T when they are initialized
// (k8s.io/kubectl/pkg/cmd/get, for custom-columns, does for its help), which by default unzips
// and parses kubectl's translations on every start of every command, completion included.
//
// Import it for its side effect from main, before anything else:
//
//	import _ "github.com/kubectl-indexed/kubectl-indexed/pkg/cmd/untranslated"
//
// This is kubectl's documented way (i18n.SetLoadTranslationsFunc): Go initializes packages in
// import-path order among those whose imports are initialized, and every package that calls
// i18n.T imports i18n, so once i18n is initialized this package (its only import, and a path
// that sorts before k8s.io/) is initialized before any of them. Err says if that ever fails.
package untranslated

import "k8s.io/kubectl/pkg/util/i18n"

// Err is what SetLoadTranslationsFunc said: nil when kubectl's translations were kept from
// loading, not nil when kubectl's catalog had already loaded.
var Err = i18n.SetLoadTranslationsFunc(func() error { return nil })
