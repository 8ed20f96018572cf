#define _GNU_SOURCE
#include "CSpawnShim.h"

#include <fcntl.h>
#include <unistd.h>

int cspawn_actions_close_from(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int cspawn_actions_chdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cspawn_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
