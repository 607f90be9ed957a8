#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Lint the integration tests' `check` calls: one condition each.

    check_lint.py FILE...   prints FILE:LINE: why for each bad call;
                            exit 0 when there is none, 1 otherwise

`check DESC CMD...` (tests/integration/lib.sh) runs CMD, the words up to the
first shell operator, and reports it as one TAP line. So in
`check "x" A && B`, B is no part of what the line reports, and in
`check "x" A || B`, B runs when the check failed. A `$?` anywhere in a check
is the status of whatever ran last before it (or of check's own shift), not of
the command the sentence names. Rejected:
  - a check followed by `&&` or `||` (or piped with `|`);
  - a `$?` in a check's description or command words.
Quoted text (eval '... && ...') is one word and is fine.

The scanner knows shell quoting, $(...), `...`, ${...}, $((...)), comments and
here-documents (their bodies are skipped): enough for our test scripts, not a
shell parser.
"""
import sys

OPS = ("&&", "||", ";;", "|&", ";", "&", "|", "(", ")", "\n")
# Words after which the next word starts a command.
LEADERS = {"then", "do", "else", "elif", "if", "while", "until", "{", "!", "time"}


class Scanner:
    """Splits shell text into words and operators, one command context at a time."""

    def __init__(self, text):
        self.s = text
        self.i = 0
        self.heredocs = []      # delimiters waiting for the end of the line
        self.contexts = []      # token lists of the nested command contexts

    def line(self, pos):
        return self.s.count("\n", 0, pos) + 1

    def peek(self, n=1):
        return self.s[self.i:self.i + n]

    def commands(self, closer):
        """Tokens up to `closer` (')' or '`') or the end: (kind, text, start)."""
        toks = []
        depth = 0
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t":
                self.i += 1
            elif self.peek(2) == "\\\n":
                self.i += 2
            elif c == "#":
                while self.i < len(self.s) and self.s[self.i] != "\n":
                    self.i += 1
            elif closer == "`" and c == "`":
                self.i += 1
                break
            elif c == ")" and closer == ")" and depth == 0:
                self.i += 1
                break
            elif c == "\n":
                toks.append(("op", "\n", self.i))
                self.i += 1
                self.heredoc_bodies()
            else:
                op = next((o for o in OPS if self.s.startswith(o, self.i)), None)
                if op and not self.s.startswith("&>", self.i):
                    depth += (op == "(") - (op == ")" and depth > 0)
                    toks.append(("op", op, self.i))
                    self.i += len(op)
                else:
                    start = self.i
                    self.word()
                    toks.append(("word", self.s[start:self.i], start))
        self.contexts.append(toks)
        return toks

    def heredoc_bodies(self):
        for delim, strip in self.heredocs:
            while self.i < len(self.s):
                end = self.s.find("\n", self.i)
                end = len(self.s) if end < 0 else end
                body = self.s[self.i:end]
                self.i = end + 1
                if (body.lstrip("\t") if strip else body) == delim:
                    break
        self.heredocs = []

    def word(self):
        """One word, quotes and substitutions included; stops at a blank or operator."""
        while self.i < len(self.s):
            c = self.s[self.i]
            if c in " \t\n;|()&":
                # 2>&1, >&2 and &>FILE are redirections, part of the word
                if not (c == "&" and (self.peek(2) == "&>" or self.s[self.i - 1] in "<>")):
                    return
                self.i += 1
            elif self.peek(2) == "<<" and self.peek(3) != "<<<":
                self.heredoc_start()
            elif self.peek(3) == "<<<":
                self.i += 3
            else:
                self.quoted_or_char()

    def heredoc_start(self):
        self.i += 2
        strip = self.peek() == "-"
        self.i += strip
        while self.peek() in (" ", "\t"):
            self.i += 1
        start = self.i
        while self.i < len(self.s) and self.s[self.i] not in " \t\n;|&()<>":
            self.quoted_or_char()
        delim = self.s[start:self.i].replace("'", "").replace('"', "").replace("\\", "")
        self.heredocs.append((delim, strip))

    def quoted_or_char(self):
        c = self.s[self.i]
        if c == "\\":
            self.i += 2
        elif c == "'":
            end = self.s.find("'", self.i + 1)
            self.i = len(self.s) if end < 0 else end + 1
        elif c == '"':
            self.double_quoted()
        elif c == "`":
            self.i += 1
            self.commands("`")
        elif c == "$":
            self.dollar()
        else:
            self.i += 1

    def double_quoted(self):
        self.i += 1
        while self.i < len(self.s):
            c = self.s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                self.i += 2
            elif c in "$`":
                self.quoted_or_char()
            else:
                self.i += 1

    def dollar(self):
        if self.peek(3) == "$((":
            self.i += 3
            self.balanced("(", ")", 2)
        elif self.peek(2) == "$(":
            self.i += 2
            self.commands(")")
        elif self.peek(2) == "${":
            self.i += 2
            self.balanced("{", "}", 1)
        elif self.peek(2) == "$'":
            self.i += 2
            while self.i < len(self.s) and self.s[self.i] != "'":
                self.i += 2 if self.s[self.i] == "\\" else 1
            self.i += 1
        else:
            self.i += 1

    def balanced(self, opener, closer, depth):
        while self.i < len(self.s) and depth > 0:
            c = self.s[self.i]
            if c == opener:
                depth += 1
                self.i += 1
            elif c == closer:
                depth -= 1
                self.i += 1
            elif c in "\\'\"`$":
                self.quoted_or_char()
            else:
                self.i += 1


def starts_command(toks, k):
    if k == 0:
        return True
    kind, text, _ = toks[k - 1]
    return kind == "op" or text in LEADERS


def lint_tokens(sc, toks, name):
    bad = []
    for k, (kind, text, start) in enumerate(toks):
        if kind != "word" or text != "check" or not starts_command(toks, k):
            continue
        end = k + 1
        while end < len(toks) and toks[end][0] == "word":
            end += 1
        if end == k + 1 and end < len(toks) and toks[end][1] == "(":
            continue    # the definition: check() { ... }
        line = sc.line(start)
        args = [t[1] for t in toks[k + 1:end]]
        if any("$?" in a for a in args):
            bad.append(f"{name}:{line}: a $? inside a check is not the status of its command")
        op = toks[end][1] if end < len(toks) else ""
        if op in ("&&", "||"):
            bad.append(f"{name}:{line}: check ... {op}: the TAP line does not report "
                       f"what follows {op}; put the whole condition inside the check")
        elif op in ("|", "|&"):
            bad.append(f"{name}:{line}: check ... {op}: the TAP line goes into a pipe")
    return bad


def lint(name, text):
    sc = Scanner(text)
    sc.commands(None)
    bad = []
    for toks in sc.contexts:
        bad += lint_tokens(sc, toks, name)
    return sorted(set(bad), key=lambda b: int(b.split(":")[1]))


def main(argv):
    bad = []
    for name in argv[1:]:
        with open(name, encoding="utf-8", errors="replace") as f:
            bad += lint(name, f.read())
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
