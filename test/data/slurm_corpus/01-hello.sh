#!/bin/bash
#SBATCH --job-name=hello
#SBATCH --output=hello-%j.out
#SBATCH --ntasks=1
#SBATCH --time=00:01:00

echo "Hello from $SLURM_JOB_NAME, job $SLURM_JOB_ID"
