# SPDX-License-Identifier: GPL-2.0
#
# Sphinx configuration of the project's HTML documentation (make htmldocs).
#
# The API reference comes from the sources' kernel-doc comments through the
# kernel's own kernel-doc extension (Documentation/sphinx/kerneldoc.py and
# kernellog.py) and scripts/kernel-doc, which make htmldocs extracts from
# Debian's linux-source-6.1 into build/kernel-doc: the project carries none
# of the kernel's code.  With Sphinx 5.3 the extension needs only
# kernellog.py beside it; the kernel's cdomain.py is for Sphinx before 3,
# and Sphinx's own C domain reads what kernel-doc writes.

import os
import sys

top = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
kdoc = os.environ.get("SL_KERNELDOC_DIR", os.path.join(top, "build", "kernel-doc"))
if not os.path.isfile(os.path.join(kdoc, "Documentation", "sphinx", "kerneldoc.py")):
    sys.exit(f"conf.py: no kernel-doc extension in {kdoc}: run 'make htmldocs'")
sys.path.insert(0, os.path.join(kdoc, "Documentation", "sphinx"))

project = "RCU skiplist range index"
copyright = "the project's authors; GPL-2.0"
author = "the project's authors"

extensions = ["kerneldoc", "sphinx.ext.graphviz"]

# kerneldoc.py runs scripts/kernel-doc on the project's sources; with
# KDOC_WERROR set, any kernel-doc warning fails the script, and the
# extension reports that as a Sphinx warning, which -W turns into an error.
kerneldoc_bin = os.path.join(kdoc, "scripts", "kernel-doc")
kerneldoc_srctree = top
kerneldoc_verbosity = 1
os.environ["KDOC_WERROR"] = "1"

source_suffix = ".rst"
master_doc = "index"
# Pages that other pages include (.. include::), not documents of their own.
exclude_patterns = [
    "skiplist-leaf-sweep.rst",
    "lsm-memory.rst",
    "lsm-runs.rst",
    "lsm-compaction.rst",
    "lsm-bench.rst",
]
primary_domain = "c"
highlight_language = "none"
pygments_style = "sphinx"

html_theme = "sphinx_rtd_theme"
html_title = project
html_show_sourcelink = False
html_static_path = []

graphviz_output_format = "svg"
