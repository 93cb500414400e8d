#!/bin/bash
#SBATCH --job-name=guide
#SBATCH --output=guide-%j.out
#SBATCH --ntasks=4
#SBATCH --ntasks-per-node=2
#SBATCH --time=00:05:00
#SBATCH --mem-per-cpu=100M
#SBATCH --partition=debug
#SBATCH --account=physics
#SBATCH --qos=normal
#SBATCH --mail-type=BEGIN,END,FAIL
#SBATCH --mail-user=alice@example.org
#SBATCH --export=ALL

srun hostname
echo $SLURM_JOB_ID
