#include "interconnect/switch_node.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "interconnect/elan.hpp"
#include "messages/types.hpp"

namespace shoal::interconnect {

namespace {

class elan_node_agent final : public switch_node_agent {
 public:
  std::string name() const override { return "elan"; }

  bool owns(const std::vector<uint8_t>& data) const override {
    return data.size() >= elan_magic.size() &&
           std::memcmp(data.data(), elan_magic.data(), elan_magic.size()) == 0;
  }

  shoal::expected<switch_settings> apply(const node_step& step,
                                         const std::vector<uint8_t>& data) override {
    auto elan = decode_elan_data(data);
    if (!elan) return std::move(elan).error();
    if (step.node_index >= elan->node_ids.size())
      return shoal::error(errc::malformed_message,
                          "switch/elan data names " + std::to_string(elan->node_ids.size()) +
                              " nodes, this is node " + std::to_string(step.node_index));
    // No Elan adapter to program here (Quadrics' rms_prgcreate and rms_setcap are long gone):
    // the tasks get their program description and capabilities, which is what an MPI over
    // libelan reads.
    switch_settings out;
    out.emplace_back("SHOAL_ELAN_PROGRAM", std::to_string(elan->program));
    out.emplace_back("SHOAL_ELAN_NODE_ID", std::to_string(elan->node_ids[step.node_index]));
    std::string ids;
    for (auto id : elan->node_ids) ids += (ids.empty() ? "" : ",") + std::to_string(id);
    out.emplace_back("SHOAL_ELAN_NODE_IDS", ids);
    out.emplace_back("SHOAL_ELAN_RAILS", std::to_string(elan->capabilities.size()));
    for (auto& cap : elan->capabilities)
      out.emplace_back("SHOAL_ELAN_CAP" + std::to_string(cap.rail),
                       key_hex(cap.key) + ":" + std::to_string(cap.low_id) + "-" +
                           std::to_string(cap.high_id) + ":" + std::to_string(cap.low_context) +
                           "-" + std::to_string(cap.high_context));
    return out;
  }

  void release(const node_step&, const std::vector<uint8_t>&) override {}
};

/// Every node half this build has; a new plugin adds its own here.
std::unique_ptr<switch_node_agent> agent_for(const std::vector<uint8_t>& data) {
  std::unique_ptr<switch_node_agent> agents[] = {make_elan_node_agent()};
  for (auto& agent : agents)
    if (agent->owns(data)) return std::move(agent);
  return nullptr;
}

shoal::error system_error(const std::string& what, int err) {
  return shoal::error(errc::system_error, what + ": " + std::strerror(err));
}

/// Writes `text` to `path` as a new file readable by `uid` alone: first to a temporary name,
/// created exclusively (nothing planted there is followed or reused), then renamed over.
shoal::error write_private_file(const std::string& path, const std::string& text, uint32_t uid,
                                uint32_t gid) {
  auto tmp = path + ".new";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);
  if (fd < 0) return system_error("open(" + tmp + ")", errno);
  auto fail = [&](const std::string& call, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return system_error(call + "(" + tmp + ")", err);
  };
  if (::geteuid() == 0 && ::fchown(fd, uid, gid) != 0) return fail("fchown", errno);
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    auto n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write", errno);
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return system_error("close(" + tmp + ")", err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return system_error("rename(" + tmp + ")", err);
  }
  return {};
}

}  // namespace

std::unique_ptr<switch_node_agent> make_elan_node_agent() {
  return std::make_unique<elan_node_agent>();
}

std::string switch_dir(const std::string& spool_dir) {
  auto dir = spool_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir + ".switch";
}

std::string switch_file_path(const node_step& step) {
  return step.dir + "/job" + std::to_string(step.job_id) + ".step" + msg::step_label(step.step_id);
}

shoal::expected<node_grant> apply_switch_data(const node_step& step,
                                              const std::vector<uint8_t>& data) {
  node_grant grant;
  if (data.empty()) return grant;
  auto agent = agent_for(data);
  if (!agent)
    return shoal::error(errc::malformed_message,
                        "the step's switch data belongs to no interconnect plugin of this build");
  auto settings = agent->apply(step, data);
  if (!settings) return std::move(settings).error();
  if (::mkdir(step.dir.c_str(), 0711) != 0 && errno != EEXIST)
    return system_error("mkdir(" + step.dir + ")", errno);
  // The job's user opens the file by name but cannot list the directory.
  if (::chmod(step.dir.c_str(), 0711) != 0) return system_error("chmod(" + step.dir + ")", errno);
  grant.file = switch_file_path(step);
  std::string text = "SHOAL_SWITCH_TYPE=" + agent->name() + "\n";
  for (auto& [name, value] : *settings) text += name + "=" + value + "\n";
  if (auto err = write_private_file(grant.file, text, step.uid, step.gid)) {
    agent->release(step, data);
    return err;
  }
  grant.env.emplace_back("SHOAL_SWITCH_TYPE", agent->name());
  grant.env.emplace_back("SHOAL_SWITCH_FILE", grant.file);
  for (auto& setting : *settings) grant.env.push_back(std::move(setting));
  return grant;
}

void release_switch_data(const node_step& step, const std::vector<uint8_t>& data) {
  if (data.empty()) return;
  if (auto agent = agent_for(data)) agent->release(step, data);
  ::unlink(switch_file_path(step).c_str());
}

}  // namespace shoal::interconnect
