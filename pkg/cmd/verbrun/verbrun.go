// Package verbrun is the one RunE glue of the verbs, which follow kubectl's pattern: Complete,
// then Validate, then Run, each only when the one before succeeded.
package verbrun

// Run calls complete, validate and run in that order and returns the first error.
func Run(complete, validate, run func() error) error {
	if err := complete(); err != nil {
		return err
	}
	if err := validate(); err != nil {
		return err
	}
	return run()
}
