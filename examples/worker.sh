#!/bin/sh
# Example worker for Jobs made by `kubectl indexed create`: it processes the cases of the shard
# its completion index runs, one per line, and exits 42 (or $INDEXED_INVALID_INPUT_EXIT_CODE)
# when the shard's input is invalid, so that the Job fails that index at once instead of
# retrying it. Any other non-zero exit is a failure the Job retries (backoffLimitPerIndex).
#
# The worker contract (docs/create.md, "The worker contract"):
#   INDEXED_SHARD_FILE     the cases of this index's shard, one per line   (required)
#   INDEXED_SHARD_ID_FILE  the shard's ID, one line
#   INDEXED_INVALID_INPUT_EXIT_CODE, INDEXED_MANIFEST_NAME, _REVISION, _HASH, JOB_COMPLETION_INDEX
# The worker never computes its shard from JOB_COMPLETION_INDEX: it reads the files it is given,
# so a retry Job can hand any index any shard.
#
# Receipts (docs/reconcile.md): on every exit after the shard file was read, the worker writes
#   - a ShardReceiptSummary, one line of JSON of at most 4 KiB, to its termination message
#     ($INDEXED_TERMINATION_LOG, default /dev/termination-log), which the kubelet copies into the
#     pod's status, so `kubectl indexed status` and `reconcile` read it with no other storage;
#   - the full ShardReceipt (every case, with failures and their class) to
#     $INDEXED_RESULTS_DIR/<shard ID>/<attempt ID>.receipt.json, next to the results, when
#     INDEXED_RESULTS_DIR is set (sync that directory to durable storage).
# The attempt ID is $INDEXED_ATTEMPT_ID, else $POD_UID, else the host name (the pod's name: unique
# per attempt with restartPolicy Never, which create sets); the Job name is $INDEXED_JOB_NAME,
# else the pod name less its "-<index>-<suffix>".
#
# Try it locally:
#   kubectl indexed shards show examples/manifest.yaml --index 2 > /tmp/cases
#   INDEXED_SHARD_FILE=/tmp/cases sh examples/worker.sh
#   INDEXED_SHARD_FILE=/tmp/cases INDEXED_TERMINATION_LOG=/tmp/summary INDEXED_RESULTS_DIR=/tmp/results sh examples/worker.sh
#
# Run it on a cluster without building an image (any image with a POSIX sh):
#   kubectl indexed create demo --manifest examples/manifest.yaml --image busybox:1.36 \
#     -- sh -c "$(cat examples/worker.sh)"
set -eu

invalid="${INDEXED_INVALID_INPUT_EXIT_CODE:-42}"
tlog="${INDEXED_TERMINATION_LOG:-/dev/termination-log}"
results="${INDEXED_RESULTS_DIR:-}"
host="$(hostname 2>/dev/null || echo local)"
attempt="${INDEXED_ATTEMPT_ID:-${POD_UID:-$host}}"
job="${INDEXED_JOB_NAME:-${host%-*-*}}"
started="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
shard_id="(local)"
assigned=-1
digest=""
done_count=0
completed_list=""

# json STRING: STRING as the inside of a JSON string (backslash and quote escaped, control
# characters dropped).
json() { printf '%s' "$1" | tr -d '\000-\037' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }

# receipt [REASON]: write the summary (and, with INDEXED_RESULTS_DIR, the full receipt). With a
# REASON, every assigned case not done is an infrastructure failure for that reason. Nothing is
# written before the shard file was read (no digest to name the assignment by).
receipt() {
	[ "$assigned" -ge 0 ] || return 0
	reason="${1:-}"
	failed_n=0
	[ -z "$reason" ] || failed_n=$((assigned - done_count))
	finished="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	head="\"apiVersion\":\"indexed.kubectl.io/v1alpha1\",\"manifest\":{\"name\":\"$(json "${INDEXED_MANIFEST_NAME:-}")\",\"revision\":\"$(json "${INDEXED_MANIFEST_REVISION:-}")\",\"hash\":\"$(json "${INDEXED_MANIFEST_HASH:-}")\"},\"shardID\":\"$(json "$shard_id")\",\"completionIndex\":${JOB_COMPLETION_INDEX:-0},\"job\":{\"name\":\"$(json "$job")\"},\"attemptID\":\"$(json "$attempt")\",\"assigned\":{\"count\":$assigned,\"digest\":\"$digest\"}"
	file=""
	outputs=""
	if [ -n "$results" ]; then
		file="$results/$shard_id/$attempt.receipt.json"
		outputs=",\"outputs\":[\"file://$(json "$results/$shard_id/")\"]"
		failed_entries=""
		if [ "$failed_n" -gt 0 ]; then
			r="$(json "$reason")"
			# The cases not done, escaped for JSON by sed; the reason comes in the environment
			# (awk -v would interpret its backslashes).
			failed_entries="$(awk -v skip="$done_count" 'NF && ++n > skip' "$shard_file" | tr '\t' ' ' |
				sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' |
				R="$r" awk '{ printf "%s{\"case\":\"%s\",\"class\":\"infrastructure\",\"reason\":\"%s\"}", (k++ ? "," : ""), $0, ENVIRON["R"] }')"
		fi
		if mkdir -p "$results/$shard_id" 2>/dev/null; then
			printf '{%s,"kind":"ShardReceipt","completed":[%s],"failed":[%s]%s,"startedAt":"%s","finishedAt":"%s"}\n' \
				"$head" "$completed_list" "$failed_entries" "$outputs" "$started" "$finished" >"$file" ||
				echo "warning: cannot write the receipt $file" >&2
		else
			echo "warning: cannot create $results/$shard_id for the receipt" >&2
		fi
	fi
	reason_field=""
	[ -z "$reason" ] || reason_field=",\"reason\":\"$(json "$(printf '%.200s' "$reason")")\""
	receipt_field=""
	[ -z "$file" ] || receipt_field=",\"receipt\":\"file://$(json "$file")\""
	# apiVersion first and kind last: a message cut at either end still says what it was. The
	# kubelet keeps at most 4,096 bytes: drop the locations rather than be cut.
	summary="$(printf '{%s,"completed":%d,"failed":{"model":0,"infrastructure":%d}%s%s%s,"finishedAt":"%s","kind":"ShardReceiptSummary"}' \
		"$head" "$done_count" "$failed_n" "$reason_field" "$outputs" "$receipt_field" "$finished")"
	if [ "$(printf '%s' "$summary" | wc -c)" -gt 4096 ]; then
		summary="$(printf '{%s,"completed":%d,"failed":{"model":0,"infrastructure":%d}%s,"finishedAt":"%s","kind":"ShardReceiptSummary"}' \
			"$head" "$done_count" "$failed_n" "$reason_field" "$finished")"
	fi
	if ! printf '%s' "$summary" 2>/dev/null >"$tlog"; then
		echo "note: cannot write the receipt summary to $tlog (set INDEXED_TERMINATION_LOG to try it locally)" >&2
	fi
}

# Invalid input: say why on stderr (it is the pod's log), leave a receipt whose remaining cases
# failed for infrastructure, and exit with the invalid-input code.
reject() {
	echo "invalid input: $*" >&2
	receipt "invalid input: $*"
	exit "$invalid"
}

shard_file="${INDEXED_SHARD_FILE:-}"
[ -n "$shard_file" ] || reject "INDEXED_SHARD_FILE is not set: run me in a Job made by kubectl indexed create, or set it to a file of case IDs"
[ -r "$shard_file" ] || reject "cannot read the shard file $shard_file"

if [ -n "${INDEXED_SHARD_ID_FILE:-}" ] && [ -r "$INDEXED_SHARD_ID_FILE" ]; then
	shard_id="$(cat "$INDEXED_SHARD_ID_FILE")"
fi
# What the receipt names the assignment by: the number of cases and the shard file's digest.
assigned="$(awk 'NF { n++ } END { print n + 0 }' "$shard_file")"
digest="sha256:$(sha256sum "$shard_file" | cut -d' ' -f1)"

echo "shard $shard_id (completion index ${JOB_COMPLETION_INDEX:-?}, manifest ${INDEXED_MANIFEST_NAME:-?} revision ${INDEXED_MANIFEST_REVISION:-?})"

while IFS= read -r case_id || [ -n "$case_id" ]; do
	[ -n "$case_id" ] || continue
	# This example accepts case IDs of letters, digits, '.', '_', '/' and '-' only; a real
	# worker checks whatever makes its input unusable (a missing file, a corrupt record).
	case "$case_id" in
	*[!A-Za-z0-9._/-]*) reject "case ID '$case_id' has characters this worker does not accept" ;;
	esac
	# The real work goes here: evaluate "$case_id" and write its result somewhere durable
	# (under $INDEXED_RESULTS_DIR/$shard_id/, next to the receipt).
	echo "case $case_id: ok"
	done_count=$((done_count + 1))
	completed_list="$completed_list${completed_list:+,}{\"case\":\"$case_id\"}"
done <"$shard_file"

[ "$done_count" -gt 0 ] || reject "shard $shard_id has no cases"
receipt
echo "shard $shard_id: $done_count cases done"
