# kubectl indexed retry of a Job that create did not make (issue 21). Included by the root
# Makefile.
#
#   make bench-retry   retry of a plain Indexed Job with 1, 10 and 1,000 chosen indexes (a Job
#                      each), created on the cluster of KUBECONFIG: Jobs created, bytes sent,
#                      wall time and peak RSS; and 10,000 indexes refused with nothing created
#
# Needs a cluster: make cluster-up, then KUBECONFIG=.cluster/kubeconfig make bench-retry.

.PHONY: bench-retry

bench-retry: build ## Benchmark retry of a plain Indexed Job: 1, 10, 1,000 indexes created, 10,000 refused
	PLUGIN=bin/kubectl-indexed bash test/bench/retry-plain.sh
