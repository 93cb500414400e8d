#pragma once

#include <string>
#include "messages/errc.hpp"

namespace shoal::runtime {

/// Creates a private directory (mode 0700) named PREFIX-XXXXXX in the system's temporary
/// directory ($TMPDIR, else /tmp) and returns its canonical path. The caller removes it.
/// Error: errc::system_error naming the failed call.
shoal::expected<std::string> make_temp_dir(const std::string& prefix);

}  // namespace shoal::runtime
