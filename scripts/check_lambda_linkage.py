#!/usr/bin/env python3
"""Source check (ctest "lambda_functions_static"): every function in src/
that defines a KOKKOS_LAMBDA is `static` (internal linkage), and no member
function defines one.

Why: nvcc turns a host-device lambda into a wrapper whose copy function
calls through a pointer kept in an unnamed namespace, set only in the
translation unit that created the lambda.  The wrapper is named after the
enclosing function; when that function has external linkage and is
instantiated in several translation units, the linker keeps one unit's
weak copy of the wrapper and may pair it with another unit's pointer,
never set: the host jumps to address 0 when the lambda is copied (at the
launch).  A `static` enclosing function makes the wrapper local to each
unit.  Members cannot be static in that sense: use a named functor there.

  check_lambda_linkage.py [SOURCE_ROOT] [--fix]   (--fix adds the `static`)
"""
import os
import re
import sys

args = [a for a in sys.argv[1:] if a != "--fix"]
root = args[0] if args else os.path.join(os.path.dirname(__file__), "..")
lambda_re = re.compile(r"\bKOKKOS_(CLASS_)?LAMBDA\b")


def strip(text):
    """Blank out comments and string literals, keeping line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(q + " " * (j - i - 1) + q); i = j + 1
        else:
            out.append(text[i]); i += 1
    return "".join(out)


def check(path):
    text = strip(open(path, encoding="utf-8").read())
    # preprocessor lines (with their continuations) are not declarations
    text = re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    # braced default arguments and initialisers (`= {}`) open no scope
    text = re.sub(r"=\s*\{\s*\}", lambda m: "=" + re.sub(r"[^\n]", " ", m.group(0)[1:]), text)
    problems, stack, start = [], [], 0  # stack: (header, its offset) of the open scopes
    line_of = lambda pos: text.count("\n", 0, pos) + 1
    for m in re.finditer(r"[{};]|\bKOKKOS_(?:CLASS_)?LAMBDA\b", text):
        tok = m.group(0)
        if tok == "{":
            header = text[start:m.start()]
            offset = start + len(header) - len(header.lstrip())
            stack.append((" ".join(header.split()), offset)); start = m.end()
        elif tok == "}":
            if stack: stack.pop()
            start = m.end()
        elif tok == ";":
            start = m.end()
        else:
            outer = [(h, o) for h, o in stack if not re.match(r"^(inline\s+)?namespace\b", h)
                     and not h.startswith("extern")]
            if not outer:
                continue
            top, offset = outer[0]
            where = f"{os.path.relpath(path, root)}:{line_of(m.start())}"
            if re.search(r"\b(struct|class|union)\b", re.sub(r"<[^<>]*>", "", top)) and \
                    not re.search(r"\)\s*(const\s*)?(->.*)?$", top):
                problems.append(f"{where}: KOKKOS_LAMBDA in a member of `{top[:80]}`: use a named functor")
            elif not re.search(r"(^|[\s>])static\b", top):
                problems.append(f"{where}: KOKKOS_LAMBDA in `{top[:100]}`, which is not static")
                fixes.add((path, offset))
    return problems


def template_prefix_end(text, i):
    """Offset after the `template <...>` clauses starting at i."""
    while text.startswith("template", i):
        i = text.index("<", i)
        depth = 0
        while True:
            depth += {"<": 1, ">": -1}.get(text[i], 0)
            i += 1
            if depth == 0:
                break
        while text[i].isspace():
            i += 1
    return i


fixes = set()  # (file, offset of a function's declaration) to make static
problems = []
for dirpath, _, files in os.walk(os.path.join(root, "src")):
    for f in sorted(files):
        if f.endswith((".hpp", ".cpp", ".h", ".cu")):
            problems += check(os.path.join(dirpath, f))
if fixes and "--fix" in sys.argv:
    for path in sorted({f for f, _ in fixes}):
        text = open(path, encoding="utf-8").read()
        for _, offset in sorted((x for x in fixes if x[0] == path), reverse=True):
            at = template_prefix_end(text, offset)
            text = text[:at] + "static " + text[at:]
        open(path, "w", encoding="utf-8").write(text)
    print(f"check_lambda_linkage: made {len(fixes)} functions static")
    sys.exit(0)
if problems:
    print("functions defining KOKKOS_LAMBDA must be static (see this script's comment):")
    print("\n".join(problems))
    sys.exit(1)
print("check_lambda_linkage: every function in src/ defining a KOKKOS_LAMBDA is static")
