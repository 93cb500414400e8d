/* An MPI program the tests compile at test time (mpicc.mpich) and start directly, one process a
 * rank, under shoal's PMI server: each rank prints its rank, the world's size and the sum of
 * all ranks. "--exit-before-init R" makes rank R (by PMI_RANK) exit with code 3 before MPI_Init,
 * so the others wait in its fence for a rank that never comes. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  const char* pmi_rank = getenv("PMI_RANK");
  if (argc > 2 && strcmp(argv[1], "--exit-before-init") == 0 && pmi_rank != NULL &&
      atoi(pmi_rank) == atoi(argv[2]))
    return 3;
  int rank = -1, size = -1, sum = -1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("rank %d of %d sum %d\n", rank, size, sum);
  MPI_Finalize();
  return 0;
}
