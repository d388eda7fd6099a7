#!/usr/bin/env python3
"""Every subcommand and option of the programs' --help is in their manual pages.

    packaging/check_man_pages.py PROTEUS proteus.1.gz [PROTEUS_LAB proteus-lab.1.gz]

Reads the help as tests/docs/check_help_documented.py does (its CLI11 parsing, shared): each
subcommand PROTEUS lists must have a section of its own (.SH "PROTEUS SUB") holding every long
option of `PROTEUS SUB --help`; the top-level options must be in the page, and so must every
option of PROTEUS_LAB --help in its page. The pages are read as roff, their escapes undone
(\\- is -, fonts dropped). Also: the page is gzipped at level 9, and `--version` names the
program. Prints what is missing; exit 1 then, 2 when a program cannot be run, 0 when all is there.
"""
import gzip
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "docs"))
from check_help_documented import help_text, options_of, subcommands_of  # noqa: E402


def page_text(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] != b"\x1f\x8b" or raw[8] != 2:  # gzip magic; XFL 2: the best compression
        raise SystemExit(f"check_man_pages: {path} is not gzipped at level 9")
    text = gzip.decompress(raw).decode("utf-8")
    text = re.sub(r"\\f[BIRP]", "", text).replace("\\-", "-").replace("\\&", "").replace("\\e", "\\")
    return text


def sections(text):
    """{title: body} of the page's .SH sections."""
    out, title = {}, None
    for line in text.split("\n"):
        if line.startswith(".SH "):
            title = line[4:].strip().strip('"')
            out[title] = []
        elif title is not None:
            out[title].append(line)
    return {t: "\n".join(b) for t, b in out.items()}


def has(option, text):
    return re.search(r"(?<![A-Za-z0-9_-])" + re.escape(option) + r"(?![A-Za-z0-9_-])", text) is not None


def check_version(program):
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60)
    name = os.path.basename(program)
    if done.returncode != 0 or not done.stdout.startswith(name + " "):
        return [f"{name} --version: exit {done.returncode}, {done.stdout.strip()!r}"]
    return []


def check(program, page, with_subcommands):
    name = os.path.basename(program)
    text = page_text(page)
    found = sections(text)
    missing = check_version(program)
    for required in ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS"]:
        if required not in found:
            missing.append(f"{page}: no {required} section")
    if "NAME" in found and not re.search(re.escape(name) + r" - \S", found["NAME"]):
        missing.append(f"{page}: the NAME section is not 'NAME - what it is'")
    top = help_text([program])
    for option in options_of(top):
        if not has(option, found.get("OPTIONS", "")):
            missing.append(f"{name} {option}: not in the OPTIONS section of {page}")
    subs = subcommands_of(top) if with_subcommands else []
    if with_subcommands and not subs:
        missing.append(f"{name} --help lists no subcommands")
    for sub in subs:
        title = f"{name.upper()} {sub.upper()}"
        if title not in found:
            missing.append(f"{name} {sub}: no section {title} in {page}")
            continue
        for option in options_of(help_text([program, sub])):
            if not has(option, found[title]):
                missing.append(f"{name} {sub} {option}: not in the section {title} of {page}")
    return missing


def main():
    args = sys.argv[1:]
    if len(args) not in (2, 4):
        raise SystemExit(__doc__)
    missing = check(args[0], args[1], True)
    if len(args) == 4:
        missing += check(args[2], args[3], False)
    for m in missing:
        print("missing:", m)
    if missing:
        return 1
    print(f"check_man_pages: every subcommand and option is in {', '.join(args[1::2])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
