#!/bin/bash
#SBATCH -N 2
#SBATCH -n 4
#SBATCH --distribution=cyclic
#SBATCH -o cyclic.out
# Ranks dealt to the nodes in turn; the bare srun inherits the layout from SLURM_DISTRIBUTION.
srun bash -c 'echo "rank $SLURM_PROCID on node $SLURM_NODEID"' | sort
