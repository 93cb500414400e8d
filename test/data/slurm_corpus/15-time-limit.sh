#!/bin/bash
#SBATCH --time=0:03
#SBATCH -o timeout.out
echo started
sleep 600
echo never
