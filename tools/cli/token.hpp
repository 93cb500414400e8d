#pragma once

#include <string>
#include <vector>

namespace shoal::cli {

/// `shoal control token [lifespan=SECONDS] [username=USER]` (scontrol token): prints
/// `SLURM_JWT=TOKEN`, an auth/jwt token for shoalrestd's X-SLURM-USER-TOKEN header. `words` are
/// the ones after `token`.
int make_token(const std::string& conf, const std::vector<std::string>& words);

}  // namespace shoal::cli
