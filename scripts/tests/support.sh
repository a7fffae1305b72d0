# Shared by the script tests (sourced, not run): the checkout's root, a scratch folder removed on
# exit, and the two things every case uses.
#   fail MESSAGE    prints "FAIL: MESSAGE" and exits 1
#   capture CMD...  runs CMD, capturing stdout and stderr apart: sets status, out and err
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

capture() {
  "$@" >"$work/out" 2>"$work/err"
  status=$?
  out="$(cat "$work/out")"
  err="$(cat "$work/err")"
}
