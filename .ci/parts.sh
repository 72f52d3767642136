# The parts of a CI run, sourced by .ci/run (and by test/build/ci-parts.test.ts,
# which runs them under the same `set -euo pipefail`). The caller sets bg_dir, a
# directory for the background parts' output.
timings=()
# Run one part, recording how long it took for the closing note.
part() {
  local name="$1" start=$SECONDS
  shift
  echo "=== $name"
  "$@"
  timings+=("$(printf '%-52s %3d min %02d s' "$name" $(((SECONDS - start) / 60)) $(((SECONDS - start) % 60)))")
}
# Start one part in the background (its output kept in a file, printed when it
# is awaited): for a part that mostly waits on something outside this machine's
# cores, run beside a part that works them.
declare -A bg_pid bg_start bg_log
bg_count=0
start_part() {
  local name="$1"
  shift
  echo "=== $name (started in the background)"
  bg_start[$name]=$SECONDS
  bg_count=$((bg_count + 1))
  bg_log[$name]="$bg_dir/$bg_count.log"
  ("$@") >"${bg_log[$name]}" 2>&1 &
  bg_pid[$name]=$!
}
# Wait for a background part: its output, then its status (a failure fails CI).
await_part() {
  local name="$1" rc=0
  wait "${bg_pid[$name]}" || rc=$?
  echo "=== $name (output)"
  cat "${bg_log[$name]}"
  timings+=("$(printf '%-52s %3d min %02d s' "$name (background)" $(((SECONDS - bg_start[$name]) / 60)) $(((SECONDS - bg_start[$name]) % 60)))")
  [ "$rc" -eq 0 ] || { echo "=== $name failed (exit $rc)"; exit "$rc"; }
}

