// libcurl opened with dlopen instead of linked. Loading it and the 30-odd libraries it needs
// (and running their constructors) was most of tdl's start, about 8 ms, paid by every command
// even when it never transfers. A command that transfers starts the load on a thread of its
// own before main, beside the runtime's start and the session file's opening; the others
// never load it.
//
// Each curl_* function tdl calls, and each one Foundation's URLSession code refers to (linked
// in with FlyingFox, never called), is defined here: it waits for the load and calls the
// library's. So nothing in the link needs libcurl.so and `--as-needed` leaves it out. These
// definitions are hidden: libcurl's calls to its own functions never land here.
#define _GNU_SOURCE  // sched_getcpu, pthread_attr_setaffinity_np (this file only; see CCurl.h)
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <malloc.h>
#pragma GCC visibility push(hidden)
#include <curl/curl.h>
#pragma GCC visibility pop
#include "CCurl.h"

#define FUNCTIONS(X) \
    X(global_init) X(version) X(version_info) X(free) X(easy_strerror) X(easy_init) X(easy_cleanup) \
    X(easy_perform) X(easy_pause) X(easy_setopt) X(easy_getinfo) X(multi_init) X(multi_cleanup) \
    X(multi_add_handle) X(multi_remove_handle) X(multi_perform) X(multi_poll) X(multi_wakeup) \
    X(multi_info_read) X(multi_setopt) X(multi_assign) X(multi_socket_action) X(slist_append) \
    X(slist_free_all) X(url) X(url_get) X(url_set)

// The library's own functions, each of the type curl.h gives it.
static struct {
#define FIELD(name) __typeof__(curl_##name) *name;
    FUNCTIONS(FIELD)
#undef FIELD
} lib;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char library[PATH_MAX];
static char failure[PATH_MAX + 256];

// Called before the loading thread starts, or by the load itself.
static void choose_library(void) {
    if (library[0]) return;
    const char *chosen = getenv("TDL_LIBCURL");
    snprintf(library, sizeof library, "%s", chosen && *chosen ? chosen : "libcurl.so.4");
}

static void load(void) {
    choose_library();
    // Not RTLD_DEEPBIND (about 0.5 ms faster): with an allocator preloaded (LD_PRELOAD,
    // /etc/ld.so.preload), libcurl would free with glibc's `free` what libc's `strdup` took
    // from the preloaded `malloc`, and abort. RTLD_LAZY: the libraries not linked to bind at
    // once (Kerberos, GMP, librtmp, zlib…) bind each function at its first call, about 1,800
    // lookups fewer and 0.3 ms off a load that a one-file `get` waits for. A function missing
    // from a broken install then ends tdl at its first call instead of failing the load
    // (LD_BIND_NOW=1 binds them all here again).
    void *handle = dlopen(library, RTLD_LAZY | RTLD_LOCAL);
    if (!handle) {
        snprintf(failure, sizeof failure, "cannot load libcurl, which tdl needs to download (%s)", dlerror());
        return;
    }
#define RESOLVE(name) \
    if (!(*(void **)&lib.name = dlsym(handle, "curl_" #name))) { \
        snprintf(failure, sizeof failure, "cannot use %s: it has no curl_" #name " (tdl needs libcurl 7.68 or later)", library); \
        return; \
    }
    FUNCTIONS(RESOLVE)
#undef RESOLVE
    // libcurl's global set-up (OpenSSL's) is left to the engine, on the main thread at its
    // first transfer: OpenSSL registers its clean-up with atexit as it starts, and a command
    // that exits early (a bad config line) would run that clean-up while this thread still
    // sets up, on locks the clean-up frees.
}

// A command that exits at once (a bad config line) must not exit beside the load: exit
// flushes and frees the streams' buffers while the libraries' constructors may be reading
// their config files with stdio, and one run in about 300 aborted with a double free.
// Registered before the thread starts, this handler runs after any registered later and
// before exit turns to stdio and to the libraries' destructors; it waits for the load.
static void finish_loading_before_exit(void) {
    pthread_once(&once, load);
}

// The Swift runtime's own path, which its crash reporter's static initializer asks for. With
// the runtime linked in statically (the release build) that initializer runs after this
// file's; with a shared runtime it ran before, and the call below only reads the answer.
// Weak: a runtime without it is left as it is.
extern const char *swift_getRootPath(void) __attribute__((weak));

// The kernel tends to start a new thread on its creator's CPU, even with another one idle; the
// load then ran only when main was preempted. So the loading thread starts on any CPU the
// process may use but main's, and once running may go anywhere again (a widened set does not
// move a running thread), in case that CPU gets busy.
static cpu_set_t process_cpus;
static int process_cpus_known;

static int keep_off_this_cpu(pthread_attr_t *attributes) {
    int here = sched_getcpu();
    if (here < 0 || sched_getaffinity(0, sizeof process_cpus, &process_cpus) != 0) return 0;
    if (!CPU_ISSET(here, &process_cpus) || CPU_COUNT(&process_cpus) < 2) return 0;
    cpu_set_t others = process_cpus;
    CPU_CLR(here, &others);
    if (pthread_attr_setaffinity_np(attributes, sizeof others, &others) != 0) return 0;
    process_cpus_known = 1;
    return 1;
}

static void *load_in_background(void *unused) {
    (void)unused;
    if (process_cpus_known) pthread_setaffinity_np(pthread_self(), sizeof process_cpus, &process_cpus);
    pthread_once(&once, load);
    return NULL;
}

// Two threads of one process on two CPUs: each write to a page mapped read-only (a `.bss` page
// that is still the shared zero page) makes the kernel flush the other CPU's TLB by interrupt,
// slow on a virtual machine and paid by both threads. The runtime's metadata caches are in
// `.bss`: faulted in writable while main is the only thread, main's first writes to them cost
// the load nothing. Kernels before 5.14 refuse the advice; the pages then fault in as before.
extern char __bss_start[], _end[];
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void fault_in_bss(void) {
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)__bss_start + page - 1) & ~(page - 1), end = ((uintptr_t)_end + page - 1) & ~(page - 1);
    if (end > first) (void)madvise((void *)first, end - first, MADV_POPULATE_WRITE);
}

static void start_loading(void) {
    choose_library();
    fault_in_bss();
    // The runtime finds its own path with dladdr, which waits for a dlopen under way on
    // another thread: asked after the load had begun, main stood still until libcurl had
    // loaded. Asked now, the runtime keeps the answer.
    if (swift_getRootPath) (void)swift_getRootPath();
    pthread_attr_t attributes;
    pthread_t thread;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    atexit(finish_loading_before_exit);
    int placed = keep_off_this_cpu(&attributes);
    // If no thread can start, the first call loads it instead.
    if (pthread_create(&thread, &attributes, load_in_background, NULL) != 0 && placed) {
        // Refused off main's CPU: on any of the process's, as an unplaced thread.
        process_cpus_known = 0;
        if (pthread_attr_setaffinity_np(&attributes, sizeof process_cpus, &process_cpus) == 0)
            pthread_create(&thread, &attributes, load_in_background, NULL);
    }
    pthread_attr_destroy(&attributes);
}

// The commands that transfer (the list, `get`, `serve`; see TDLCommand), not their help.
static int transfers(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--version")) return 0;
    }
    if (argc < 2) return 1;
    const char *first = argv[1];
    return first[0] == '-' || !strcmp(first, "get") || !strcmp(first, "ui") || !strcmp(first, "serve");
}

// Before main, about 4 ms sooner than main could: the runtime's own start runs beside the load.
// glibc passes constructors the program's arguments.
__attribute__((constructor)) static void start_loading_for_transfers(int argc, char **argv) {
    if (argv && transfers(argc, argv)) start_loading();
}

const char *tdl_curl_load_failure(void) {
    // With a load under way, pthread_once waits for it instead of starting another.
    pthread_once(&once, load);
    return failure[0] ? failure : NULL;
}

// tdl checks `tdl_curl_load_failure` before its first transfer; this is the last resort.
static void need_library(void) {
    if (tdl_curl_load_failure()) {
        fprintf(stderr, "tdl: %s\n", failure);
        exit(TDL_NO_LIBCURL);
    }
}

CURLcode curl_global_init(long flags) { need_library(); return lib.global_init(flags); }
char *curl_version(void) { need_library(); return lib.version(); }
curl_version_info_data *curl_version_info(CURLversion stamp) { need_library(); return lib.version_info(stamp); }
void curl_free(void *p) { need_library(); lib.free(p); }
const char *curl_easy_strerror(CURLcode code) { need_library(); return lib.easy_strerror(code); }
CURL *curl_easy_init(void) { need_library(); return lib.easy_init(); }
void curl_easy_cleanup(CURL *h) { need_library(); lib.easy_cleanup(h); }
CURLcode curl_easy_perform(CURL *h) { need_library(); return lib.easy_perform(h); }
CURLcode curl_easy_pause(CURL *h, int bitmask) { need_library(); return lib.easy_pause(h, bitmask); }
CURLM *curl_multi_init(void) { need_library(); return lib.multi_init(); }
CURLMcode curl_multi_cleanup(CURLM *m) { need_library(); return lib.multi_cleanup(m); }
CURLMcode curl_multi_add_handle(CURLM *m, CURL *h) { need_library(); return lib.multi_add_handle(m, h); }
CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h) { need_library(); return lib.multi_remove_handle(m, h); }
CURLMcode curl_multi_perform(CURLM *m, int *running) { need_library(); return lib.multi_perform(m, running); }
CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd fds[], unsigned int count, int timeoutMs, int *ready) {
    need_library();
    return lib.multi_poll(m, fds, count, timeoutMs, ready);
}
CURLMcode curl_multi_wakeup(CURLM *m) { need_library(); return lib.multi_wakeup(m); }
CURLMsg *curl_multi_info_read(CURLM *m, int *remaining) { need_library(); return lib.multi_info_read(m, remaining); }
CURLMcode curl_multi_assign(CURLM *m, curl_socket_t s, void *p) { need_library(); return lib.multi_assign(m, s, p); }
CURLMcode curl_multi_socket_action(CURLM *m, curl_socket_t s, int events, int *running) {
    need_library();
    return lib.multi_socket_action(m, s, events, running);
}
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) { need_library(); return lib.slist_append(list, text); }
void curl_slist_free_all(struct curl_slist *list) { need_library(); lib.slist_free_all(list); }
CURLU *curl_url(void) { need_library(); return lib.url(); }
CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags) { need_library(); return lib.url_get(u, what, part, flags); }
CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags) { need_library(); return lib.url_set(u, what, part, flags); }

// The variadic three pass their one argument on with the type the option's number gives it,
// as libcurl itself reads it: a long, a pointer (data, string, list, callback) or a curl_off_t.
CURLcode curl_easy_setopt(CURL *h, CURLoption option, ...) {
    need_library();
    va_list arguments;
    va_start(arguments, option);
    CURLcode result;
    if (option < CURLOPTTYPE_OBJECTPOINT) result = lib.easy_setopt(h, option, va_arg(arguments, long));
    else if (option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB) result = lib.easy_setopt(h, option, va_arg(arguments, curl_off_t));
    else result = lib.easy_setopt(h, option, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}

CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...) {
    need_library();
    va_list arguments;
    va_start(arguments, info);
    CURLcode result = lib.easy_getinfo(h, info, va_arg(arguments, void *));  // always where to put it
    va_end(arguments);
    return result;
}

CURLMcode curl_multi_setopt(CURLM *m, CURLMoption option, ...) {
    need_library();
    va_list arguments;
    va_start(arguments, option);
    CURLMcode result;
    if (option < CURLOPTTYPE_OBJECTPOINT) result = lib.multi_setopt(m, option, va_arg(arguments, long));
    else if (option >= CURLOPTTYPE_OFF_T) result = lib.multi_setopt(m, option, va_arg(arguments, curl_off_t));
    else result = lib.multi_setopt(m, option, va_arg(arguments, void *));
    va_end(arguments);
    return result;
}
