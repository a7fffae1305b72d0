# The one-line reason for check_exercise.sh's FAIL line, from a Google Test run's output.
#
# Takes the first failure (the lines after "file:line: Failure" up to gtest's next line) and picks
# its most telling line: the course's own verdict ("... FAILED (tolerance ...): ...") if there is
# one; else the failure's last line of text, skipping gtest's boilerplate ("Value of:", "Expected:
# true") and the "replay:" line (the seed is in the trace); else the message an AssertionResult
# carries in "Actual: false (...)". The scoped trace that names the case follows in brackets.
# Prints nothing when the output holds no failure (a test that crashed, for instance).
/ Failure$/ && !seen { seen = 1; grab = 1; next }
grab && /^Google Test trace:/ { grab = 0; trace = 1; next }
grab && /^\[/ { grab = 0; next }
grab && NF {
  line = $0
  sub(/^ +/, "", line)
  if (line ~ /^Actual: false \(.*\)$/) {
    actual = substr(line, 16, length(line) - 16)
  } else if (line ~ /^(Value of: |Expected: (true|false)$|Actual: (true|false)$|replay: )/) {
    # gtest's frame around a boolean, or the replay hint: not the reason
  } else if (verdict == "" && line ~ /FAILED \(/) {
    verdict = line
  } else {
    last = line
  }
  next
}
trace && NF { sub(/^[^ ]*:[0-9]+: /, ""); where = $0; trace = 0 }
END {
  reason = verdict != "" ? verdict : (last != "" ? last : actual)
  if (reason != "") print reason (where != "" ? " (" where ")" : "")
}
