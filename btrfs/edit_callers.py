#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Edit a copy of Linux 6.1's fs/btrfs for the extent map on the skiplist.

Usage: edit_callers.py FS_BTRFS_DIR

The project's btrfs/extent_map.[ch] replace btrfs's own.  Callers change
where they reached into the rbtree or took the tree's lock:

 1. Write sections go through extent_map_write_lock()/_unlock(), which
    also mark the section for lockless lookups.  The locks are found by
    type: pointers declared struct extent_map_tree * in the file, and
    the inode's extent_tree and the file system's mapping_tree by name.
    extent_map.c warns at run time if a tree changes outside a marked
    section, so a site missed here shows in the tests.
 2. A read lock held over nothing but one lookup_extent_mapping() or
    search_extent_mapping() call is dropped: the lookup needs none.
 3. The four walks over the rbtree use extent_map_first(),
    extent_map_next_locked() and extent_map_last().
 4. Trees are released where the inode, the chunk tree or a test's tree
    goes away (the skiplist's head leaf is made at the first insert).
 5. The project's own sanity tests of the lockless paths run after
    btrfs's extent map tests.

Every edit names the text it expects and fails loudly if the source
differs, so a different kernel version stops the build here, not later.
Prints one line per file with what changed; the counts are documented
in Documentation/btrfs.rst.
"""
import os
import re
import sys

DECLARED = re.compile(r"struct extent_map_tree \*(\w+)")


def em_lock(text):
    """The locks of extent map trees in a file: pointers declared as
    struct extent_map_tree *, and the two trees reached by name."""
    names = sorted(set(DECLARED.findall(text)))
    ptrs = "".join(f"|{n}->lock" for n in names)
    return (r"&(?:[\w>.()-]*\.extent_tree\.lock|fs_info->mapping_tree\.lock"
            + ptrs + ")")


def write_lock_re(lock):
    return re.compile(r"\bwrite_(lock|unlock)\((" + lock + r")\);")


# read_lock(X); em = lookup/search(...); read_unlock(X);
def lone_lookup_re(lock):
    return re.compile(
        r"(?P<ind>\t+)read_lock\((?P<lock>" + lock + r")\);\n"
        r"(?P<call>(?P=ind)em = (?:lookup|search)_extent_mapping\([^;]*\);\n)"
        r"(?P=ind)read_unlock\((?P=lock)\);\n")


def tree_of(lock):
    """&em_tree->lock -> em_tree; &fs_info->mapping_tree.lock -> &fs_info->mapping_tree"""
    inner = lock[1:]
    if inner.endswith("->lock"):
        return inner[:-len("->lock")]
    return "&" + inner[:-len(".lock")]


def replace_once(text, old, new, where):
    if text.count(old) != 1:
        sys.exit(f"edit_callers: {where}: expected text found "
                 f"{text.count(old)} times:\n{old}")
    return text.replace(old, new)


WALKS = {
    "block-group.c": [(
        "\tstruct extent_map_tree *em_tree = &fs_info->mapping_tree;\n"
        "\tstruct rb_node *node;\n"
        "\tint ret = 0;\n\n"
        "\tfor (node = rb_first_cached(&em_tree->map); node; node = rb_next(node)) {\n"
        "\t\tstruct extent_map *em;\n"
        "\t\tstruct map_lookup *map;\n"
        "\t\tstruct btrfs_block_group *bg;\n\n"
        "\t\tem = rb_entry(node, struct extent_map, rb_node);\n",
        "\tstruct extent_map_tree *em_tree = &fs_info->mapping_tree;\n"
        "\tstruct extent_map *em;\n"
        "\tint ret = 0;\n\n"
        "\tfor (em = extent_map_first(em_tree); em;\n"
        "\t     em = extent_map_next_locked(em_tree, em)) {\n"
        "\t\tstruct map_lookup *map;\n"
        "\t\tstruct btrfs_block_group *bg;\n\n")],
    "volumes.c": [(
        "\tstruct extent_map *em;\n"
        "\tstruct rb_node *n;\n"
        "\tu64 ret = 0;\n\n"
        "\tem_tree = &fs_info->mapping_tree;\n"
        "\tread_lock(&em_tree->lock);\n"
        "\tn = rb_last(&em_tree->map.rb_root);\n"
        "\tif (n) {\n"
        "\t\tem = rb_entry(n, struct extent_map, rb_node);\n"
        "\t\tret = em->start + em->len;\n"
        "\t}\n",
        "\tstruct extent_map *em;\n"
        "\tu64 ret = 0;\n\n"
        "\tem_tree = &fs_info->mapping_tree;\n"
        "\tread_lock(&em_tree->lock);\n"
        "\tem = extent_map_last(em_tree);\n"
        "\tif (em)\n"
        "\t\tret = em->start + em->len;\n"), (
        "\tstruct extent_map *em;\n"
        "\tstruct rb_node *node;\n"
        "\tint ret = 0;\n\n"
        "\tread_lock(&em_tree->lock);\n"
        "\tfor (node = rb_first_cached(&em_tree->map); node; node = rb_next(node)) {\n"
        "\t\tem = rb_entry(node, struct extent_map, rb_node);\n",
        "\tstruct extent_map *em;\n"
        "\tint ret = 0;\n\n"
        "\tread_lock(&em_tree->lock);\n"
        "\tfor (em = extent_map_first(em_tree); em;\n"
        "\t     em = extent_map_next_locked(em_tree, em)) {\n"), (
        "\t\tif (!em)\n"
        "\t\t\tbreak;\n"
        "\t\t/* once for us */\n"
        "\t\tfree_extent_map(em);\n"
        "\t\t/* once for the tree */\n"
        "\t\tfree_extent_map(em);\n"
        "\t}\n"
        "}\n",
        "\t\tif (!em)\n"
        "\t\t\tbreak;\n"
        "\t\t/* once for us */\n"
        "\t\tfree_extent_map(em);\n"
        "\t\t/* once for the tree */\n"
        "\t\tfree_extent_map(em);\n"
        "\t}\n"
        "\textent_map_tree_release(tree);\n"
        "}\n")],
    "inode.c": [(
        "\tbtrfs_drop_extent_map_range(BTRFS_I(inode), 0, (u64)-1, false);\n"
        "\tkmem_cache_free(btrfs_inode_cachep, BTRFS_I(inode));\n",
        "\tbtrfs_drop_extent_map_range(BTRFS_I(inode), 0, (u64)-1, false);\n"
        "\textent_map_tree_release(&BTRFS_I(inode)->extent_tree);\n"
        "\tkmem_cache_free(btrfs_inode_cachep, BTRFS_I(inode));\n"), (
        "\tbtrfs_drop_extent_map_range(inode, 0, (u64)-1, false);\n"
        "\tbtrfs_inode_clear_file_extent_range(inode, 0, (u64)-1);\n",
        "\tbtrfs_drop_extent_map_range(inode, 0, (u64)-1, false);\n"
        "\textent_map_tree_release(&inode->extent_tree);\n"
        "\tbtrfs_inode_clear_file_extent_range(inode, 0, (u64)-1);\n")],
    "tests/btrfs-tests.c": [(
        "\tret = btrfs_test_extent_map();\n",
        "\tret = btrfs_test_extent_map();\n"
        "\tif (!ret)\n"
        "\t\tret = btrfs_test_extent_map_lockless();\n")],
    "tests/extent-map-tests.c": [(
        "\tstruct extent_map *em;\n"
        "\tstruct rb_node *node;\n\n"
        "\textent_map_write_lock(em_tree);\n"
        "\twhile (!RB_EMPTY_ROOT(&em_tree->map.rb_root)) {\n"
        "\t\tnode = rb_first_cached(&em_tree->map);\n"
        "\t\tem = rb_entry(node, struct extent_map, rb_node);\n",
        "\tstruct extent_map *em;\n\n"
        "\textent_map_write_lock(em_tree);\n"
        "\twhile ((em = extent_map_first(em_tree))) {\n"), (
        "out:\n"
        "\tkfree(em_tree);\n",
        "out:\n"
        "\tif (em_tree)\n"
        "\t\textent_map_tree_release(em_tree);\n"
        "\tkfree(em_tree);\n")],
}


def edit(path, rel):
    with open(path) as f:
        text = f.read()
    orig = text
    lock = em_lock(text)
    writes = sum(1 for m in write_lock_re(lock).finditer(text)
                 if m.group(1) == "lock")
    text = write_lock_re(lock).sub(
        lambda m: f"extent_map_write_{m.group(1)}({tree_of(m.group(2))});",
        text)
    text, lone = lone_lookup_re(lock).subn(lambda m: m.group("call"), text)
    for old, new in WALKS.get(rel, []):
        text = replace_once(text, old, new, rel)
    if text != orig:
        with open(path, "w") as f:
            f.write(text)
        print(f"{rel}: {writes} write sections marked, "
              f"{lone} read locks dropped, "
              f"{len(WALKS.get(rel, []))} walks or releases")
    return writes, lone


# The project's own sanity tests (extent_map_lockless_tests.c, copied in
# as tests/extent-map-lockless-tests.c) join btrfs's.
OTHER = {
    "tests/btrfs-tests.h": [(
        "int btrfs_test_extent_map(void);\n",
        "int btrfs_test_extent_map(void);\n"
        "int btrfs_test_extent_map_lockless(void);\n")],
    "Makefile": [(
        "tests/extent-map-tests.o",
        "tests/extent-map-tests.o \\\n\ttests/extent-map-lockless-tests.o")],
}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    top = sys.argv[1]
    total_w = total_l = 0
    for dirpath, _, names in os.walk(top):
        for name in sorted(names):
            if not name.endswith(".c") or name == "extent_map.c":
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, top)
            w, l = edit(path, rel)
            total_w += w
            total_l += l
    for rel, edits in OTHER.items():
        path = os.path.join(top, rel)
        with open(path) as f:
            text = f.read()
        for old, new in edits:
            text = replace_once(text, old, new, rel)
        with open(path, "w") as f:
            f.write(text)
        print(f"{rel}: the project's sanity tests added")
    left = []
    for dirpath, _, names in os.walk(top):
        for name in names:
            if name.endswith(".c") and name != "extent_map.c":
                with open(os.path.join(dirpath, name)) as f:
                    for n, line in enumerate(f, 1):
                        if re.search(r"rb_node, struct extent_map|"
                                     r"extent_map, rb_node|em_tree->map\b|"
                                     r"mapping_tree\.map\b", line):
                            left.append(f"{name}:{n}: {line.strip()}")
    if left:
        sys.exit("edit_callers: rbtree uses left:\n" + "\n".join(left))
    print(f"edit_callers: {total_w} write sections marked, "
          f"{total_l} read locks dropped")


if __name__ == "__main__":
    main()
