#!/bin/bash
#SBATCH --job-name=info
#SBATCH --nodes=1
#SBATCH --output=info.out
sinfo -h -N | wc -l
echo "restart count ${SLURM_RESTART_COUNT:-0}"
