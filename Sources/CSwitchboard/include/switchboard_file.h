/*
 * Private: never installed. The one check every file Switchboard reads goes
 * through — a plugin (plugins.c), a Lua source file (discovery on sb.path,
 * the runner's scripts and targets, require, loadfile and dofile in the
 * sandbox) and a file a scenario opens with io.open.
 *
 * The file is opened without blocking (a FIFO with no writer would block
 * open() for ever), then checked by its descriptor, so a name that is a
 * symbolic link, /dev/fd/N or /proc/self/... is judged by what it opens:
 * only a regular file on an ordinary file system passes. procfs, sysfs and
 * their kin are refused: their files look regular but their content is the
 * process's or the kernel's (memory maps, addresses), and reading some of
 * them has effects. The descriptor is handed back in blocking mode, for
 * reading; the caller reads the checked file through it, never by its name
 * again, so it cannot be swapped for another between the check and the read.
 *
 * static inline, so that the library, the Lua module (which calls nothing
 * of the library but switchboard.h's functions and switchboard_sys.h's) and
 * the runner share one copy of the code without an exported symbol.
 */
#ifndef SWITCHBOARD_FILE_H
#define SWITCHBOARD_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/vfs.h>
#endif

/* sb__file_open's results besides a descriptor. */
#define SB_FILE_CANNOT_OPEN (-1) /* open() failed: errno says why (ENOENT: no such file) */
#define SB_FILE_REFUSED (-2)     /* it opened, but is not a file Switchboard reads */

#if defined(__linux__)
/* Whether `fd` lives on a file system whose files are the kernel's view of
 * processes and devices rather than stored data. */
static inline int sb__file_on_special_fs(int fd) {
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0) return 1;
    switch ((unsigned long)fs.f_type) {
    case 0x9fa0UL:     /* proc */
    case 0x62656572UL: /* sysfs */
    case 0x64626720UL: /* debugfs */
    case 0x74726163UL: /* tracefs */
    case 0x73636673UL: /* securityfs */
    case 0x62656570UL: /* configfs */
    case 0x27e0ebUL:   /* cgroup */
    case 0x63677270UL: /* cgroup2 */
    case 0xcafe4a11UL: /* bpf */
    case 0xde5e81e4UL: /* efivarfs */
    case 0x6165676cUL: /* pstore */
    case 0x1373UL:     /* devfs */
        return 1;
    default:
        return 0;
    }
}
#endif

/* Opens `path` for reading if it is a regular file on an ordinary file
 * system. Returns the descriptor (O_CLOEXEC, blocking), or
 * SB_FILE_CANNOT_OPEN (errno set) or SB_FILE_REFUSED, with the reason in
 * `why` (NUL-terminated, at most `size` bytes; never the file's content). */
static inline int sb__file_open(const char *path, char *why, size_t size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int error = errno;
        snprintf(why, size, "%s", strerror(error));
        errno = error;
        return SB_FILE_CANNOT_OPEN;
    }
    struct stat st;
    const char *problem = NULL;
    if (fstat(fd, &st) != 0) {
        problem = "cannot stat the file";
    } else if (S_ISDIR(st.st_mode)) {
        problem = "a directory, not a regular file";
    } else if (!S_ISREG(st.st_mode)) {
        problem = "not a regular file (a FIFO, a socket or a device)";
    }
#if defined(__linux__)
    else if (sb__file_on_special_fs(fd)) {
        problem = "not a regular file on an ordinary file system (procfs, sysfs or the like)";
    }
#endif
    if (problem == NULL) {
        int flags = fcntl(fd, F_GETFL);
        if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) problem = "cannot read the file";
    }
    if (problem != NULL) {
        close(fd);
        snprintf(why, size, "%s", problem);
        return SB_FILE_REFUSED;
    }
    return fd;
}

#endif
