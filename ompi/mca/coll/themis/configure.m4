# -*- shell-script -*-
# Copyright (c) 2026 The themis developers. All rights reserved.
# SPDX-License-Identifier: BSD-3-Clause
#
# In-tree build only (see Makefile.am): the planners need json-c (rules
# files, graphs) and libxml2 (MSCCL-XML); without them the component is
# not built and configure says which packages are missing.

# MCA_ompi_coll_themis_CONFIG([action-if-can-compile], [action-if-cant-compile])
AC_DEFUN([MCA_ompi_coll_themis_CONFIG],[
    AC_CONFIG_FILES([ompi/mca/coll/themis/Makefile])

    AC_MSG_CHECKING([for json-c and libxml2 (coll/themis)])
    AS_IF([pkg-config --exists json-c libxml-2.0 2>/dev/null],
          [coll_themis_happy=yes
           coll_themis_CPPFLAGS=`pkg-config --cflags json-c libxml-2.0`
           coll_themis_LIBS=`pkg-config --libs json-c libxml-2.0`],
          [coll_themis_happy=no])
    AC_MSG_RESULT([$coll_themis_happy])
    AS_IF([test "$coll_themis_happy" = "yes"],
          [$1],
          [AC_MSG_WARN([coll/themis is not built: it needs pkg-config, json-c and libxml2 (Debian: pkg-config libjson-c-dev libxml2-dev)])
           $2])

    AC_SUBST([coll_themis_CPPFLAGS])
    AC_SUBST([coll_themis_LDFLAGS])
    AC_SUBST([coll_themis_LIBS])
])dnl
