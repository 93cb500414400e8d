#include "tools/cli/token.hpp"

#include <cstdio>

#include <cstdint>
#include <cstdlib>

#include "config/config_syntax.hpp"
#include "messages/front_door.hpp"
#include "tools/cli/session.hpp"

namespace shoal::cli {

int make_token(const std::string& conf, const std::vector<std::string>& words) {
  auto req = to_request(msg::client_op::token);
  for (const auto& word : words) {
    auto eq = word.find('=');
    auto key = config::config_syntax::to_lower(word.substr(0, eq));
    auto value = eq == std::string::npos ? std::string{} : word.substr(eq + 1);
    if (key == "lifespan") {
      char* end = nullptr;
      auto seconds = std::strtoul(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || seconds == 0 || seconds > UINT32_MAX)
        return fail("control", "lifespan= takes a number of seconds, such as lifespan=3600",
                    exit_usage);
      req.lifespan = static_cast<uint32_t>(seconds);
    } else if (key == "username") {
      if (value.empty()) return fail("control", "username= needs a user name", exit_usage);
      req.text = value;
    } else {
      return fail("control", "unknown word '" + word + "' after token (lifespan=, username=)",
                  exit_usage);
    }
  }
  int code = 0;
  auto s = open_session("control", conf, code);
  if (!s) return code;
  auto reply = call(*s, req);
  if (!reply) return fail("control", describe(reply.error()));
  std::printf("SLURM_JWT=%s\n", reply->text.c_str());
  return 0;
}

}  // namespace shoal::cli
