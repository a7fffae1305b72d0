#!/usr/bin/env bash
# Checks that every relative link of the course's markdown pages leads somewhere: the file or
# folder exists, and an anchor (#...) names a heading of the target page (run by the test
# docs.links, label cpu), so that renumbered or renamed sections cannot leave dead links.
#
# Anchors are made from headings as GitHub makes them: lower case, every character other than a
# letter, a digit, '_', '-' or a space dropped, spaces turned into '-'; a repeated heading gets
# -1, -2, ... Links and headings inside fenced code blocks and code spans are not read; links
# with a scheme (https:, mailto:) are not checked.
#
# Usage: scripts/check_doc_links.sh [--root DIR] [PAGE...]
#   PAGEs are relative to the root (default: this checkout); without any, README.md, docs/*.md
#   and every lesson's README.md.
# Exit codes: 0 every link resolves; 1 a link names a missing file or anchor (one line each on
# stderr: page:line: target: what), or the pages hold no link at all; 2 a bad command line or a
# page that cannot be read.
set -uo pipefail
shopt -s nullglob
export LC_ALL=C.UTF-8

prog="check_doc_links.sh"
# shellcheck source=doc_check_args.sh
source "$(dirname "${BASH_SOURCE[0]}")/doc_check_args.sh"
cd "$root" || usage_error "cannot enter $root"
if ((${#pages[@]} == 0)); then
  pages=(README.md docs/*.md [0-9][0-9]_*/README.md)
fi
for page in "${pages[@]}"; do
  [[ -f $page && -r $page ]] || usage_error "$page: no such page under $root"
done

fence_re='^[[:space:]]*(```|~~~)'
heading_re='^#{1,6}[[:space:]]+(.*[^[:space:]#])[[:space:]#]*$'
link_re='\]\(([^()[:space:]]+)\)'
code_span_re='`[^`]*`'

# The anchors of one page, one per line, as GitHub makes them from its headings.
page_anchors() {
  local line in_fence=0 slug
  local -A seen=()
  while IFS= read -r line || [[ -n $line ]]; do
    if [[ $line =~ $fence_re ]]; then
      in_fence=$((1 - in_fence))
      continue
    fi
    ((in_fence)) && continue
    [[ $line =~ $heading_re ]] || continue
    slug="${BASH_REMATCH[1],,}"
    slug="${slug//[^[:alnum:]_ -]/}"
    slug="${slug// /-}"
    if [[ -n ${seen[$slug]+set} ]]; then
      seen[$slug]=$((seen[$slug] + 1))
      echo "$slug-${seen[$slug]}"
    else
      seen[$slug]=0
      echo "$slug"
    fi
  done <"$1"
}

declare -A anchors_of=()  # target page -> its anchors, newline-separated, with a newline at each end
links=0
failures=0
report() {  # page line target what
  echo "$1:$2: $3: $4" >&2
  failures=$((failures + 1))
}

check_link() {  # page line target
  local page="$1" number="$2" target="$3" file anchor path
  [[ $target =~ ^[A-Za-z][A-Za-z0-9+.-]*: ]] && return  # https:, mailto:, ...
  links=$((links + 1))
  file="${target%%#*}"
  anchor=""
  [[ $target == *"#"* ]] && anchor="${target#*#}"
  if [[ -z $file ]]; then
    path="$page"
  else
    path="$(dirname "$page")/$file"
    if [[ ! -e $path ]]; then
      report "$page" "$number" "$target" "no such file or folder"
      return
    fi
  fi
  [[ -z $anchor || $path != *.md || -d $path ]] && return
  if [[ -z ${anchors_of[$path]+set} ]]; then
    anchors_of[$path]=$'\n'"$(page_anchors "$path")"$'\n'
  fi
  [[ ${anchors_of[$path]} == *$'\n'"$anchor"$'\n'* ]] ||
    report "$page" "$number" "$target" "no heading of $(realpath --relative-to=. "$path") makes this anchor"
}

for page in "${pages[@]}"; do
  in_fence=0
  number=0
  while IFS= read -r line || [[ -n $line ]]; do
    number=$((number + 1))
    if [[ $line =~ $fence_re ]]; then
      in_fence=$((1 - in_fence))
      continue
    fi
    ((in_fence)) && continue
    while [[ $line =~ $code_span_re ]]; do line="${line/"${BASH_REMATCH[0]}"/}"; done
    while [[ $line =~ $link_re ]]; do
      match="${BASH_REMATCH[0]}"
      check_link "$page" "$number" "${BASH_REMATCH[1]}"
      line="${line/"$match"/}"
    done
  done <"$page"
done

if ((links == 0)); then
  echo "$prog: no relative link in ${#pages[@]} pages: nothing was checked" >&2
  exit 1
fi
if ((failures > 0)); then
  echo "$prog: $failures of $links links do not resolve" >&2
  exit 1
fi
echo "$prog: all $links links in ${#pages[@]} pages resolve"
