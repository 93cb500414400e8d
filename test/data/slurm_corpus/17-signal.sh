#!/bin/bash
#SBATCH --time=0:30
#SBATCH --signal=B:USR1@25
#SBATCH -o signal.out
# Checkpoint before the time limit: Slurm's documented pattern.
trap 'echo "caught USR1, saving checkpoint"; exit 0' USR1
echo working
sleep 60 &
wait
