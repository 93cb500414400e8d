#!/bin/bash
#SBATCH -N 2
#SBATCH -o steps.out
srun -N1 -n1 echo "step one"
srun -N1 -n1 echo "step two"
srun -n2 hostname | sort | uniq -c | awk '{print $1 " tasks"}'
echo "SLURM_STEP_ID is ${SLURM_STEP_ID:-unset} in the batch script"
