#pragma once

// Handing a descriptor to another process over a unix socket (SCM_RIGHTS): how shoald gives the
// step-daemon zygote a spare's socket, and how the zygote gives it to a step daemon it forked.

namespace shoal::process {

/// Sends `fd` (with one byte) over the unix socket `to`; false when the peer is gone.
bool send_fd(int to, int fd);

/// Receives one descriptor (and its byte) from the unix socket `from`, close-on-exec: -1 at EOF or
/// on any error (the peer is gone, or sent no descriptor).
int receive_fd(int from);

}  // namespace shoal::process
