// Package ruleonce holds the test that each rule of the plugin is stated in one place (issue
// 32): its table of rules, homes and greps is docs/architecture.md's "Each rule in one place".
package ruleonce
