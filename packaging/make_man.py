#!/usr/bin/env python3
"""A manual page made from a program's own --help (CLI11's layout), at build time.

    packaging/make_man.py PROGRAM NAME OUT.1.gz [--subcommands] [--date "November 2026"]
        [--replace OLD NEW]... [--see-also TEXT] [--files TEXT]...

Runs `PROGRAM --version` and `PROGRAM --help`; with --subcommands, also `PROGRAM SUB --help` for
each subcommand the help lists, each becoming a section of its own (`.SH "PROTEUS TRAIN"`) after a
COMMANDS list. The help's description is the page's DESCRIPTION, its options OPTIONS, its closing
text (CLI11's footer) follows them. --replace rewrites a path in the help text (the build folder's
binary names the checkout; the page is for the installed program). The page is written gzipped
(level 9, no name or time stamp in the header: what lintian and reproducible builds ask).
Standard library only. tests: packaging/check_man_pages.py.
"""
import argparse
import gzip
import re
import subprocess
import sys

SECTION = re.compile(r"^([A-Z][A-Za-z ]*):$")  # "Options:", "Positionals:", "Subcommands:"
ENTRY = re.compile(r"^  (\S.*?)(?:\s{2,}(\S.*))?$")  # "  --set PATH=VALUE   override ..."


def run_help(command, replacements):
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        sys.exit(f"make_man: {' '.join(command)} exited {done.returncode}: {done.stderr.strip()}")
    text = done.stdout
    for old, new in replacements:
        text = text.replace(old, new)
    return text


def roff(text):
    """Plain text as roff: backslashes and dashes escaped, no line read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + line if line.startswith((".", "'")) else line for line in text.split("\n"))


def parse(text):
    """A CLI11 help text as (description, usage, [(section, [(name, words)])], footer paragraphs)."""
    lines = text.rstrip("\n").split("\n")
    description, usage, sections, footer = [], "", [], []
    i = 0
    while i < len(lines) and not lines[i].startswith("Usage: "):
        description.append(lines[i])
        i += 1
    if i < len(lines):
        usage = lines[i][len("Usage: "):]
        i += 1
    current = None
    for line in lines[i:]:
        m = SECTION.match(line)
        if m:
            current = (m.group(1), [])
            sections.append(current)
        elif not line.strip():
            if current is None and footer and footer[-1]:
                footer.append("")  # a blank line between footer paragraphs
            elif current is not None:
                current = None
        elif current is not None and line.startswith("    ") and current[1]:
            name, words = current[1][-1]
            current[1][-1] = (name, (words + " " + line.strip()).strip())  # a wrapped description
        elif current is not None and line.startswith("  "):
            m = ENTRY.match(line)
            current[1].append((m.group(1).strip(), (m.group(2) or "").strip()))
        else:
            current = None
            footer.append(line)
    paragraphs = [p for p in "\n".join(footer).split("\n\n") if p.strip()]
    return " ".join(description).strip(), usage, sections, paragraphs


def entry_name(name):
    """An option's name column in bold, its value names in italics: `--set PATH=VALUE`."""
    parts = name.split(" ")
    head = "\\fB" + roff(parts[0]).replace(",", "\\fR, \\fB") + "\\fR"
    rest = " ".join("\\fI" + roff(p) + "\\fR" for p in parts[1:])
    return head + (" " + rest if rest else "")


def body(sections, paragraphs, level):
    """The sections of one help text (Options, Positionals) and its footer, at .SH or .SS level."""
    out = []
    for title, entries in sections:
        if title == "Subcommands":
            continue
        out.append(f'{level} "{title.upper() if level == ".SH" else title}"')
        for name, words in entries:
            out += [".TP", entry_name(name), roff(words)]
    for p in paragraphs:
        out += [".PP", roff(p)]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("program")
    ap.add_argument("name")
    ap.add_argument("out")
    ap.add_argument("--subcommands", action="store_true")
    ap.add_argument("--date", default="")
    ap.add_argument("--replace", nargs=2, action="append", default=[], metavar=("OLD", "NEW"))
    ap.add_argument("--see-also", default="")
    ap.add_argument("--files", action="append", default=[], help="PATH=what it is, for the FILES section")
    a = ap.parse_args()

    # "proteus 0.1.0 (git ...)": the page's footer has room for the version alone.
    version = run_help([a.program, "--version"], a.replace).strip().split("\n")[0].split(" (")[0]
    description, usage, sections, paragraphs = parse(run_help([a.program, "--help"], a.replace))
    summary = description.rstrip(".")
    if ": " in summary:  # "Proteus Lab: gated memory rules, ..." -> "gated memory rules, ..."
        summary = summary.split(": ", 1)[1]
    page = [
        f'.TH "{a.name.upper()}" "1" "{a.date}" "{roff(version)}" "User Commands"',
        ".ad l",  # ragged right, no hyphenation: option names and paths stay whole
        ".nh",
        ".SH NAME",
        f"{roff(a.name)} \\- {roff(summary)}",
        ".SH SYNOPSIS",
        ".nf",
        roff(usage),
        ".fi",
        ".SH DESCRIPTION",
        roff(description),
    ]
    subcommands = next((entries for title, entries in sections if title == "Subcommands"), [])
    page += body(sections, [] if a.subcommands else paragraphs, ".SH")
    if a.subcommands:
        page.append(".SH COMMANDS")
        for name, words in subcommands:
            page += [".TP", f"\\fB{roff(a.name)} {roff(name)}\\fR", roff(words)]
        if paragraphs:
            page += [".PP"] + [roff(p) for p in paragraphs]
        for name, _ in subcommands:
            sub_description, sub_usage, sub_sections, sub_paragraphs = parse(
                run_help([a.program, name, "--help"], a.replace))
            page += [f'.SH "{roff(a.name.upper())} {roff(name.upper())}"', roff(sub_description),
                     ".PP", ".nf", roff(sub_usage), ".fi"]
            page += body(sub_sections, sub_paragraphs, ".SS")
    if a.files:
        page.append(".SH FILES")
        for f in a.files:
            path, what = f.split("=", 1)
            page += [".TP", f"\\fI{roff(path)}\\fR", roff(what)]
    if a.see_also:
        page += ['.SH "SEE ALSO"', roff(a.see_also)]
    data = ("\n".join(page) + "\n").encode("utf-8")
    with open(a.out, "wb") as f:
        f.write(gzip.compress(data, compresslevel=9, mtime=0))


if __name__ == "__main__":
    main()
