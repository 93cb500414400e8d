#!/bin/bash
#SBATCH --job-name=train
#SBATCH --gres=gpu:1
#SBATCH --time=10:00
#SBATCH --output=train.out

echo "GPUs: $CUDA_VISIBLE_DEVICES ($SLURM_GPUS_ON_NODE on this node)"
