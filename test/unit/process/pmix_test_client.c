/* A PMIx client as an MPI library uses one at start (test/unit/process/pmix_server_test.cpp):
 * PMIx_Init, put a key, commit, fence collecting every rank's data, read every other rank's
 * key, finalize. Prints one line a step to stdout; exits 0 when every step worked.
 *
 * `pmix_test_client die RANK`: rank RANK exits with status 3 right after PMIx_Init, before the
 * fence; the others wait a moment first, so that its end is known before they fence.
 * `pmix_test_client die-unconnected RANK`: the same, but before PMIx_Init. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int get_u32(const pmix_proc_t* proc, const char* key, uint32_t* out) {
  pmix_value_t* val = NULL;
  pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
  if (rc != PMIX_SUCCESS) return rc;
  if (val->type == PMIX_UINT32)
    *out = val->data.uint32;
  else if (val->type == PMIX_UINT16)
    *out = val->data.uint16;
  else
    rc = PMIX_ERR_TYPE_MISMATCH;
  PMIX_VALUE_RELEASE(val);
  return rc;
}

int main(int argc, char** argv) {
  int die_rank = -1;
  if (argc == 3 && strcmp(argv[1], "die") == 0) die_rank = atoi(argv[2]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc == 3 && strcmp(argv[1], "die-unconnected") == 0) {
    const char* rank = getenv("PMIX_RANK");
    if (rank != NULL && atoi(rank) == atoi(argv[2])) return 3;
    die_rank = atoi(argv[2]);
  }

  pmix_proc_t me;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("init failed: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  if ((int)me.rank == die_rank) return 3;

  pmix_proc_t job;
  PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
  uint32_t size = 0, local_size = 0, local_rank = 0;
  if (get_u32(&job, PMIX_JOB_SIZE, &size) != PMIX_SUCCESS ||
      get_u32(&job, PMIX_LOCAL_SIZE, &local_size) != PMIX_SUCCESS ||
      get_u32(&me, PMIX_LOCAL_RANK, &local_rank) != PMIX_SUCCESS) {
    printf("rank %u: job info missing\n", me.rank);
    return 1;
  }
  printf("rank %u of %u local %u of %u ns %s\n", me.rank, size, local_rank, local_size, me.nspace);

  char key_value[64];
  snprintf(key_value, sizeof key_value, "value-of-%u", me.rank);
  pmix_value_t value;
  PMIX_VALUE_LOAD(&value, key_value, PMIX_STRING);
  rc = PMIx_Put(PMIX_GLOBAL, "shoal.test.key", &value);
  PMIX_VALUE_DESTRUCT(&value);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    printf("rank %u: put failed: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  if (die_rank >= 0) usleep(500 * 1000);

  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  rc = PMIx_Fence(&job, 1, &collect, 1);
  PMIX_INFO_DESTRUCT(&collect);
  if (rc != PMIX_SUCCESS) {
    printf("rank %u: fence failed: %s\n", me.rank, PMIx_Error_string(rc));
    return 2;
  }

  int bad = 0;
  for (uint32_t r = 0; r < size; ++r) {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, r);
    pmix_value_t* got = NULL;
    char want[64];
    snprintf(want, sizeof want, "value-of-%u", r);
    rc = PMIx_Get(&peer, "shoal.test.key", NULL, 0, &got);
    if (rc != PMIX_SUCCESS || got->type != PMIX_STRING || strcmp(got->data.string, want) != 0) {
      printf("rank %u: rank %u's key: %s\n", me.rank, r, PMIx_Error_string(rc));
      bad = 1;
    }
    if (got != NULL) PMIX_VALUE_RELEASE(got);
  }
  if (!bad) printf("rank %u sees all %u keys\n", me.rank, size);
  rc = PMIx_Finalize(NULL, 0);
  if (rc != PMIX_SUCCESS) {
    printf("rank %u: finalize failed: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  return bad;
}
