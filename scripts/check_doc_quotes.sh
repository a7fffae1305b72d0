#!/usr/bin/env bash
# Checks that every code block the docs quote from a source file still matches that source, so
# the docs cannot drift from the code (run by the test docs.quotes, label cpu).
#
# A source file marks a named region with two lines, each inside a comment:
#   // [docs:NAME]          the region starts on the next line ...
#   // [docs:end NAME]      ... and ends on the line before this one
# NAME: letters, digits, '_', '-' and '.'; each NAME once per file. Regions may nest; a marker
# line is never part of any region's text.
# A page quotes a region with an HTML comment (invisible on the rendered page) on the line right
# before a fenced code block:
#   <!-- quote: PATH#NAME -->          PATH relative to the repository root
#   ```cuda
#   the region's lines, exactly, less the leading spaces all its non-blank lines share
#   ```
# Quote comments inside a fenced block are not read (a page may show the syntax).
#
# Usage: scripts/check_doc_quotes.sh [--root DIR] [PAGE...]
#   PAGEs are relative to the root (default: this checkout); without any, docs/*.md and every
#   lesson's README.md.
# Exit codes: 0 every quote matches its region; 1 a quote differs from its region, names a
# missing file or region, or is malformed (one line each on stderr: page:line: PATH#NAME: what),
# or the pages hold no quote at all; 2 a bad command line or a page that cannot be read.
set -uo pipefail
shopt -s nullglob

prog="check_doc_quotes.sh"
# shellcheck source=doc_check_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/doc_check_args.sh"
if ((${#pages[@]} == 0)); then
  cd "$root" || usage_error "cannot enter $root"
  pages=(docs/*.md [0-9][0-9]_*/README.md)
  ((${#pages[@]} > 0)) || usage_error "no docs/*.md and no lesson README.md under $root"
fi

name_pattern='[A-Za-z0-9_.-]+'
marker_re="\[docs:(end )?${name_pattern}\]"
quote_re="^[[:space:]]*<!-- quote: ([^#[:space:]]+)#(${name_pattern}) -->[[:space:]]*$"
fence_re='^[[:space:]]*(```|~~~)'  # any fence, for knowing what lies inside a block
open_fence_re='^```'                # the block after a quote comment
close_fence_re='^```[[:space:]]*$'
quote_start_re='^[[:space:]]*<!--[[:space:]]*quote:'
indent_re='^( *)[^ ]'

# Reads region NAME of FILE (relative to the root) into region_lines, its common indentation
# removed; on failure sets problem to why and returns 1.
load_region() {
  local file="$1" name="$2" line number=0 state=before indent=-1 lead i
  region_lines=()
  problem=""
  if [[ $file == /* || /$file/ == */../* ]]; then
    problem="the path must lie inside the repository"
    return 1
  fi
  if [[ ! -f $root/$file || ! -r $root/$file ]]; then
    problem="no such file"
    return 1
  fi
  local -a source_lines
  mapfile -t source_lines <"$root/$file"
  for line in "${source_lines[@]}"; do
    number=$((number + 1))
    if [[ $line == *"[docs:$name]"* ]]; then
      [[ $state == before ]] || { problem="region starts twice (line $number)"; return 1; }
      state=inside
    elif [[ $line == *"[docs:end $name]"* ]]; then
      [[ $state == inside ]] || { problem="[docs:end $name] at line $number without an open region"; return 1; }
      state=closed
    elif [[ $state == inside && ! $line =~ $marker_re ]]; then
      region_lines+=("$line")
    fi
  done
  case "$state" in
    before) problem="no region [docs:$name] in the file"; return 1 ;;
    inside) problem="region [docs:$name] never ends ([docs:end $name] missing)"; return 1 ;;
  esac
  ((${#region_lines[@]} > 0)) || { problem="region is empty"; return 1; }
  for line in "${region_lines[@]}"; do
    [[ $line =~ $indent_re ]] || continue  # blank lines do not set the indentation
    lead=${#BASH_REMATCH[1]}
    ((indent < 0 || lead < indent)) && indent=$lead
  done
  if ((indent > 0)); then
    for i in "${!region_lines[@]}"; do region_lines[i]="${region_lines[i]:indent}"; done
  fi
  return 0
}

# A line for a message, in quotes so that trailing blanks show: at most 60 characters of it,
# from a little before column `from` (the first difference) where the line is longer.
show() {
  local text="$1" from="${2:-0}" start=0 prefix="" suffix=""
  ((from > 40)) && start=$((from - 20)) && prefix="..."
  ((${#text} - start > 60)) && suffix="..."
  printf "'%s%s%s'" "$prefix" "${text:start:60}" "$suffix"
}

# The first column (0-based) where two lines differ.
first_difference() {
  local a="$1" b="$2" c=0
  while ((c < ${#a} && c < ${#b})) && [[ ${a:c:1} == "${b:c:1}" ]]; do c=$((c + 1)); done
  echo "$c"
}

# "1 page", "2 pages"
count_of() { if (($1 == 1)); then echo "$1 $2"; else echo "$1 $2s"; fi; }

quotes=0
failures=0
report() {  # page line what
  echo "$1:$2: $3" >&2
  failures=$((failures + 1))
}

# Checks every quote of one page.
check_page() {
  local page="$1" i=0 count in_fence=0 spec file name body_start end k found column
  local -a lines body
  [[ -f $root/$page && -r $root/$page ]] || usage_error "$page: no such page under $root"
  mapfile -t lines <"$root/$page"
  count=${#lines[@]}
  while ((i < count)); do
    if [[ ${lines[i]} =~ $fence_re ]]; then
      in_fence=$((1 - in_fence))
      i=$((i + 1))
      continue
    fi
    if ((in_fence)) || [[ ! ${lines[i]} =~ $quote_start_re ]]; then
      i=$((i + 1))
      continue
    fi
    quotes=$((quotes + 1))
    if [[ ! ${lines[i]} =~ $quote_re ]]; then
      report "$page" $((i + 1)) "malformed quote comment $(show "${lines[i]}"), expected '<!-- quote: PATH#NAME -->'"
      i=$((i + 1))
      continue
    fi
    file="${BASH_REMATCH[1]}"
    name="${BASH_REMATCH[2]}"
    spec="$file#$name"
    if ((i + 1 >= count)) || [[ ! ${lines[i + 1]} =~ $open_fence_re ]]; then
      report "$page" $((i + 1)) "$spec: no fenced code block (\`\`\`) on the next line"
      i=$((i + 1))
      continue
    fi
    body_start=$((i + 2))
    end=$body_start
    while ((end < count)) && [[ ! ${lines[end]} =~ $close_fence_re ]]; do end=$((end + 1)); done
    if ((end >= count)); then
      report "$page" $((i + 1)) "$spec: the code block never ends"
      return
    fi
    body=("${lines[@]:body_start:end-body_start}")
    if ! load_region "$file" "$name"; then
      report "$page" $((i + 1)) "$spec: $problem"
    else
      found=-1
      for ((k = 0; k < ${#body[@]} && k < ${#region_lines[@]}; ++k)); do
        if [[ ${body[k]} != "${region_lines[k]}" ]]; then
          found=$k
          break
        fi
      done
      if ((found >= 0)); then
        column=$(first_difference "${body[found]}" "${region_lines[found]}")
        report "$page" $((i + 1)) "$spec: stale quote: page line $((body_start + found + 1)), column $((column + 1)): the page has $(show "${body[found]}" "$column"), the source $(show "${region_lines[found]}" "$column")"
      elif ((${#body[@]} != ${#region_lines[@]})); then
        report "$page" $((i + 1)) "$spec: stale quote: the block has ${#body[@]} lines, the region ${#region_lines[@]}"
      fi
    fi
    i=$((end + 1))
  done
}

for page in "${pages[@]}"; do
  check_page "$page"
done

if ((quotes == 0)); then
  echo "$prog: no quote in $(count_of ${#pages[@]} page): nothing was checked" >&2
  exit 1
fi
if ((failures > 0)); then
  echo "$prog: $failures of $(count_of $quotes quote) in $(count_of ${#pages[@]} page) failed (above)" >&2
  exit 1
fi
echo "$prog: $(count_of $quotes quote) in $(count_of ${#pages[@]} page): each matches its source region"
