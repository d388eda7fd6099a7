#!/usr/bin/env python3
"""Every relative link and anchor in README.md and docs/*.md resolves.

    tests/docs/check_links.py [REPO_ROOT]      (default: the repository this file is in)

A link is Markdown's [text](target), ![alt](target) or a reference definition [label]: target,
outside code blocks and code spans. Links to other sites (http:, https:, mailto:) are not
followed. A relative target must name a file or folder that exists, from the linking file's
folder. An anchor (#heading, alone or after a .md file) must be the slug of a heading in that
file, by GitHub's rules: the heading's text lowercased, every character other than a letter, a
digit, '_', '-' or a space removed, spaces turned into '-'; a second heading with the same slug
gets '-1', a third '-2', and so on.

Also: kernels/README.md names every file of kernels/ (in backticks), so its file list is whole.

Prints each broken link as FILE:LINE: target (and why), exits 1 when there is one, 0 when none.
Standard library only.
"""
import os
import re
import sys
import unicodedata
from urllib.parse import unquote

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+[\"'(][^)]*)?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def strip_code_spans(line):
    """The line with each code span blanked (its length kept), so links inside are not seen."""
    return CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)


def prose_lines(text):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        yield number, line


def heading_text(raw):
    """A heading's text as GitHub renders it: code spans' contents kept, links' text kept, HTML tags dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", raw)
    text = re.sub(r"<[^>]+>", "", text)
    return text.replace("`", "")


def slug(text):
    out = []
    for c in heading_text(text).lower():
        category = unicodedata.category(c)
        if c == "-" or category[0] in "LM" or category in ("Nd", "Pc"):
            out.append(c)
        elif c == " ":
            out.append("-")
    return "".join(out)


_anchor_cache = {}


def anchors(path):
    """Every heading slug of a Markdown file, with GitHub's -1, -2 for repeats."""
    if path not in _anchor_cache:
        seen = {}
        found = set()
        with open(path, encoding="utf-8") as f:
            for _, line in prose_lines(f.read()):
                m = HEADING.match(line)
                if not m:
                    continue
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                found.add(base if n == 0 else f"{base}-{n}")
        _anchor_cache[path] = found
    return _anchor_cache[path]


def links(path):
    """(line number, target) of every link in a Markdown file."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, line in prose_lines(text):
        prose = strip_code_spans(line)
        m = REFERENCE_DEF.match(prose)
        if m:
            yield number, m.group(1)
            continue
        for m in INLINE_LINK.finditer(prose):
            yield number, m.group(1)


def problem(source, target):
    """Why `target`, linked from `source`, does not resolve; None when it does."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or EXTERNAL.match(target):
        return None
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part)
    if path_part:
        if path_part.startswith("/"):
            return "an absolute path: links must be relative to the file"
        resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part))
        if not os.path.exists(resolved):
            return "no such file or folder"
    else:
        resolved = source
    if anchor:
        if not resolved.endswith(".md") or not os.path.isfile(resolved):
            return None  # an anchor into a code file or a folder is not checked
        if unquote(anchor) not in anchors(resolved):
            return "no heading with this anchor in " + os.path.relpath(resolved)
    return None


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    root = os.path.normpath(root)
    os.chdir(root)
    files = ["README.md"] + sorted(
        os.path.join("docs", name) for name in os.listdir("docs") if name.endswith(".md")
    )
    broken = 0
    checked = 0
    for source in files:
        if not os.path.isfile(source):
            print(f"{source}:0: missing (the page to check is not there)")
            broken += 1
            continue
        for number, target in links(source):
            checked += 1
            why = problem(source, target)
            if why:
                print(f"{source}:{number}: {target} ({why})")
                broken += 1
    with open(os.path.join("kernels", "README.md"), encoding="utf-8") as f:
        kernels_readme = f.read()
    for name in sorted(os.listdir("kernels")):
        if name != "README.md" and f"`{name}`" not in kernels_readme:
            print(f"kernels/README.md:0: {name} (a file of kernels/ the page does not name)")
            broken += 1
    if broken:
        print(f"check_links: {broken} broken of {checked} links in {len(files)} files", file=sys.stderr)
        return 1
    print(f"check_links: {checked} links in {len(files)} files, all resolve")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
