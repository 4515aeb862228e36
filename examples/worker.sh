#!/bin/sh
# Example worker for Jobs made by `kubectl indexed create`: it processes the cases of the shard
# its completion index runs, one per line, and exits 42 (or $INDEXED_INVALID_INPUT_EXIT_CODE)
# when the shard's input is invalid, so that the Job fails that index at once instead of
# retrying it. Any other non-zero exit is a failure the Job retries (backoffLimitPerIndex).
#
# The worker contract (README, "The worker contract"):
#   INDEXED_SHARD_FILE     the cases of this index's shard, one per line   (required)
#   INDEXED_SHARD_ID_FILE  the shard's ID, one line
#   INDEXED_INVALID_INPUT_EXIT_CODE, INDEXED_MANIFEST_NAME, _REVISION, _HASH, JOB_COMPLETION_INDEX
# The worker never computes its shard from JOB_COMPLETION_INDEX: it reads the files it is given,
# so a retry Job can hand any index any shard.
#
# Try it locally:
#   kubectl indexed shards show examples/manifest.yaml --index 2 > /tmp/cases
#   INDEXED_SHARD_FILE=/tmp/cases sh examples/worker.sh
#
# Run it on a cluster without building an image (any image with a POSIX sh):
#   kubectl indexed create demo --manifest examples/manifest.yaml --image busybox:1.36 \
#     -- sh -c "$(cat examples/worker.sh)"
set -eu

invalid="${INDEXED_INVALID_INPUT_EXIT_CODE:-42}"

# Invalid input: say why on stderr (it is the pod's log) and exit with the invalid-input code.
reject() {
	echo "invalid input: $*" >&2
	exit "$invalid"
}

shard_file="${INDEXED_SHARD_FILE:-}"
[ -n "$shard_file" ] || reject "INDEXED_SHARD_FILE is not set: run me in a Job made by kubectl indexed create, or set it to a file of case IDs"
[ -r "$shard_file" ] || reject "cannot read the shard file $shard_file"

shard_id="(local)"
if [ -n "${INDEXED_SHARD_ID_FILE:-}" ] && [ -r "$INDEXED_SHARD_ID_FILE" ]; then
	shard_id="$(cat "$INDEXED_SHARD_ID_FILE")"
fi

echo "shard $shard_id (completion index ${JOB_COMPLETION_INDEX:-?}, manifest ${INDEXED_MANIFEST_NAME:-?} revision ${INDEXED_MANIFEST_REVISION:-?})"

done_count=0
while IFS= read -r case_id || [ -n "$case_id" ]; do
	[ -n "$case_id" ] || continue
	# This example accepts case IDs of letters, digits, '.', '_', '/' and '-' only; a real
	# worker checks whatever makes its input unusable (a missing file, a corrupt record).
	case "$case_id" in
	*[!A-Za-z0-9._/-]*) reject "case ID '$case_id' has characters this worker does not accept" ;;
	esac
	# The real work goes here: evaluate "$case_id" and write its result somewhere durable.
	echo "case $case_id: ok"
	done_count=$((done_count + 1))
done <"$shard_file"

[ "$done_count" -gt 0 ] || reject "shard $shard_id has no cases"
echo "shard $shard_id: $done_count cases done"
