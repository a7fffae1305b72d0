#!/usr/bin/env bash
# Tests of scripts/check_doc_quotes.py on its fixtures (scripts/tests/fixtures/doc_quotes/), so
# that docs.quotes cannot pass by checking nothing: each case runs the checker on one page and
# checks its exit code and the one line it prints per broken quote (page:line: PATH#NAME: what).
# Registered in cmake/ToolTests.cmake as docs.quotes.checker.CASE (label cpu).
#
# Usage: scripts/tests/check_quote_checker.sh CASE [PYTHON]
#   PYTHON: the interpreter that runs the checker (default: python3); the cases:
#   matching          quotes that match (common indentation removed, nested markers left out,
#                     a quote comment inside a fenced block ignored): exit 0
#   stale             one character of the quoted block differs from the region: exit 1
#   short             the block lacks the region's last line: exit 1
#   edited_source     the page is right but one character of the source changed: exit 1
#   missing_file, missing_region, unclosed, no_block, malformed: exit 1, the reason named
#   no_quote          pages without any quote: exit 1 (nothing was checked)
#   bad_command_line  an unknown flag, a page that is not there: exit 2
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/support.sh"  # root, work, fail, capture
python="${2:-python3}"
checker="$root/scripts/check_doc_quotes.py"
fixture="$root/scripts/tests/fixtures/doc_quotes"

# Runs the checker with "$@" (capture: status, out, err).
check() { capture "$python" "$checker" "$@"; }

# The checker, run on one fixture page, failed with exit 1, one line for the broken quote
# matching `pattern` and the closing count.
expect_broken() {
  local page="$1" pattern="$2" root_dir="${3:-$fixture}"
  check --root "$root_dir" "$page"
  [ "$status" -eq 1 ] || fail "$page: exit $status, expected 1 (stdout: $out; stderr: $err)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 2 ] || fail "$page: expected two lines on stderr, got:"$'\n'"$err"
  local first last
  first="$(printf '%s\n' "$err" | head -n 1)"
  last="$(printf '%s\n' "$err" | tail -n 1)"
  [[ $first =~ $pattern ]] || fail "$page: '$first' does not match '$pattern'"
  [[ $last == "check_doc_quotes.py: 1 of 1 quote in 1 page failed (above)" ]] || fail "$page: last line '$last'"
  echo "ok: $page -> exit 1: $first"
}

case_matching() {
  check --root "$fixture" good.md
  [ "$status" -eq 0 ] || fail "good.md: exit $status, expected 0: $err"
  [ -z "$err" ] || fail "good.md: unexpected stderr: $err"
  [[ $out == "check_doc_quotes.py: 2 quotes in 1 page: each matches its source region" ]] || fail "good.md: stdout '$out'"
  echo "ok: good.md -> exit 0: $out"
}

case_stale() {
  expect_broken stale.md "^stale\.md:5: src/sample\.cu#scale: stale quote: page line 9, column 43: the page has '\.\.\.actor;  // the guard!', the source '\.\.\.actor;  // the guard'$"
}

case_short() {
  expect_broken short.md "^short\.md:3: src/sample\.cu#scale: stale quote: the block has 5 lines, the region 6$"
}

case_edited_source() {
  cp -r "$fixture" "$work/copy"
  sed -i 's/x\[i\] \*= factor;/x[i] *= factor * 2;/' "$work/copy/src/sample.cu"
  grep -q 'factor \* 2' "$work/copy/src/sample.cu" || fail "the fixture's source no longer has the line this case edits"
  check --root "$work/copy" good.md
  [ "$status" -eq 1 ] || fail "good.md with an edited source: exit $status, expected 1 (stdout: $out)"
  [ "$(printf '%s\n' "$err" | wc -l)" -eq 3 ] || fail "expected both quotes reported and the count, got:"$'\n'"$err"
  [[ $err =~ good\.md:5:\ src/sample\.cu#scale:\ stale\ quote:\ page\ line\ 9,\ column\ 28: ]] || fail "the kernel's quote not reported: $err"
  [[ $err =~ good\.md:17:\ src/sample\.cu#guarded_store:\ stale\ quote:\ page\ line\ 19,\ column\ 26: ]] || fail "the nested quote not reported: $err"
  echo "ok: good.md with one character of the source changed -> exit 1:"$'\n'"$err"
}

case_missing_file() {
  expect_broken missing_file.md "^missing_file\.md:3: src/moved\.cu#scale: no such file$"
}

case_missing_region() {
  expect_broken missing_region.md "^missing_region\.md:3: src/sample\.cu#renamed: no region \[docs:renamed\] in the file$"
}

case_unclosed() {
  expect_broken unclosed.md "^unclosed\.md:3: src/sample\.cu#never_ends: region \[docs:never_ends\] never ends"
}

case_no_block() {
  expect_broken no_block.md "^no_block\.md:3: src/sample\.cu#scale: no fenced code block"
}

case_malformed() {
  expect_broken malformed.md "^malformed\.md:3: malformed quote comment '<!-- quote: src/sample\.cu -->'"
}

case_no_quote() {
  check --root "$fixture" none.md
  [ "$status" -eq 1 ] || fail "none.md: exit $status, expected 1"
  [[ $err == "check_doc_quotes.py: no quote in 1 page: nothing was checked" ]] || fail "none.md: stderr '$err'"
  echo "ok: none.md -> exit 1: $err"
}

# The checker, run with "$@" after the first two arguments, refused the command line: exit 2
# and one line on stderr matching `pattern`.
expect_usage_error() {
  local what="$1" pattern="$2"
  shift 2
  check "$@"
  [ "$status" -eq 2 ] || fail "$what: exit $status, expected 2 (stderr: $err)"
  [[ $err =~ $pattern ]] || fail "$what: stderr '$err' does not match '$pattern'"
  echo "ok: $what -> exit 2: $err"
}

case_bad_command_line() {
  expect_usage_error --bogus "^check_doc_quotes\.py: unknown flag --bogus$" --bogus
  expect_usage_error not_there.md "^check_doc_quotes\.py: not_there\.md: no such page under " --root "$fixture" not_there.md
  expect_usage_error --root "^check_doc_quotes\.py: --root needs a value$" --root
}

[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 CASE [PYTHON]" >&2; exit 2; }
declare -F "case_$1" >/dev/null || { echo "$0: unknown case $1" >&2; exit 2; }
"case_$1"
