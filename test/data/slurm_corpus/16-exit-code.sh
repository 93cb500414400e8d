#!/bin/bash
#SBATCH -o fail.out
echo "about to fail"
exit 3
