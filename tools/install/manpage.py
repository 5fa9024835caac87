#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A man page from a hand-written roff template and the program's own
--help texts, so that the page lists what the program accepts and never
drifts from it (make install, make check-install).

    manpage.py PROGRAM TEMPLATE VERSION DATE > PAGE

The template is roff.  @VERSION@ and @DATE@ are replaced, and a line

    .\\" @USAGE@ [WORD...]
        becomes the usage lines that open "PROGRAM WORD... --help";
    .\\" @COMMANDS@ [WORD...]
        becomes one entry per command of "PROGRAM WORD... --help"'s
        "commands:" list, each the command's own "--help": its usage
        line, then its text;
    .\\" @FLAGS@
        becomes one entry per flag of "PROGRAM --help": the lines that
        start with "  --" and the lines indented under them.

A program whose help has no such list fails the build: the page would
say nothing.
"""
import re
import subprocess
import sys


def run_help(program, words):
    r = subprocess.run([program] + words + ["--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, check=False)
    if r.returncode != 0:
        sys.exit(f"manpage: {' '.join([program] + words)} --help exited "
                 f"{r.returncode}")
    return r.stdout


def escape(text):
    """Plain text as roff: backslashes, dashes, and no line that roff would
    take for a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + l if l.startswith((".", "'")) else l
                     for l in text.split("\n"))


def synopsis(words):
    """A usage line as roff: literal words bold, metavariables (upper
    case) italic, the rest as it is."""
    out, redirect = [], False
    for w in words.split():
        m = re.fullmatch(r"([\[]*)(.*?)([\].]*)", w)
        pre, core, post = m.groups()
        # What follows "<" is a file, whatever its case.
        if redirect or re.fullmatch(r"[A-Z][A-Z0-9_]*", core):
            core = "\\fI" + core + "\\fR"
        elif core.startswith("-") or re.fullmatch(r"[a-z][a-z0-9_-]*", core):
            core = "\\fB" + escape(core) + "\\fR"
        else:
            core = escape(core)
        out.append(escape(pre) + core + escape(post))
        redirect = w == "<"
    return " ".join(out)


def paragraphs(text):
    paras, cur = [], []
    for line in text.split("\n"):
        if line.strip():
            cur.append(line.strip())
        elif cur:
            paras.append(" ".join(cur))
            cur = []
    if cur:
        paras.append(" ".join(cur))
    return paras


def commands(program, words):
    listing = run_help(program, words)
    names, inlist = [], False
    for line in listing.split("\n"):
        if line.strip() == "commands:":
            inlist = True
        elif inlist and line.startswith("  ") and line.strip():
            names.append(line.split()[0])
        elif inlist:
            inlist = False
    if not names:
        sys.exit(f"manpage: {' '.join([program] + words)} --help lists no "
                 "commands")
    out = []
    for name in names:
        text = run_help(program, words + [name]).rstrip("\n")
        usage, _, body = text.partition("\n")
        prefix = "usage: "
        if not usage.startswith(prefix):
            sys.exit(f"manpage: '{name} --help' does not start with "
                     f"'{prefix}': {usage!r}")
        # "usage: slctl lsm put KEY..." -> "put KEY...": the section says
        # whose commands these are.
        line = usage[len(prefix):].split(None, 1 + len(words))[-1]
        out.append(".TP\n" + synopsis(line))
        for i, p in enumerate(paragraphs(body)):
            out.append((".IP\n" if i else "") + escape(p))
    return out


def flags(program):
    listing = run_help(program, [])
    out, cur = [], None
    for line in listing.split("\n"):
        m = re.match(r"  (--\S+(?: --\S+)*)(?:\s{2,}(.*))?$", line)
        if m:
            cur = [m.group(1), [m.group(2) or ""]]
            out.append(cur)
        elif cur and re.match(r"\s{6,}\S", line):
            cur[1].append(line.strip())
        else:
            cur = None
    if not out:
        sys.exit(f"manpage: {program} --help lists no --flags")
    roff = []
    for names, text in out:
        tags = []
        for flag in names.split():
            name, eq, value = flag.partition("=")
            tags.append("\\fB" + escape(name) + "\\fR" +
                        (eq + "\\fI" + escape(value) + "\\fR" if eq else ""))
        roff.append(".TP\n" + ", ".join(tags))
        roff.append(escape(" ".join(t for t in text if t)))
    return roff


def usage(program, words):
    """The usage lines that open "PROGRAM WORD... --help": the first, and
    those under it that name the program again."""
    lines = run_help(program, words).split("\n")
    if not lines[0].startswith("usage: "):
        sys.exit(f"manpage: {' '.join([program] + words)} --help does not "
                 "start with 'usage: '")
    first = lines[0][len("usage: "):]
    name = first.split()[0]
    out = [first]
    for l in lines[1:]:
        if not l.strip().startswith(name + " "):
            break
        out.append(l.strip())
    return "\n.br\n".join(synopsis(l) for l in out)


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__.split("\n\n")[1])
    program, template, version, date = sys.argv[1:]
    page = []
    for line in open(template).read().split("\n"):
        m = re.match(r'\.\\" @(USAGE|COMMANDS|FLAGS)@(.*)$', line)
        if not m:
            page.append(line.replace("@VERSION@", version).replace(
                "@DATE@", date))
        elif m.group(1) == "USAGE":
            page.append(usage(program, m.group(2).split()))
        elif m.group(1) == "COMMANDS":
            page.extend(commands(program, m.group(2).split()))
        else:
            page.extend(flags(program))
    sys.stdout.write("\n".join(page))


if __name__ == "__main__":
    main()
