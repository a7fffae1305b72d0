#!/usr/bin/env bash
# Tests of scripts/check_agenda.py (run by the tests docs.agenda.checker.<case>, label cpu): a
# copy of the course pages in a scratch folder, changed the way the case says, must make the
# checker exit as expected and name the problem.
#
# Usage: scripts/tests/check_agenda_checker.sh CASE
#   matching           the pages as they are: exit 0
#   deep_link          a row links a deep-dive section without "extra:": exit 1
#   over_budget        a slot's minutes cut to 5: exit 1
#   unchecked_exercise a row names an exercise not in scripts/exercises.txt: exit 1
#   edited_starter     a row's starter no longer as shipped, under CI=true: exit 1 (a note without)
#   unknown_command    a row runs a command section 3 does not time: exit 1
#   no_agenda          the agendas section removed: exit 2
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
case_name=${1:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/docs" "$work/scripts"
cp "$here"/docs/*.md "$work/docs/"
cp "$here/scripts/exercises.txt" "$work/scripts/"
for lesson in "$here"/[0-9][0-9]_*/; do
  name=$(basename "$lesson")
  mkdir -p "$work/$name"
  cp -r "$lesson/exercises" "$work/$name/" 2>/dev/null || true
done
page="$work/docs/workshop.md"
expect=0
pattern='every agenda row'
case $case_name in
  matching) ;;
  deep_link)
    sed -i '0,/\[7 exercise\](01_vector_exp.md#7-exercise-1-a-gaussian)/s//[7 exercise](01_vector_exp.md#7-exercise-1-a-gaussian), [10](01_vector_exp.md#10-the-kernel-progression)/' "$page"
    expect=1 pattern='a deep-dive section, not named as extra' ;;
  over_budget)
    sed -i '0,/| 0:10 | 50 | 01 vector exp |/s//| 0:10 | 5 | 01 vector exp |/' "$page"
    expect=1 pattern='minutes of work in a 5-minute slot' ;;
  unchecked_exercise)
    sed -i '0,/`01 gaussian` (15 min)/s//`01 balanced` (15 min)/' "$page"
    expect=1 pattern='is not in scripts/exercises.txt' ;;
  edited_starter)
    echo '// edited' >> "$work/01_vector_exp/exercises/gaussian_starter.cu"
    expect=1 pattern='its starter is not as shipped' ;;
  unknown_command)
    sed -i '0,/`04_shared_matmul -n 1600 --skip-cpu` |/s//`04_shared_matmul -n 1601 --skip-cpu` |/' "$page"
    expect=1 pattern='has no measured time' ;;
  no_agenda)
    sed -i 's/^## 2. Agendas$/## 2. Plans/' "$page"
    expect=2 pattern='has no section' ;;
  *) echo "usage: $0 matching|deep_link|over_budget|unchecked_exercise|edited_starter|unknown_command|no_agenda" >&2; exit 2 ;;
esac
ci=false
[[ $case_name == edited_starter ]] && ci=true
output=$(CI=$ci python3 "$here/scripts/check_agenda.py" --root "$work" 2>&1)
code=$?
if ((code != expect)); then
  printf '%s\n' "$output"
  echo "FAIL: $case_name: exit $code, expected $expect" >&2
  exit 1
fi
if ! grep -qF -- "$pattern" <<<"$output"; then
  printf '%s\n' "$output"
  echo "FAIL: $case_name: the output does not say '$pattern'" >&2
  exit 1
fi
echo "PASS: $case_name"
