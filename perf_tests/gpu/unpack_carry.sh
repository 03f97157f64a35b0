# Sourced by the device scripts: the carried binaries and matrices of $C
# (each NAME.gz becomes an executable $D/NAME, m/ is copied to $D/m), then
# the multi-GPU settings (mpi_env.sh) and the GPUs present in $OUT/env.txt.
mkdir -p "$D" "$OUT"
if [ -d "$C/m" ]; then cp -r "$C/m" "$D/"; fi
# Always unpacked: a warm machine keeps $D from an earlier call, whose
# binaries of the same names may be another carry's.
for f in "$C"/*.gz; do
  b=$(basename "$f" .gz)
  gunzip -c "$f" >"$D/$b" && chmod +x "$D/$b"
done
source "$(dirname "${BASH_SOURCE[0]}")/mpi_env.sh"
nvidia-smi -L >"$OUT/env.txt"
