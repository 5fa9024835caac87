# SPDX-License-Identifier: GPL-2.0
"""RST simple tables for the benchmark reports (iommu/report.py,
kernel/report.py, btrfs/), so the tables in Documentation/ are pasted
from a report, not retyped, and the generated section they go into."""

import re
import sys


def rst_table(header, rows):
    """An RST simple table: columns as wide as their widest cell."""
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    rule = "  ".join("=" * w for w in widths)

    def line(cells):
        return "  ".join(str(c).ljust(w)
                         for c, w in zip(cells, widths)).rstrip()
    return [rule, line(header), rule] + [line(r) for r in rows] + [rule]


def replace_rst_section(path, marker, lines):
    """Replace the ``.. MARKER:BEGIN`` ... ``.. MARKER:END`` section of the
    RST file @path with @lines (which carry both markers); exit naming
    the file when it has no such section."""
    with open(path) as f:
        text = f.read()
    pat = re.compile(r"\.\. " + re.escape(marker) + r":BEGIN.*?\.\. " +
                     re.escape(marker) + r":END", re.S)
    if not pat.search(text):
        sys.exit(f"{sys.argv[0]}: {path}: no {marker} section")
    with open(path, "w") as f:
        f.write(pat.sub(lambda _: "\n".join(lines), text))
