# Sourced by the scripts: the toolchain on PATH and the package root as the working folder.
if ! command -v swift >/dev/null 2>&1 && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Swift Testing starts at most this many tests at once (unset, it starts all 782 at once).
# On a 2-core machine the whole queue of them then stands between a test's request and
# the task that answers it, and the tests with a real deadline (an HTTP client's 30 s)
# time out behind the others' work. At 24, an in-process sign-in test
# (SDKCoreTests.aRefusedTokenTriggersOneReauthentication) and a 9 MB answer over loopback
# (HTTPClientTests.answersPastTheirEndpointsLimitAreAborted) took 36 to 37 s, their
# request's 30 s just met; at 8, the two took 4 to 9 s, and the suite 78 to 97 s in
# three runs.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"

# Starts `ccai sandbox serve` (the debug build) on a free loopback port with the given
# arguments, its output in the file $1; sets `port` and `server` (its pid) once it answers
# /healthz. Ports are drawn below the kernel's ephemeral range (32768 and up), where no
# outgoing connection can hold one; a start that fails is tried on another port.
serve_sandbox() {
  local log=$1
  shift
  for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 12000))
    ./.build/debug/ccai sandbox serve --listen "127.0.0.1:$port" "$@" >"$log" 2>&1 &
    server=$!
    for _ in $(seq 100); do
      curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return 0
      kill -0 "$server" 2>/dev/null || break
      sleep 0.1
    done
    kill "$server" 2>/dev/null || true
  done
  echo "the sandbox did not start; its log:" >&2
  cat "$log" >&2
  return 1
}
