/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files and folders where someone else may write: a kernel tree, a build
 * folder, a scratch folder under /tmp. Nothing there is followed through a
 * symbolic link, and nothing is opened before its type is known: opening
 * a device can do something (a watchdog arms on open), and a FIFO blocks.
 */
#ifndef IPSECPERF_SAFEFILE_H
#define IPSECPERF_SAFEFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Open path as a regular file only, for reading or writing, made when
 * missing: file_open_regular_at() (files.h) looks at it with O_PATH and
 * O_NOFOLLOW and opens it through that descriptor only once fstat says it
 * is a regular file, so a symlink, a device, a FIFO or a socket is
 * refused unopened. A file opened for writing must have one name (a hard
 * link to another file is refused, before and after it is opened).
 * flags: the access mode with O_APPEND, O_TRUNC (done once the file is
 * held), O_CREAT (a missing file is made with mode and O_EXCL: a new
 * regular file); O_NOCTTY and O_CLOEXEC always. The descriptor, or -1
 * with errno: ELOOP a symlink, EPERM not a regular file of one name, or
 * open's own.
 */
int safe_open(const char *path, int flags, mode_t mode);

/* "a link, or not a plain file: refused" for safe_open's ELOOP and EPERM, else strerror(err). */
const char *safe_open_error(int err);

/*
 * Can no one but root (or this user) change the folder path: it and each
 * folder above it (followed to where it really is) owned by root or this
 * user, and none writable by group or others, but a folder above that is
 * sticky (/tmp: no one else can rename or remove what root has there)?
 * 0, or -1 with why ("/home/a is owned by uid 1000", "... can be written
 * by its group or others").
 */
int safe_dir_ours(const char *path, char *why, size_t len);

/*
 * Remove the folder path and everything in it, by descriptor: the folder
 * is opened without following a symlink and must be this user's and
 * writable by no one else (as mkdtemp makes it), so that nothing in it
 * can be swapped for a link while it is removed. 0 removed (or gone); 1
 * left, with why, as not ours (a link, another's folder); -1 with why.
 */
int safe_rm_tree(const char *path, char *why, size_t len);

/*
 * git in a work tree someone else may have set up: none of the tree's own
 * programs run, neither its hooks nor a core.fsmonitor program. As -c
 * arguments of a git's argv (git passes them on to the gits it starts)...
 */
#define SAFE_GIT_ARGV "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"
#define SAFE_GIT_ARGC 4

/*
 * ... and into this process's environment, for every git its children
 * start (make's scripts/setlocalversion): GIT_CONFIG_COUNT,
 * GIT_CONFIG_KEY_n, GIT_CONFIG_VALUE_n after what the environment holds.
 * safe_git_config_env adds one name=value the same way. 0 or -1.
 */
int safe_git_env(void);
int safe_git_config_env(const char *name, const char *value);

#endif
