# Sourced by the multi-GPU device scripts: Open MPI as root, NVLink multicast
# off (the device machines' rule), one rank per GPU.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} OMP_PROC_BIND=false
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
MPI="mpirun --allow-run-as-root --oversubscribe --bind-to none -x OMP_NUM_THREADS -x OMP_PROC_BIND -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH ${SPK_DIST_IPC:+-x SPK_DIST_IPC}"
MAP=--kokkos-map-device-id-by=mpi_rank
