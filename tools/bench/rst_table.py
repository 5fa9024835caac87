# SPDX-License-Identifier: GPL-2.0
"""RST simple tables for the benchmark reports (iommu/report.py,
kernel/report.py), so the tables in Documentation/ are pasted from a
report, not retyped."""


def rst_table(header, rows):
    """An RST simple table: columns as wide as their widest cell."""
    widths = [max(len(str(r[i])) for r in [header] + rows)
              for i in range(len(header))]
    rule = "  ".join("=" * w for w in widths)

    def line(cells):
        return "  ".join(str(c).ljust(w)
                         for c, w in zip(cells, widths)).rstrip()
    return [rule, line(header), rule] + [line(r) for r in rows] + [rule]
