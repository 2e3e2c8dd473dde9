/*
 * The journal's mapped window: a stretch of the journal file reserved on disk (posix_fallocate) and
 * mapped shared and writable, handed to JavaScript as an ArrayBuffer over the mapping. A store into it
 * is in the page cache at once, so it survives the process being killed as a write(2) would, without
 * a system call per batch; fdatasync on the file makes it durable as before.
 *
 *   map(fd, offset, length) -> ArrayBuffer   offset a multiple of the page size; throws with errno's code
 *   unmap(arrayBuffer)                        detaches it (views read as empty), then munmap
 *   pageSize() -> number
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static napi_value fail(napi_env env, int err, const char *what) {
  char msg[160];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  const char *code = err == ENOSPC ? "ENOSPC" : err == EFBIG ? "EFBIG" : err == EBADF ? "EBADF"
                   : err == EINVAL ? "EINVAL" : err == EACCES ? "EACCES" : err == ENOMEM ? "ENOMEM"
                   : err == EOPNOTSUPP ? "EOPNOTSUPP" : err == EIO ? "EIO" : "EUNKNOWN";
  napi_throw_error(env, code, msg);
  return NULL;
}

static int number_arg(napi_env env, napi_value v, double *out) {
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_number) return 0;
  return napi_get_value_double(env, v, out) == napi_ok;
}

static napi_value map_window(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double fd, offset, length;
  if (argc < 3 || !number_arg(env, argv[0], &fd) || !number_arg(env, argv[1], &offset) ||
      !number_arg(env, argv[2], &length) || fd < 0 || offset < 0 || length <= 0 ||
      (long long)offset % sysconf(_SC_PAGESIZE) != 0) {
    napi_throw_type_error(env, "EINVAL", "map(fd, offset, length): offset page-aligned, length > 0");
    return NULL;
  }
  /* Blocks reserved before the mapping is used: a full disk is an error here, not a SIGBUS later. */
  int err = posix_fallocate((int)fd, (off_t)offset, (off_t)length);
  if (err != 0) return fail(env, err, "journal window fallocate");
  void *addr = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, (off_t)offset);
  if (addr == MAP_FAILED) return fail(env, errno, "journal window mmap");
  napi_value ab;
  /* No finalizer: the writer unmaps explicitly; a forgotten window lives until the process ends. */
  if (napi_create_external_arraybuffer(env, addr, (size_t)length, NULL, NULL, &ab) != napi_ok) {
    munmap(addr, (size_t)length);
    napi_throw_error(env, "EUNKNOWN", "journal window: no external ArrayBuffer");
    return NULL;
  }
  return ab;
}

static napi_value unmap_window(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  bool is_ab = false;
  if (argc < 1 || napi_is_arraybuffer(env, argv[0], &is_ab) != napi_ok || !is_ab) {
    napi_throw_type_error(env, "EINVAL", "unmap(arrayBuffer)");
    return NULL;
  }
  void *addr = NULL;
  size_t length = 0;
  napi_get_arraybuffer_info(env, argv[0], &addr, &length);
  if (addr == NULL || length == 0) return NULL; /* already detached */
  /* Detached first: no view can reach the pages once they are unmapped. */
  if (napi_detach_arraybuffer(env, argv[0]) != napi_ok) {
    napi_throw_error(env, "EINVAL", "journal window: the ArrayBuffer could not be detached");
    return NULL;
  }
  munmap(addr, length);
  return NULL;
}

static napi_value page_size(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value v;
  napi_create_double(env, (double)sysconf(_SC_PAGESIZE), &v);
  return v;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"map", NULL, map_window, NULL, NULL, NULL, napi_enumerable, NULL},
      {"unmap", NULL, unmap_window, NULL, NULL, NULL, napi_enumerable, NULL},
      {"pageSize", NULL, page_size, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, 3, props);
  return exports;
}
