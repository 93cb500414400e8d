#include "policy/warn_signal.hpp"

#include <strings.h>
#include <cctype>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "messages/errc.hpp"

namespace shoal::policy {

namespace {

bool blank(const char* p) {
  for (; *p != '\0'; ++p)
    if (!std::isspace(static_cast<unsigned char>(*p))) return false;
  return true;
}

shoal::error invalid_signal() {
  return shoal::error(errc::invalid_request, "Invalid --signal specification");
}

}  // namespace

int32_t signal_number(const std::string& name) {
  // Slurm's signals_mapping, in its order.
  static const struct {
    const char* name;
    int32_t value;
  } mapping[] = {{"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT}, {"ABRT", SIGABRT},
                 {"KILL", SIGKILL}, {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"USR1", SIGUSR1},
                 {"USR2", SIGUSR2}, {"URG", SIGURG},   {"CONT", SIGCONT}, {"STOP", SIGSTOP},
                 {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU}, {"XCPU", SIGXCPU}};
  const char* text = name.c_str();
  char* end = nullptr;
  long number = std::strtol(text, &end, 10);
  if (end != text) return blank(end) && number > INT32_MIN && number < INT32_MAX ? number : 0;
  while (std::isspace(static_cast<unsigned char>(*text))) ++text;
  if (::strncasecmp(text, "SIG", 3) == 0) text += 3;
  for (auto& m : mapping) {
    auto len = std::strlen(m.name);
    if (::strncasecmp(text, m.name, len) == 0 && blank(text + len)) return m.value;
  }
  return 0;
}

shoal::expected<warn_signal> parse_warn_signal(const std::string& text, bool batch) {
  warn_signal out;
  size_t at = 0;
  auto take = [&](char letter) {
    if (at < text.size() && std::toupper(static_cast<unsigned char>(text[at])) == letter) {
      ++at;
      return true;
    }
    return false;
  };
  // As get_signal_opts: a leading letter is taken as a flag even without the colon after it
  // (so "RTMIN" would be R + "TMIN"), and "B" only by sbatch.
  if (take('R')) out.reservation = true;
  if (batch) {
    if (take('B')) out.batch_only = true;
    if (take('R')) out.reservation = true;
  }
  if (at < text.size() && text[at] == ':') ++at;
  auto rest = text.substr(at);
  auto sign = rest.find('@');
  auto number = signal_number(rest.substr(0, sign));
  if (number < 1 || number > 0xffff) return invalid_signal();
  out.signo = number;
  if (sign == std::string::npos) return out;
  auto time = rest.substr(sign + 1);
  char* end = nullptr;
  long seconds = std::strtol(time.c_str(), &end, 10);
  // Slurm takes an empty TIME as 0 (strtol of ""), and nothing may follow the number.
  if (seconds < 0 || seconds > 0xffff || *end != '\0') return invalid_signal();
  out.time_s = static_cast<uint32_t>(seconds);
  return out;
}

}  // namespace shoal::policy
