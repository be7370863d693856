# Sourced by bin/test: runs the test parts side by side. start_part NAME COMMAND... starts one in the
# background, its output shown as it comes with a "[NAME] " prefix and kept whole in $TEST_LOGS/NAME.log;
# wait_parts waits for all of them, prints one line per part (status and wall seconds) and returns
# non-zero when any failed. The parts run in process groups of their own, so an interrupted bin/test
# stops them all (stop_parts, from its trap), and nothing else.
set -m
part_names=()
part_pids=()

start_part() {
  local name="$1"; shift
  (
    set +e
    started=$SECONDS
    "$@" </dev/null 2>&1 | tee "$TEST_LOGS/$name.log" | sed -u "s/^/[$name] /"
    echo "${PIPESTATUS[0]} $((SECONDS - started))" > "$TEST_LOGS/$name.status"
  ) &
  part_names+=("$name")
  part_pids+=("$!")
}

wait_parts() {
  local i failed=0 rc seconds
  for i in "${!part_pids[@]}"; do wait "${part_pids[$i]}" || true; done
  part_pids=()
  for i in "${!part_names[@]}"; do
    rc=1; seconds=?
    [ -s "$TEST_LOGS/${part_names[$i]}.status" ] && read -r rc seconds < "$TEST_LOGS/${part_names[$i]}.status"
    if [ "$rc" -eq 0 ]; then
      printf 'bin/test: %-8s ok      %5s s\n' "${part_names[$i]}" "$seconds"
    else
      printf 'bin/test: %-8s FAILED  %5s s (exit %s; whole log: %s)\n' "${part_names[$i]}" "$seconds" "$rc" "$TEST_LOGS/${part_names[$i]}.log"
      failed=1
    fi
  done
  return "$failed"
}

stop_parts() {
  local pid
  for pid in "${part_pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  part_pids=()
}
