/* A pause point inside a commit, for tests/harness/crash/sigkill.sh only: preloaded into `threefold
 * ingest` (LD_PRELOAD), it wraps the C library's rename and renameat2, through which a commit
 * writes its record and swaps each table's folder (src/dataset/commit.rs), and stops the process
 * right after the rename named by THREEFOLD_TEST_PAUSE_AT:
 *   record         the commit record renamed into place (no folder swapped yet)
 *   games-swapped  the games folder swapped in, the events folder not yet
 *   events-swapped games and events swapped, the summary not yet
 *   summary-swapped all three swapped, the manifest not yet updated
 * There it writes the renamed path to THREEFOLD_TEST_PAUSE_FILE and sleeps until killed. The
 * product is not changed and the release binary has no hook: without LD_PRELOAD nothing of this
 * is loaded. Built by sigkill.sh with `cc -shared -fPIC`. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The last component of a path, and the one before it. */
static void parts(const char *path, const char **base, char *parent, size_t size) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  parent[0] = 0;
  if (!slash) return;
  const char *end = slash, *start = slash;
  while (start > path && start[-1] != '/') start--;
  size_t n = (size_t)(end - start) < size - 1 ? (size_t)(end - start) : size - 1;
  memcpy(parent, start, n);
  parent[n] = 0;
}

static int matches(const char *point, const char *newpath) {
  const char *base;
  char parent[256];
  parts(newpath, &base, parent, sizeof parent);
  if (strcmp(point, "record") == 0) return strncmp(base, ".commit-source=", 15) == 0;
  if (strncmp(base, "source=", 7) != 0) return 0;
  if (strcmp(point, "games-swapped") == 0) return strcmp(parent, "games") == 0;
  if (strcmp(point, "events-swapped") == 0) return strcmp(parent, "events") == 0;
  if (strcmp(point, "summary-swapped") == 0) return strcmp(parent, "summary") == 0;
  return 0;
}

static void maybe_pause(const char *newpath) {
  const char *point = getenv("THREEFOLD_TEST_PAUSE_AT");
  const char *file = getenv("THREEFOLD_TEST_PAUSE_FILE");
  if (!point || !file || !matches(point, newpath)) return;
  int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    (void)!write(fd, newpath, strlen(newpath));
    close(fd);
  }
  for (;;) pause();
}

int rename(const char *oldpath, const char *newpath) {
  static int (*real)(const char *, const char *);
  if (!real) real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  int rc = real(oldpath, newpath);
  if (rc == 0) maybe_pause(newpath);
  return rc;
}

int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
  static int (*real)(int, const char *, int, const char *, unsigned int);
  if (!real) real = (int (*)(int, const char *, int, const char *, unsigned int))dlsym(RTLD_NEXT, "renameat2");
  int rc = real(olddirfd, oldpath, newdirfd, newpath, flags);
  if (rc == 0) maybe_pause(newpath);
  return rc;
}
