"""The string literals of the client's JavaScript, each with where it stands: enough to tell a text shown
to players (a child of `h(...)`, a `textContent`, an `aria-label`) from a class name, a key or a selector.

A small lexer rather than a parser (no JavaScript parser is installed with the tests): it follows
comments, quotes, template literals with their `${...}` parts and regular-expression literals, and keeps a
stack of the brackets it is inside, each with the name called before a `(` and how many commas it has
seen, so that a literal knows the call and the argument it is in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

IDENT = re.compile(r"[A-Za-z_$][\w$]*$")
# After these a `/` starts a regular expression, not a division.
REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}
REGEX_KEYWORDS = {"return", "typeof", "case", "in", "of", "delete", "void", "throw", "new", "else", "do"}


@dataclass(frozen=True)
class Literal:
    text: str  # a template literal's text with each ${...} replaced by "{}"
    line: int
    callee: str  # the name called by the innermost "(" around it ("" for none, "{" inside an object)
    argument: int  # which argument of that call (or entry of that object) it is in
    before: str  # the source just before it, whitespace squeezed (to see `textContent =` or `title:`)
    key: str  # inside an object: the key of the entry it is the value of ("" otherwise)


def literals(source: str) -> list[Literal]:
    found: list[Literal] = []
    stack: list[list] = []  # [opening char, callee, argument index, current key]
    i, n, line = 0, len(source), 1
    last = ""  # the last significant token (for telling a regex from a division)

    def frame() -> tuple[str, int, str]:
        if not stack:
            return "", 0, ""
        top = stack[-1]
        return top[1], top[2], top[3]

    def add(text: str, start_line: int, start: int) -> None:
        callee, argument, key = frame()
        before = re.sub(r"\s+", " ", source[max(0, start - 40) : start]).strip()
        found.append(Literal(text, start_line, callee, argument, before, key))

    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
            continue
        if source.startswith("/*", i):
            end = source.find("*/", i + 2)
            line += source.count("\n", i, end)
            i = end + 2
            continue
        if c in "\"'":
            j, start_line = i + 1, line
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            add(source[i + 1 : j], start_line, i)
            i, last = j + 1, "string"
            continue
        if c == "`":
            j, start_line, parts = i + 1, line, []
            while source[j] != "`":
                if source[j] == "\\":
                    parts.append(source[j : j + 2])
                    j += 2
                elif source.startswith("${", j):
                    depth, j = 1, j + 2
                    while depth:  # skip the expression (nested braces and simple strings)
                        if source[j] in "\"'":
                            q, j = source[j], j + 1
                            while source[j] != q:
                                j += 2 if source[j] == "\\" else 1
                        depth += {"{": 1, "}": -1}.get(source[j], 0)
                        j += 1
                    parts.append("{}")
                else:
                    parts.append(source[j])
                    j += 1
            text = "".join(parts)
            line += text.count("\n")
            add(text, start_line, i)
            i, last = j + 1, "string"
            continue
        if c == "/" and (last in REGEX_BEFORE or last in REGEX_KEYWORDS):
            j, in_class = i + 1, False
            while source[j] != "/" or in_class:
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            j += 1
            while j < n and source[j].isalpha():
                j += 1
            i, last = j, "regex"
            continue
        if c in "([{":
            callee = ""
            if c == "(":
                m = IDENT.search(source[max(0, i - 40) : i].rstrip())
                callee = m.group(0) if m else ""
            elif c == "{":
                callee = "{"
            stack.append([c, callee, 0, ""])
            i, last = i + 1, c
            continue
        if c in ")]}":
            if stack:
                stack.pop()
            i, last = i + 1, c
            continue
        if c == "," and stack:
            stack[-1][2] += 1
            stack[-1][3] = ""
            i, last = i + 1, c
            continue
        if c == ":" and stack and stack[-1][0] == "{":
            # The key of this entry: the identifier or string just before the colon.
            m = re.search(r"""(?:["']([^"']+)["']|([A-Za-z_$][\w$]*))\s*$""", source[max(0, i - 60) : i])
            if m:
                stack[-1][3] = m.group(1) or m.group(2)
            i, last = i + 1, c
            continue
        m = re.compile(r"[A-Za-z_$][\w$]*|\d[\w.]*").match(source, i)
        if m:
            last = m.group(0)
            i = m.end()
            continue
        last = c
        i += 1
    return found


# Where a literal is shown to players as it is.
CHILDREN_OF = {
    "h": 2,
    "s": 2,
    "fill": 1,
    "append": 0,
    "prepend": 0,
    "replaceChildren": 0,
    "createTextNode": 0,
}
SHOWN_ALONE = {"toast", "alert", "confirm", "prompt"}  # their first argument
SHOWN_KEYS = {"aria-label", "aria-description", "placeholder", "title", "alt", "text", "label"}
SHOWN_ASSIGNED = re.compile(r"\.(textContent|innerText|innerHTML|title|placeholder|label|ariaLabel)\s*=$")
SHOWN_ATTRIBUTE = re.compile(r"""setAttribute\(\s*["'](aria-label|title|placeholder|alt)["']\s*,$""")
COMPARED = re.compile(r"(===|!==|==|!=|case)$")


def shown(literal: Literal) -> bool:
    """Whether the literal is put on the page as text a player reads (or hears: aria-label)."""
    if COMPARED.search(literal.before):
        return False
    if literal.callee in CHILDREN_OF and literal.argument >= CHILDREN_OF[literal.callee]:
        return True
    if literal.callee in SHOWN_ALONE and literal.argument == 0:
        return True
    if literal.callee == "{" and literal.key in SHOWN_KEYS:
        return True
    return bool(SHOWN_ASSIGNED.search(literal.before) or SHOWN_ATTRIBUTE.search(literal.before))


def words(text: str) -> bool:
    """Whether a text has something to translate: a run of two Latin letters outside its ${...} parts."""
    return bool(re.search(r"[A-Za-z]{2,}", text.replace("{}", " ")))
