#!/usr/bin/env bash
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# Puts coll/themis into an Open MPI 4.1 or 5.0 source tree, where
# autogen.pl and configure pick it up like any coll component:
#
#   tools/ompi_in_tree.sh OMPI_SRC
#   cd OMPI_SRC && ./autogen.pl ... && ./configure ... && make && make install
#
# Copies ompi/mca/coll/themis (without shim/: the tree has the real
# header) and the planners it links (as ompi/mca/coll/themis/planners/),
# and writes ompi/mca/coll/themis/sources.am from the source lists of
# the top-level Makefile.am, so both builds compile the same files.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
ompi=${1:?usage: tools/ompi_in_tree.sh OMPI_SOURCE_TREE}
if [ ! -f "$ompi/ompi/mca/coll/coll.h" ] || [ ! -f "$ompi/autogen.pl" ]; then
    echo "ompi_in_tree: $ompi is not an Open MPI source tree (no ompi/mca/coll/coll.h or autogen.pl)" >&2
    exit 1
fi
dest=$ompi/ompi/mca/coll/themis
comp=$top/ompi/mca/coll/themis

# SOURCES list of a target in the top-level Makefile.am, one path a line.
am_list() {
    awk -v v="$1" '
        $1 == v && $2 == "=" { on = 1; $1 = ""; $2 = "" }
        on { cont = sub(/\\$/, ""); for (i = 1; i <= NF; ++i) print $i; if (!cont) exit }
    ' "$top/Makefile.am"
}
comp_sources=$(am_list ompi_mca_coll_themis_libcoll_themis_la_SOURCES | grep -v '/shim/' \
               | sed 's#^ompi/mca/coll/themis/##')
planner_sources=$(am_list planners_libthemis_planners_la_SOURCES)
[ -n "$comp_sources" ] && [ -n "$planner_sources" ] || {
    echo "ompi_in_tree: cannot read the source lists of $top/Makefile.am" >&2; exit 1; }

rm -rf "$dest"
mkdir -p "$dest/planners"
for f in $comp_sources Makefile.am configure.m4 help-mpi-coll-themis.txt; do
    cp "$comp/$f" "$dest/$f"
done
planner_dirs=
for f in $planner_sources; do
    mkdir -p "$(dirname "$dest/$f")"
    cp "$top/$f" "$dest/$f"
    case " $planner_dirs " in
        *" $(dirname "$f") "*) ;;
        *) planner_dirs="$planner_dirs $(dirname "$f")" ;;
    esac
done
{
    echo "# Written by themis' tools/ompi_in_tree.sh from its Makefile.am."
    printf 'coll_themis_sources ='; printf ' \\\n    %s' $comp_sources; echo
    printf 'coll_themis_planners_sources ='; printf ' \\\n    %s' $planner_sources; echo
    # the planners' folders, each on the include path as in themis' build
    printf 'coll_themis_planners_cppflags ='; printf ' \\\n    -I$(srcdir)/%s' $planner_dirs; echo
} >"$dest/sources.am"
echo "ompi_in_tree: coll/themis is in $dest; now run ./autogen.pl, ./configure and make in $ompi"
