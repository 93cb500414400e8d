#!/bin/bash
#SBATCH -J defaultout
echo "into the default file"
