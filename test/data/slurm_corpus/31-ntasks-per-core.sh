#!/bin/bash
#SBATCH -N 2
#SBATCH --ntasks=4
#SBATCH --ntasks-per-core=1
#SBATCH -o percore.out
echo "tasks: $SLURM_NTASKS per core: $SLURM_NTASKS_PER_CORE"
srun sh -c 'echo $SLURMD_NODENAME' | sort | uniq -c | awk '{print $2 ": " $1}'
