#!/bin/bash
#SBATCH -N 2
#SBATCH --gpus-per-node=2
#SBATCH -o gpus.out
srun bash -c 'echo "node $SLURM_NODEID sees $CUDA_VISIBLE_DEVICES"' | sort
