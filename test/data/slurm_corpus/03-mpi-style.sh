#!/bin/bash
#SBATCH -J mpi_hello
#SBATCH -N 2
#SBATCH --ntasks-per-node=2
#SBATCH -o mpi.out
# An MPI launcher would start its ranks here; srun starts the same ranks as plain processes.
srun bash -c 'echo "rank $SLURM_PROCID of $SLURM_NTASKS on node $SLURM_NODEID local $SLURM_LOCALID"' | sort
