#!/bin/bash
#SBATCH -N 2
#SBATCH -o hosts.out
scontrol show hostnames "$SLURM_JOB_NODELIST"
echo "$SLURM_JOB_NUM_NODES nodes: $SLURM_JOB_NODELIST"
echo "tasks per node: $SLURM_TASKS_PER_NODE"
