#ifndef CSPAWN_SHIM_H
#define CSPAWN_SHIM_H

#include <spawn.h>

/// glibc's GNU extensions to posix_spawn, which Swift does not see without _GNU_SOURCE.

/// Closes every descriptor from `from` on in the child (posix_spawn_file_actions_addclosefrom_np).
int cspawn_actions_close_from(posix_spawn_file_actions_t *actions, int from);
/// Changes the child's working directory (posix_spawn_file_actions_addchdir_np).
int cspawn_actions_chdir(posix_spawn_file_actions_t *actions, const char *path);
/// A pipe whose two ends are closed on exec (pipe2 with O_CLOEXEC).
int cspawn_pipe_cloexec(int fds[2]);

#endif
