"""The command line the Markdown checkers share (check_doc_quotes.py, check_doc_links.py):
`[--root DIR] [PAGE...]`, a bad one a one-line error and exit 2; and their verdict written to
standard output, or one line and exit 3 where it cannot be. Standard library only."""
import os
import sys


def usage_error(prog, message):
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(2)


def parse_command_line(prog, doc, arguments):
    """(root, pages): --root DIR (default: this checkout) and the pages named, if any; --help
    prints doc."""
    root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    pages = []
    while arguments:
        argument = arguments.pop(0)
        if argument == "--root":
            if not arguments or not arguments[0]:
                usage_error(prog, "--root needs a value")
            if not os.path.isdir(arguments[0]):
                usage_error(prog, f"--root {arguments[0]}: no such folder")
            root = os.path.abspath(arguments.pop(0))
        elif argument in ("-h", "--help"):
            print(doc.strip())
            sys.exit(0)
        elif argument.startswith("-"):
            usage_error(prog, f"unknown flag {argument}")
        else:
            pages.append(argument)
    return root, pages


def run(prog, main):
    """main()'s exit code, once its output is known to have arrived: standard output on a full
    disk or a closed pipe is one line and exit 3, not a traceback or a lost verdict."""
    try:
        code = main()
        sys.stdout.flush()
        return code
    except OSError as error:
        if error.filename is not None:
            raise
        try:
            sys.stdout = open(os.devnull, "w")  # nothing more to flush into the broken stream at exit
        except OSError:
            pass
        print(f"{prog}: cannot write to standard output: {error.strerror or error}", file=sys.stderr)
        return 3
