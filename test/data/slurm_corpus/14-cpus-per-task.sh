#!/bin/bash
#SBATCH --job-name=openmp
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=2
#SBATCH -o threads.out

export OMP_NUM_THREADS=$SLURM_CPUS_PER_TASK
echo "OMP_NUM_THREADS=$OMP_NUM_THREADS"
srun bash -c 'echo "the step sees $SLURM_CPUS_PER_TASK CPUs per task"'
