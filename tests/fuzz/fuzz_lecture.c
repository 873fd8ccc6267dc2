/* fuzz_lecture.c - libFuzzer target: the lecture script loader.
 *
 * The input is a lecture script (YAML, examples/lectures/).  It is written
 * to a file in a private temporary directory and read with lecture_load,
 * which parses and checks every key; lecture_check (loading the models
 * and running passes) is left to fuzz_model and the tests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/lecture.h"

static char dir[64], path[128];

static void cleanup(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(dir, sizeof dir, "%s/attnscope-fuzz.XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir)) {
		perror("fuzz_lecture: mkdtemp");
		abort();
	}
	snprintf(path, sizeof path, "%s/lecture.yaml", dir);
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp))
		abort();
	struct lecture l;
	struct err e;
	lecture_load(&l, path, &e);
	lecture_free(&l);   /* after a failed load too: the caller frees */
	return 0;
}
