#!/bin/bash
# Issue 6 with the kinds lent then (4 x H200): spgemm_scaling.sh on 1, 2, 4
# GPUs for poisson3d:100, random:1M:1M:8 and G3_circuit.  The committed x4
# data (docs/data/mpi/scaling_h200x4_*) came from this script's earlier,
# self-contained version (git history), with D=.carry/i6.
D=${D:-.carry/i6} NPS=${NPS:-"1 2 4"} \
  M=${M:-"poisson3d:100 random:1000000:1000000:8 ${D:-.carry/i6}/G3_circuit.mtx.gz"} \
  exec bash "$(dirname "$0")/spgemm_scaling.sh"
