#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Refuse checks that bats never fails on (issue 20, item 7).

bats runs a test under `set -e`, and bash's errexit ignores

  * a command negated with `!` (bash: "the shell does not exit if ... the
    command's return status is being inverted with !"); on a test's last
    line its status happens to be the test's, until a line is added after it;
  * every command of an `a && b` list but the last: a false `a` ends the
    list with a failure that errexit ignores;
  * a check followed by `|| true`.

So, outside the condition of an if, while or until, this refuses:

  negation   any `!` statement, the test's last line too (write
             `run ! cmd`, `refute cmd`, or `[[ ]]`, `[ ]` with the test
             inverted);
  and-list   an `a && b` list that ends in a check ([, [[, test, grep, diff,
             cmp, !): only its last check can fail; or one whose first
             command is not a check and whose last is no action (break,
             continue, return, skip, echo, an assignment, ...), such as
             `mkdir x && tar -C x ...`: the first one's failure is lost.
             `[ x ] && cmd` is a condition, and allowed. Write the checks
             one a line, or end the list with `|| false`;
  or-true    `CHECK || true`, `CHECK || :` where CHECK is [, [[, test,
             grep -q, diff or cmp: a check that can never fail;
  action     `CHECK && echo ...`, `&& printf`, `&& true`, `&& :`, `&& x=1`:
             the action says or sets something and the check's failure
             is lost (issue 34); a condition guards a real command;
  pipe       a pipeline whose left side is perfcap ("$P", $PERFCAP,
             perfcap) where pipefail is off and the next statement does
             not read PIPESTATUS: only the last command's status counts,
             so perfcap crashing after its output passes;
  skip       `PERFCAP... || skip`, `&& skip`: perfcap's own answer
             decides to skip; a skip is for what the machine lacks;
  run        `run CMD` (no -N, no !) whose $status nothing reads before
             the next run or the end of the test: its failure is lost;
  refute     `refute ... <(CMD)`: a failing CMD feeds nothing, and the
             refute passes; capture its output first (x=$(CMD)).

A light scanner, not a shell parser: LINT_BATS_DEBUG=1 prints each
statement it found, with its line and nesting depth, on stderr.

Usage: tests/lint-bats.py [FILE...] (default: tests/shell/*.bats and
tests/shell/helpers.bash). Prints FILE:LINE: RULE: why, for each finding,
and exits 1 when there is one, 0 when there is none, 2 on a usage error.
"""

import glob
import os
import re
import sys

# What may end an `a && b` list after a check: the action the check guards.
ACTIONS = {
    "break", "continue", "return", "exit", "skip", "local",
    "export", "unset", "shift", "set", "{", "(",
}
# Actions that only say or set something: after a check they hide its
# failure (a check guarding them is an assertion someone meant).
HIDING = {"echo", "printf", "true", ":", "="}
# perfcap's command word in the suite.
PERFCAP_WORDS = {'"$P"', "$P", '"$PERFCAP"', "$PERFCAP", "perfcap"}
# Commands whose status is the point: a check.
CHECKS = {"[", "[[", "test", "diff", "cmp", "!", "grep", "egrep", "fgrep",
          "false", "(("}
CONDITION_KEYWORDS = {"if", "elif", "while", "until"}
OPENERS = {"if", "for", "while", "until", "case", "select", "{", "("}
CLOSERS = {"fi", "done", "esac", "}", ")"}
PREFIX_KEYWORDS = {"then", "do", "else", "time"}


class Statement:
    """One and-or list: its operands (text) and the operators between them."""

    def __init__(self, line):
        self.line = line
        self.operands = [""]
        self.ops = []

    def add(self, text):
        self.operands[-1] += text

    def split(self, op):
        self.ops.append(op)
        self.operands.append("")

    def empty(self):
        return not self.ops and not self.operands[0].strip()


def statements(text):
    """The Statement objects of text, a shell script, in order.

    A light scanner, enough for this suite: quotes, $(...), ${...}, $((...)),
    ((...)), [[...]], heredocs and comments are skipped over as parts of a
    word; newline, ';', '&' and ';;' end a statement; '{', '(' and the
    compound keywords start new ones. Each statement has the line it
    starts on.
    """
    i, n, line = 0, len(text), 1
    cur = Statement(1)
    heredocs = []
    subshells = []
    word_start = True

    found = []

    def flush():
        nonlocal cur
        if not cur.empty():
            found.append(cur)
        cur = Statement(line)

    def skip_quoted(j, quote):
        # j is just past the opening quote; returns the index past the close.
        nonlocal line
        while j < n:
            c = text[j]
            if c == "\n":
                line += 1
            if quote == '"' and c == "\\":
                if j + 1 < n and text[j + 1] == "\n":
                    line += 1
                j += 2
                continue
            if c == quote:
                return j + 1
            if quote == '"' and c == "$" and j + 1 < n and text[j + 1] in "({":
                j = skip_nested(j + 2, text[j + 1])
                continue
            if quote == '"' and c == "`":
                j = skip_quoted(j + 1, "`")
                continue
            j += 1
        return j

    def skip_nested(j, opener):
        # j is past "(" or "{" (of $( ${ (( or a bare group in a word).
        nonlocal line
        closer = ")" if opener == "(" else "}"
        depth = 1
        while j < n:
            c = text[j]
            if c == "\n":
                line += 1
            if c == "\\":
                j += 2
                continue
            if c in "'\"`":
                # quotes inside: "$(grep ')' f)", ${x//'a'/b}
                j = skip_quoted(j + 1, c)
                continue
            if c == "#" and opener == "(" and (text[j - 1] in " \t\n("):
                while j < n and text[j] != "\n":
                    j += 1
                continue
            if c == "$" and j + 1 < n and text[j + 1] in "({":
                j = skip_nested(j + 2, text[j + 1])
                continue
            if c == opener:
                depth += 1
            elif c == closer:
                depth -= 1
                if depth == 0:
                    return j + 1
            j += 1
        return j

    while i < n:
        c = text[i]
        # heredoc bodies start after the newline that ends their command
        if c == "\n":
            i += 1
            line += 1
            while heredocs:
                strip, word = heredocs.pop(0)
                while i < n:
                    end = text.find("\n", i)
                    end = n if end < 0 else end
                    body = text[i:end]
                    i = end + 1
                    line += 1
                    if (body.lstrip("\t") if strip else body) == word:
                        break
            flush()
            word_start = True
            continue
        if c == "\\" and i + 1 < n:
            if text[i + 1] == "\n":
                line += 1
                cur.add(" ")
            else:
                cur.add(text[i:i + 2])
            i += 2
            word_start = False
            continue
        if c in " \t":
            cur.add(c)
            i += 1
            word_start = True
            continue
        if c == "#" and word_start:
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "'\"`":
            j = skip_quoted(i + 1, c)
            cur.add(text[i:j])
            i = j
            word_start = False
            continue
        if c in "$<>" and i + 1 < n and text[i + 1] in "({" and not (c != "$" and text[i + 1] == "{"):
            # $(...), ${...}, and process substitutions <(...), >(...)
            j = skip_nested(i + 2, text[i + 1])
            cur.add(text[i:j])
            i = j
            word_start = False
            continue
        if text.startswith("((", i) and word_start:
            j = skip_nested(i + 2, "(")
            # skip_nested stops after the first ")" that balances "((": one more
            if j < n and text[j] == ")":
                j += 1
            cur.add(text[i:j])
            i = j
            word_start = False
            continue
        if text.startswith("[[", i) and word_start and (i + 2 >= n or text[i + 2] in " \t\n"):
            j = i + 2
            while j < n:
                if text[j] in "'\"`":
                    j = skip_quoted(j + 1, text[j])
                    continue
                if text[j] == "$" and j + 1 < n and text[j + 1] in "({":
                    j = skip_nested(j + 2, text[j + 1])
                    continue
                if text[j] == "\\":
                    j += 2
                    continue
                if text[j] == "\n":
                    line += 1
                if text.startswith("]]", j) and text[j - 1] in " \t":
                    j += 2
                    break
                j += 1
            cur.add(text[i:j])
            i = j
            word_start = False
            continue
        if text.startswith("<<<", i):
            cur.add("<<<")  # a here-string, not a heredoc
            i += 3
            word_start = True
            continue
        if text.startswith("<<", i):
            m = re.match(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z_0-9]*)\2", text[i:])
            if m:
                heredocs.append((m.group(1) == "-", m.group(3)))
                cur.add(m.group(0))
                i += m.end()
                word_start = False
                continue
        if text.startswith("&&", i) or text.startswith("||", i):
            cur.split(text[i:i + 2])
            i += 2
            word_start = True
            continue
        if c == ";" or (c == "&" and not text.startswith("&>", i)
                        and not (i > 0 and text[i - 1] in "<>")):
            if text.startswith(";;", i):
                i += 1
            i += 1
            flush()
            word_start = True
            continue
        if c == ")" and subshells and not word_start:
            # "(cd x; find) >got": the subshell ends here
            flush()
            cur.add(c)
            flush()
            subshells.pop()
            i += 1
            word_start = True
            continue
        if c in "{}()" and word_start:
            nxt = text[i + 1] if i + 1 < n else "\n"
            if c in "()" or nxt in " \t\n;":
                if c == "(":
                    subshells.append(line)
                elif c == ")" and subshells:
                    subshells.pop()
                # a group or a subshell: a statement of its own, as the
                # keywords are; "} >file", "done <x" keep their redirections
                # in the statement that follows, which is harmless.
                if cur.operands[-1].strip() == "" and cur.ops:
                    cur.add(c)  # `a || {`: the group is the last operand,
                    flush()     # and opens like one at a statement's start
                    cur.add(c)
                    flush()
                else:
                    flush()
                    cur.add(c)
                    flush()
                i += 1
                word_start = True
                continue
        cur.add(c)
        i += 1
        word_start = False
    flush()
    return found


def words(operand):
    """operand split at blanks outside quotes (enough to find its command)."""
    out, w, q = [], "", None
    for c in operand:
        if q:
            w += c
            if c == q:
                q = None
        elif c in "'\"":
            w += c
            q = c
        elif c in " \t\n":
            if w:
                out.append(w)
            w = ""
        else:
            w += c
    if w:
        out.append(w)
    return out


def first_command(operand):
    """The command word of an operand, past assignments and `time`."""
    ws = words(operand)
    k = 0
    while k < len(ws) and re.match(r"^[A-Za-z_][A-Za-z_0-9]*(\[[^]]*\])?\+?=", ws[k]):
        k += 1
    if k == len(ws):
        return "=" if ws else ""
    return ws[k]


def lint(path):
    text = open(path, encoding="utf-8").read()
    stmts = statements(text)
    findings = []

    # Nesting depth and condition context, statement by statement.
    depth = 0
    in_case = []
    for st in stmts:
        op0 = st.operands[0].strip()
        ws = words(op0)
        # strip leading keywords and case patterns
        while ws:
            w = ws[0]
            if w in PREFIX_KEYWORDS:
                ws = ws[1:]
                continue
            if w in CLOSERS:
                depth -= 1
                if w == "esac" and in_case:
                    in_case.pop()
                ws = ws[1:]
                continue
            if in_case and in_case[-1] == depth:
                m = re.match(r"^\(?[^()=\s][^()]*\)(\s|$)", " ".join(ws))
                if m and not " ".join(ws).startswith("$("):
                    ws = " ".join(ws)[m.end():].split()
                    continue
            break
        st.operands[0] = " ".join(ws)
        head = ws[0] if ws else ""
        st.condition = head in CONDITION_KEYWORDS
        st.depth = depth
        if head in OPENERS:
            if head == "case":
                in_case.append(depth + 1)
            depth += 1

    if os.environ.get("LINT_BATS_DEBUG"):
        for st in stmts:
            print("%d depth %d%s: %s" % (st.line, st.depth, " cond" if st.condition else "",
                                         " ".join(sum(([o, p] for o, p in zip(st.operands, st.ops + [""])), []))),
                  file=sys.stderr)

    for st in stmts:
        if st.condition or not st.operands[0].strip():
            continue
        ops, operands = st.ops, [o.strip() for o in st.operands]
        cmds = [first_command(o) for o in operands]
        where = "%s:%d" % (path, st.line)
        # negation: a `!` statement outside a condition
        if not ops and cmds[0] == "!":
            findings.append("%s: negation: '%s' never fails the test (bats' set -e "
                            "ignores a '!'): use 'run ! CMD', 'refute CMD' or "
                            "invert the test" % (where, short(operands[0])))
            continue
        if ops and ops[-1] == "&&":
            first, last = cmds[0], cmds[-1]
            if first in CHECKS and last in HIDING:
                findings.append("%s: action: in '%s' a false '%s' is lost: the list only "
                                "says or sets something after it (set -e ignores it); "
                                "check on a line of its own" % (where, short(" && ".join(operands)),
                                                                short(operands[0])))
                continue
            # `[ x ] && act` (act: any command that is not a check) is a
            # condition; `check && check` asserts only its last, and
            # `cmd && cmd` hides the first one's failure.
            hollow = last in CHECKS or (first not in CHECKS and last not in ACTIONS
                                        and last != "=")
            if hollow:
                findings.append("%s: and-list: in '%s' a false '%s' never fails the test "
                                "(set -e ignores all but the last command of an && list): "
                                "one check a line, or end it with '|| false'"
                                % (where, short(" && ".join(operands)), short(operands[0])))
            continue
        if ops and ops[-1] == "||" and operands[-1] in ("true", ":"):
            prev = operands[-2]
            c = cmds[-2]
            if c in CHECKS or (c == "grep" and re.search(r"\s-[a-zA-Z]*q", " " + prev)):
                findings.append("%s: or-true: '%s || %s' can never fail"
                                % (where, short(prev), operands[-1]))
    findings += lint_perfcap(path, stmts)
    return sorted(findings, key=lambda f: int(f[len(path) + 1:].split(":", 1)[0]))


def pipeline(operand):
    """operand split at its unquoted, unnested '|' (not '||')."""
    parts, cur, q, depth, i = [], "", None, 0, 0
    while i < len(operand):
        c = operand[i]
        if q:
            if c == "\\" and q == '"':
                cur += operand[i:i + 2]
                i += 2
                continue
            if c == q:
                q = None
        elif c in "'\"`":
            q = c
        elif c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
        elif c == "|" and depth == 0:
            if operand.startswith("||", i):
                cur += "||"
                i += 2
                continue
            parts.append(cur)
            cur = ""
            i += 1
            continue
        cur += c
        i += 1
    parts.append(cur)
    return parts


def substitutions(text):
    """The commands of text's $(...) substitutions, nested ones too."""
    out, i = [], 0
    while True:
        i = text.find("$(", i)
        if i < 0 or text.startswith("$((", i):
            if i < 0:
                return out
            i += 3
            continue
        depth, j, q = 1, i + 2, None
        while j < len(text) and depth:
            c = text[j]
            if q:
                if c == q:
                    q = None
            elif c in "'\"":
                q = c
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            j += 1
        inner = text[i + 2:j - 1]
        out.append(inner.strip())
        out += substitutions(inner)
        i = j


def runs_perfcap(operand):
    """operand's command is perfcap (past `timeout N`, `env X=Y`)."""
    ws = words(operand)
    k = 0
    while k < len(ws):
        w = ws[k]
        if re.match(r"^[A-Za-z_][A-Za-z_0-9]*=", w):
            k += 1
        elif w == "env":
            k += 1
        elif w == "timeout":
            k += 2 if k + 1 < len(ws) and not ws[k + 1].startswith("-") else 1
            while k < len(ws) and ws[k].startswith("-"):
                k += 1
            if k < len(ws) and re.match(r"^[0-9.]+[smh]?$", ws[k]):
                k += 1
        else:
            break
    return k < len(ws) and ws[k] in PERFCAP_WORDS


def lint_perfcap(path, stmts):
    """The rules on perfcap's own status: pipe, skip, run, refute."""
    findings = []
    file_pipefail = pipefail = in_block = False
    for idx, st in enumerate(stmts):
        operands = [o.strip() for o in st.operands]
        cmds = [first_command(o) for o in operands]
        where = "%s:%d" % (path, st.line)
        text = " ".join(operands)
        if block_header(operands[0]):
            pipefail, in_block = file_pipefail, True
            continue
        if re.match(r"^set\s+([-+])o\s+pipefail\b", operands[0]):
            pipefail = operands[0].split()[1].startswith("-")
            if not in_block:
                file_pipefail = pipefail
            continue
        # skip: perfcap's answer decides a skip
        if st.ops and cmds[-1] == "skip" and any(
                runs_perfcap(pipeline(o)[0]) for o in operands[:-1]):
            findings.append("%s: skip: '%s' skips on what perfcap says; a skip is for "
                            "what the machine lacks, perfcap's answer is checked"
                            % (where, short(text)))
        # pipe: perfcap on the left of a pipeline, pipefail off
        nxt = " ".join(stmts[idx + 1].operands) if idx + 1 < len(stmts) else ""
        if not pipefail and "PIPESTATUS" not in nxt:
            # The statement's own pipelines, and those in its $(...): x=$(perfcap | wc -l).
            for o in operands + [sub for o in operands for sub in substitutions(o)]:
                parts = pipeline(o)
                head = parts[0]
                if first_command(head) == "run":
                    continue
                if len(parts) > 1 and runs_perfcap(head):
                    findings.append("%s: pipe: '%s': perfcap's status is lost without "
                                    "'set -o pipefail'" % (where, short(o)))
        # refute over a process substitution
        if cmds[0] == "refute" and "<(" in operands[0]:
            findings.append("%s: refute: '%s': a failing producer feeds nothing and the "
                            "refute passes; capture its output first" % (where, short(operands[0])))
        # run whose $status nothing reads
        ws = words(operands[0])
        if not st.ops and ws and ws[0] == "run" and not st.condition:
            flags = ws[1:]
            checked = False
            while flags and flags[0].startswith("-"):
                if re.match(r"^-[0-9]+$", flags[0]):
                    checked = True
                flags = flags[1:]
            if flags and flags[0] in ("!", "'!'"):
                checked = True
            if not checked and not reads_status(stmts, idx):
                findings.append("%s: run: '%s': nothing reads its $status before the next "
                                "run or the test's end; use run -0 (or -N, !) or check it"
                                % (where, short(operands[0])))
    return findings


def block_header(operand):
    """A test's or a function's first line: '@test "..."', 'name()'."""
    return operand.startswith("@test ") or re.match(r"^[A-Za-z_][\w-]*\s*\(\)", operand)


def reads_status(stmts, idx):
    """A statement after stmts[idx], before the next run or the next test
    or function, reads $status (the scanner's depth is not kept exact, so
    the blocks are told by their headers)."""
    for st in stmts[idx + 1:]:
        if block_header(st.operands[0].strip()):
            return False
        text = " ".join(st.operands)
        if re.search(r"\$\{?status\b", text):
            return True
        if words(st.operands[0].strip())[:1] == ["run"]:
            return False
    return False


def short(s, n=60):
    s = " ".join(s.split())
    return s if len(s) <= n else s[:n - 3] + "..."


def main(argv):
    usage = __doc__.strip().split("\n\n")[-1]
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if any(a.startswith("-") for a in argv):
        print(usage, file=sys.stderr)
        return 2
    for f in argv:
        if not os.path.isfile(f):
            print("lint-bats: %s: no such file" % f, file=sys.stderr)
            return 2
    top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files = argv or sorted(glob.glob(os.path.join(top, "tests/shell/*.bats"))) + \
        [os.path.join(top, "tests/shell/helpers.bash")]
    findings = []
    for f in files:
        findings += lint(os.path.relpath(f) if not argv else f)
    for f in findings:
        print(f)
    if findings:
        print("lint-bats: %d hollow check(s): bats would pass a test where they fail"
              % len(findings), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
