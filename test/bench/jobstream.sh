#!/usr/bin/env bash
# Prints the benchmark stream of lint: N (default 10,000) Job documents, deterministic (Job i is
# an Indexed Job whose numbers depend on i only; one in ten relies on the global backoffLimit, a
# warning; one in a hundred has an error). Used by test/bench/lint.sh.
#
#   test/bench/jobstream.sh [N] > jobs.yaml
set -euo pipefail
awk -v n="${1:-10000}" 'BEGIN {
  for (i = 0; i < n; i++) {
    c = 2 + i % 50
    printf "---\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: shard-job-%05d\n  labels:\n    app: bench\nspec:\n  completionMode: Indexed\n  completions: %d\n  parallelism: %d\n", i, c, 1 + i % 8
    if (i % 10 != 0) printf "  backoffLimitPerIndex: 1\n  maxFailedIndexes: %d\n", 1 + i % 2
    if (i % 100 == 0) printf "  activeDeadlineSeconds: -1\n"
    printf "  podFailurePolicy:\n    rules:\n    - action: Ignore\n      onPodConditions:\n      - type: DisruptionTarget\n"
    if (i % 10 != 0) printf "    - action: FailIndex\n      onExitCodes:\n        containerName: worker\n        operator: In\n        values: [42]\n"
    printf "  template:\n    metadata:\n      labels:\n        app: bench\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: worker\n        image: registry.example.com/eval/worker:v%d\n        args: [\"--shard=$(JOB_COMPLETION_INDEX)\", \"--of=%d\"]\n        resources:\n          requests: {cpu: 100m, memory: 128Mi}\n          limits: {memory: 256Mi}\n", i % 7, c
  }
}'
