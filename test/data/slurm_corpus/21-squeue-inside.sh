#!/bin/bash
#SBATCH -J look
#SBATCH -o look.out
squeue -h -j "$SLURM_JOB_ID" | wc -l
scontrol show job "$SLURM_JOB_ID" | grep -o 'JobState=[A-Z]*'
