//go:build !linux

package main

// stopCredentialPlugins does nothing where there is no /proc to find them in: an exec
// credential plugin the command gave up waiting for ends by itself.
func stopCredentialPlugins() {}
