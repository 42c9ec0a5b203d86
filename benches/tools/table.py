#!/usr/bin/env python3
"""Render a benchmark table from a TSV file, as aligned text and as Markdown.

    table.py ROWS.tsv [--md OUT.md] [--title TEXT] [--preamble FILE]

ROWS.tsv: the first line is the header, every other line one row, fields split
by tabs. The text table goes to stdout; with --md the same table (after the
title and the preamble's lines, e.g. the machine description) is written as
Markdown to OUT.md.
"""

import argparse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv")
    ap.add_argument("--md")
    ap.add_argument("--title", default="")
    ap.add_argument("--preamble")
    a = ap.parse_args()

    with open(a.tsv, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    header, body = rows[0], rows[1:]
    width = len(header)
    body = [r + [""] * (width - len(r)) for r in body]
    widths = [max(len(r[i]) for r in [header] + body) for i in range(width)]

    def text_row(r):
        return "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()

    print(text_row(header))
    print("  ".join("-" * w for w in widths))
    for r in body:
        print(text_row(r))

    if a.md:
        with open(a.md, "w", encoding="utf-8") as out:
            if a.title:
                out.write(f"## {a.title}\n\n")
            if a.preamble:
                with open(a.preamble, encoding="utf-8") as p:
                    out.write(p.read().rstrip("\n") + "\n\n")
            md = lambda r: "| " + " | ".join(c.replace("|", "\\|") for c in r) + " |"
            out.write(md(header) + "\n")
            out.write("|" + "|".join("---" for _ in header) + "|\n")
            for r in body:
                out.write(md(r) + "\n")


if __name__ == "__main__":
    main()
