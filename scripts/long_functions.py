#!/usr/bin/env python3
"""Lists the C++ functions longer than LIMIT lines, longest first: the length counts from the
signature's first line to the closing brace (comments above it not included).

    scripts/long_functions.py [LIMIT [FILE ...]]     # default: 80, every .cpp/.h under sim/

Run from the repository root. A function is a brace block at namespace or class scope whose
head has a parenthesis; lambdas and nested blocks count towards the function they are in.
Comments and string literals (raw ones included) are blanked first, so braces in them do
not count. A heuristic, not a C++ parser: macros that open braces would confuse it.
"""
import re, sys, pathlib

def strip(src):
    # blank out comments, string and char literals (keep newlines) so braces inside them don't count
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('//', i):
            j = src.find('\n', i); j = n if j < 0 else j
            out.append(' ' * (j - i)); i = j
        elif src.startswith('/*', i):
            j = src.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append(''.join(ch if ch == '\n' else ' ' for ch in src[i:j])); i = j
        elif src.startswith('R"', i) and (i == 0 or not (src[i-1].isalnum() or src[i-1] == '_')):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            end = ')' + m.group(1) + '"'
            j = src.find(end, i + m.end()); j = n if j < 0 else j + len(end)
            out.append(''.join(ch if ch == '\n' else ' ' for ch in src[i:j])); i = j
        elif c in '"\'':
            if c == "'" and i > 0 and src[i-1].isalnum():  # digit separator 1'000
                out.append(' '); i += 1; continue
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == '\\' else 1
            j += 1
            out.append(''.join(ch if ch == '\n' else ' ' for ch in src[i:j])); i = j
        else:
            out.append(c); i += 1
    return ''.join(out)

def functions(path):
    src = strip(pathlib.Path(path).read_text())
    stack = []  # 'scope' (namespace/class/extern) or 'fn' or 'other'
    last_end = 0
    starts = []
    for i, c in enumerate(src):
        if c == '{':
            head = src[last_end:i]
            container = all(k == 'scope' for k in stack)
            if container and (re.search(r'\b(namespace|class|struct|union|enum)\b[^()]*$', head) or
                              re.match(r'\s*(template\s*<[^{]*>\s*)?(class|struct|union|enum)\b', head) or
                              head.strip().startswith('extern "')):
                stack.append('scope')
            elif container and '(' in head and not re.search(r'=\s*$', head.strip()):
                stack.append('fn'); starts.append(last_end)
            else:
                stack.append('other')
            if stack[-1] == 'scope':
                last_end = i + 1
        elif c == '}':
            kind = stack.pop() if stack else 'scope'
            if kind == 'fn':
                s = starts.pop()
                # signature line: first non-blank char after previous statement
                k = s
                while k < i and src[k].isspace(): k += 1
                l0 = src.count('\n', 0, k) + 1
                l1 = src.count('\n', 0, i) + 1
                name = re.sub(r'\s+', ' ', src[k:src.find('(', k)]).strip()
                yield l0, l1, name
            if all(x == 'scope' for x in stack):
                last_end = i + 1
        elif c == ';' and all(k == 'scope' for k in stack):
            last_end = i + 1

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 80
paths = sys.argv[2:] or [str(p) for p in pathlib.Path('sim').rglob('*') if p.suffix in ('.cpp', '.hpp', '.h')]
rows = []
for p in sorted(paths):
    for l0, l1, name in functions(p):
        length = l1 - l0 + 1
        if length > limit:
            rows.append((length, p, l0, name))
for length, p, l0, name in sorted(rows, reverse=True):
    print(f'{length:5d}  {p}:{l0}  {name}')
