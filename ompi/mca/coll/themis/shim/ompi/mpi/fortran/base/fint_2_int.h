/*
 * Copyright (c) 2026 The themis developers. All rights reserved.
 * SPDX-License-Identifier: BSD-3-Clause
 *
 * Stand-in for Open MPI's ompi/mpi/fortran/base/fint_2_int.h, which
 * ompi/op/op.h includes but Debian's libopenmpi-dev does not ship.  op.h
 * only needs the scalar conversions between C int and MPI_Fint; a cast is
 * correct whether or not the two types have the same size.  The guard is
 * the original header's, so a real copy earlier on the include path wins.
 */
#ifndef OMPI_FORTRAN_BASE_FINT_2_INT_H
#define OMPI_FORTRAN_BASE_FINT_2_INT_H

#include "mpi.h"

#define OMPI_INT_2_FINT(a) ((MPI_Fint) (a))
#define OMPI_FINT_2_INT(a) ((int) (a))

#endif
