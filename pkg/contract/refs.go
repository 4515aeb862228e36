package contract

// JobRef names a Job in every kind that names one: its name, and its namespace and UID when
// the kind knows them (a Job of the same name made again is another Job, with another UID). A
// kind that says more of the Job embeds it, so that its JSON stays one flat object.
type JobRef struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	UID       string `json:"uid,omitempty"`
}

// ManifestRef names the shard manifest a receipt was written against, or a report was made of.
type ManifestRef struct {
	Name     string `json:"name"`
	Revision string `json:"revision"`
	// Hash is the manifest hash, "sha256:" and 64 hex digits.
	Hash string `json:"hash"`
}
