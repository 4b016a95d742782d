#ifndef TDL_CCURL_H
#define TDL_CCURL_H
#include <curl/curl.h>
// mallopt: the engine keeps its large per-connection buffers on the heap (see CurlEngine).
#include <malloc.h>

// libcurl and the libraries it needs are linked in statically (Package.swift), without its
// LDAP, RTMP and GSS-API back ends (absent-backends.c).

// glibc declares these only under _GNU_SOURCE, which would change fd_set for this module alone
// and clash with Dispatch's view of it; declare just the three the part files need.
extern int syncfs(int fd);
extern int sync_file_range(int fd, long long offset, long long nbytes, unsigned int flags);
extern int renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

// curl_easy_setopt / curl_easy_getinfo are variadic, which Swift cannot call.
// One wrapper per argument type; `long` and `curl_off_t` stay apart on purpose.
static inline CURLcode tdl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tdl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tdl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tdl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode tdl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }

typedef size_t (*tdl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode tdl_setopt_data_callback(CURL *h, CURLoption o, tdl_data_callback cb) { return curl_easy_setopt(h, o, cb); }

static inline CURLcode tdl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tdl_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tdl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode tdl_getinfo_pointer(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }

static inline CURLMcode tdl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

// CURL_WRITEFUNC_PAUSE and friends are macros.
static inline size_t tdl_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
// How every handle may authenticate: to servers with Basic or Digest, to a SOCKS5 proxy with a
// user name and password, never GSS-API (not linked in: absent-backends.c).
static inline void tdl_set_auth_methods(CURL *h) {
    curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)(CURLAUTH_BASIC | CURLAUTH_DIGEST));
    curl_easy_setopt(h, CURLOPT_SOCKS5_AUTH, (long)CURLAUTH_BASIC);
}

// Start writeback of a file's dirty pages without waiting for it.
static inline int tdl_start_writeback(int fd) { return sync_file_range(fd, 0, 0, 2 /* SYNC_FILE_RANGE_WRITE */); }
// Flush the whole file system that holds fd (what `sync -f` does).
static inline int tdl_syncfs(int fd) { return syncfs(fd); }
// Rename that fails with EEXIST instead of replacing an existing target (RENAME_NOREPLACE).
static inline int tdl_rename_noreplace(const char *from, const char *to) {
    return renameat2(-100 /* AT_FDCWD */, from, -100, to, 1 /* RENAME_NOREPLACE */);
}
#endif
