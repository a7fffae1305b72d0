# Sourced by the docs checkers (check_doc_links.sh, check_doc_quotes.sh): their shared command
# line, [--root DIR] [PAGE...], with usage errors on stderr and exit 2. The caller sets `prog`
# first; afterwards `root` is the repository (or --root) and `pages` the pages named, if any.
# --help prints the caller's header comment.
root="$(cd "$(dirname "${BASH_SOURCE[1]}")/.." && pwd)"
pages=()

usage_error() {
  echo "$prog: $*" >&2
  exit 2
}

while (($#)); do
  case "$1" in
    --root)
      [[ $# -ge 2 && -n $2 ]] || usage_error "--root needs a value"
      [[ -d $2 ]] || usage_error "--root $2: no such folder"
      root="$(cd "$2" && pwd)"
      shift 2
      ;;
    -h | --help)
      sed -n '2,/^set -uo/p' "${BASH_SOURCE[1]}" | sed '$d; s/^# \{0,1\}//'
      exit 0
      ;;
    -*) usage_error "unknown flag $1" ;;
    *)
      pages+=("$1")
      shift
      ;;
  esac
done
