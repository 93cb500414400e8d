#include "actors/job_mail.hpp"

#include <cstdio>

#include "actors/admin_program.hpp"

namespace shoal::actors {

namespace {

bool asked(const std::string& mail_type, const char* word) {
  size_t pos = 0;
  while (pos <= mail_type.size()) {
    auto end = mail_type.find(',', pos);
    if (end == std::string::npos) end = mail_type.size();
    if (mail_type.compare(pos, end - pos, word) == 0) return true;
    pos = end + 1;
  }
  return false;
}

/// Slurm's secs2time_str: HH:MM:SS, with D- in front from a day on.
std::string slurm_duration(int64_t seconds) {
  if (seconds < 0) return "INVALID";
  char buf[64];
  auto days = seconds / 86400;
  auto h = seconds / 3600 % 24;
  auto m = seconds / 60 % 60;
  auto s = seconds % 60;
  if (days > 0)
    std::snprintf(buf, sizeof buf, "%lld-%2.2lld:%2.2lld:%2.2lld", static_cast<long long>(days),
                  static_cast<long long>(h), static_cast<long long>(m), static_cast<long long>(s));
  else
    std::snprintf(buf, sizeof buf, "%2.2lld:%2.2lld:%2.2lld", static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(s));
  return buf;
}

const char* verb_of(const std::string& event) {
  if (event == "BEGIN") return "Began";
  if (event == "END") return "Ended";
  if (event == "FAIL") return "Failed";
  if (event == "REQUEUE") return "Requeued";
  return "unknown";
}

}  // namespace

std::optional<std::string> mail_event(const std::string& mail_type, msg::job_state before,
                                      msg::job_state after) {
  using msg::job_state;
  if (mail_type.empty() || before == after) return std::nullopt;
  if (after == job_state::running && before != job_state::completing &&
      before != job_state::suspended) {  // a resume is no BEGIN
    if (asked(mail_type, "BEGIN")) return std::string{"BEGIN"};
    return std::nullopt;
  }
  if (after == job_state::pending) {
    if (before != job_state::pending && asked(mail_type, "REQUEUE")) return std::string{"REQUEUE"};
    return std::nullopt;
  }
  if (!msg::is_finished(after) || msg::is_finished(before)) return std::nullopt;
  bool clean = after == job_state::completed || after == job_state::cancelled;
  if (!clean && asked(mail_type, "FAIL")) return std::string{"FAIL"};
  if (asked(mail_type, "END")) return std::string{"END"};
  return std::nullopt;
}

mail_notice mail_for(const msg::job_info& j, const std::string& event,
                     const std::string& cluster_name, const std::string& prog, int64_t now) {
  mail_notice n;
  auto id = std::to_string(j.job_id);
  std::string timing;
  std::string ending;
  std::vector<std::string> env = {
      "SLURM_CLUSTER_NAME=" + cluster_name,
      "SLURM_JOB_ID=" + id,
      "SLURM_JOBID=" + id,
      "SLURM_JOB_NAME=" + j.name,
      "SLURM_JOB_USER=" + j.user,
      "SLURM_JOB_UID=" + std::to_string(j.uid),
      "SLURM_JOB_PARTITION=" + j.partition,
      "SLURM_JOB_ACCOUNT=" + j.account,
      "SLURM_JOB_NODELIST=" + j.nodelist,
      "SLURM_JOB_WORK_DIR=" + j.work_dir,
      std::string{"SLURM_JOB_STATE="} + msg::to_string(j.state),
      std::string{"SLURM_JOB_MAIL_TYPE="} + verb_of(event),
  };
  if (event == "BEGIN" && j.start_time != 0 && j.submit_time != 0) {
    auto queued = slurm_duration(j.start_time - j.submit_time);
    timing = ", Queued time " + queued;
    env.push_back("SLURM_JOB_QUEUED_TIME=" + queued);
  } else if (event != "BEGIN" && j.start_time != 0) {
    auto end = j.end_time != 0 ? j.end_time : now;
    auto ran = slurm_duration(end - j.start_time);
    timing = ", Run time " + ran;
    env.push_back("SLURM_JOB_RUN_TIME=" + ran);
  }
  if (event == "END" || event == "FAIL") {
    ending =
        std::string{", "} + msg::to_string(j.state) + ", ExitCode " + std::to_string(j.exit_code);
    env.push_back("SLURM_JOB_EXIT_CODE_MAX=" + std::to_string(j.exit_code));
  }
  std::string subject;
  if (j.array_job_id != 0 && j.array_task_id >= 0)
    subject = "Slurm Array Task Job_id=" + std::to_string(j.array_job_id) + "_" +
              std::to_string(j.array_task_id) + " (" + id + ") Name=" + j.name + " " +
              verb_of(event) + timing + ending;
  else
    subject = "Slurm Job_id=" + id + " Name=" + j.name + " " + verb_of(event) + timing + ending;
  n.argv = {prog, "-s", subject, j.mail_user.empty() ? j.user : j.mail_user};
  n.env = std::move(env);
  return n;
}

void send_mail(caf::actor_system& sys, mail_notice notice) {
  admin_program p;
  p.label = "MailProg";
  p.argv = std::move(notice.argv);
  p.env = std::move(notice.env);
  run_admin_program(sys, std::move(p));
}

}  // namespace shoal::actors
