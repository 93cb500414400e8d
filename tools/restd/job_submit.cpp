#include "tools/restd/job_submit.hpp"

#include <CLI/CLI.hpp>

#include "tools/cli/batch_script.hpp"
#include "tools/cli/job_options.hpp"

namespace shoal::restd {

namespace {

using nlohmann::json;

/// How a field's JSON value becomes its option's value.
enum class kind {
  text,     ///< a string
  count,    ///< a whole number, or v0.0.41's {"set":true,"number":N}
  minutes,  ///< a count of minutes; {"infinite":true} is UNLIMITED
  flag,     ///< a boolean: true gives the option, false nothing
  list,     ///< an array of strings (or one string), joined with commas
};

struct field {
  const char* name;    ///< v0.0.41's name
  const char* option;  ///< sbatch's long option
  kind how;
};

// clang-format off
constexpr field fields[] = {
  {"name",                      "--job-name",        kind::text},
  {"partition",                 "--partition",       kind::text},
  {"account",                   "--account",         kind::text},
  {"qos",                       "--qos",             kind::text},
  {"comment",                   "--comment",         kind::text},
  {"reservation",               "--reservation",     kind::text},
  {"dependency",                "--dependency",      kind::text},
  {"array",                     "--array",           kind::text},
  {"constraints",               "--constraint",      kind::text},
  {"licenses",                  "--licenses",        kind::text},
  {"mail_user",                 "--mail-user",       kind::text},
  {"standard_output",           "--output",          kind::text},
  {"standard_error",            "--error",           kind::text},
  {"current_working_directory", "--chdir",           kind::text},
  {"nodes",                     "--nodes",           kind::text},
  {"required_nodes",            "--nodelist",        kind::list},
  {"excluded_nodes",            "--exclude",         kind::list},
  {"mail_type",                 "--mail-type",       kind::list},
  {"tasks",                     "--ntasks",          kind::count},
  {"minimum_nodes",             "--nodes",           kind::count},
  {"cpus_per_task",             "--cpus-per-task",   kind::count},
  {"tasks_per_node",            "--ntasks-per-node", kind::count},
  {"memory_per_node",           "--mem",             kind::count},
  {"memory_per_cpu",            "--mem-per-cpu",     kind::count},
  {"nice",                      "--nice",            kind::count},
  {"priority",                  "--priority",        kind::count},
  {"time_limit",                "--time",            kind::minutes},
  {"hold",                      "--hold",            kind::flag},
  {"exclusive",                 "--exclusive",       kind::flag},
};
// clang-format on

shoal::error bad_field(const std::string& name, const std::string& what) {
  return shoal::error(errc::invalid_request, "field job." + name + ": " + what);
}

/// `value` as a whole number, from a number or from v0.0.41's {"set","infinite","number"}.
/// `infinite` is set for {"infinite":true}.
shoal::expected<int64_t> whole_number(const std::string& name, const json& value, bool& infinite) {
  infinite = false;
  if (value.is_number_integer()) return value.get<int64_t>();
  if (value.is_object()) {
    if (value.value("infinite", false)) {
      infinite = true;
      return 0;
    }
    auto n = value.find("number");
    if (n != value.end() && n->is_number_integer()) return n->get<int64_t>();
  }
  return bad_field(name, "expected a whole number or {\"set\":true,\"number\":N}");
}

/// The option words field `f` with `value` stands for (none for a false flag).
shoal::error add_words(const field& f, const json& value, std::vector<std::string>& words) {
  std::string option = f.option;
  switch (f.how) {
    case kind::text:
      if (value.is_number_integer()) {
        words.push_back(option + "=" + std::to_string(value.get<int64_t>()));
        return {};
      }
      if (!value.is_string()) return bad_field(f.name, "expected a string");
      words.push_back(option + "=" + value.get<std::string>());
      return {};
    case kind::list: {
      std::string joined;
      if (value.is_string()) {
        joined = value.get<std::string>();
      } else if (value.is_array()) {
        for (const auto& item : value) {
          if (!item.is_string()) return bad_field(f.name, "expected a list of strings");
          joined += (joined.empty() ? "" : ",") + item.get<std::string>();
        }
      } else {
        return bad_field(f.name, "expected a list of strings");
      }
      if (!joined.empty()) words.push_back(option + "=" + joined);
      return {};
    }
    case kind::count:
    case kind::minutes: {
      bool infinite = false;
      auto n = whole_number(f.name, value, infinite);
      if (!n) return std::move(n.error());
      if (infinite && f.how == kind::minutes) {
        words.push_back(option + "=UNLIMITED");
        return {};
      }
      if (infinite) return bad_field(f.name, "cannot be infinite");
      words.push_back(option + "=" + std::to_string(*n));
      return {};
    }
    case kind::flag:
      if (!value.is_boolean()) return bad_field(f.name, "expected true or false");
      if (value.get<bool>()) words.push_back(option);
      return {};
  }
  return {};
}

const field* find_field(const std::string& name) {
  for (const auto& f : fields)
    if (name == f.name) return &f;
  return nullptr;
}

/// The script and its arguments, from the job or beside it.
shoal::error take_script(const json& body, const json& job, std::string& script,
                         std::vector<std::string>& argv) {
  const json* text = nullptr;
  if (auto it = job.find("script"); it != job.end()) text = &*it;
  if (auto it = body.find("script"); it != body.end()) text = &*it;
  if (text == nullptr) return shoal::error(errc::invalid_request, "field script: missing");
  if (!text->is_string())
    return shoal::error(errc::invalid_request, "field script: expected a string");
  script = text->get<std::string>();
  auto faults = cli::script_faults(script);
  if (!faults.empty()) {
    std::string joined;
    for (const auto& line : faults) joined += (joined.empty() ? "" : " ") + line;
    return shoal::error(errc::invalid_request, "field script: " + joined);
  }
  if (auto it = job.find("argv"); it != job.end()) {
    if (!it->is_array()) return bad_field("argv", "expected a list of strings");
    for (const auto& arg : *it) {
      if (!arg.is_string()) return bad_field("argv", "expected a list of strings");
      argv.push_back(arg.get<std::string>());
    }
  }
  return {};
}

/// What a field of kind `how` takes, as OpenAPI says it.
json schema_of(kind how) {
  const json number_struct = {{"$ref", "#/components/schemas/v0.0.41_uint64_no_val_struct"}};
  switch (how) {
    case kind::text:
      return {{"type", "string"}};
    case kind::list: {
      json one_or_many = json::array();
      one_or_many.push_back({{"type", "string"}});
      one_or_many.push_back({{"type", "array"}, {"items", {{"type", "string"}}}});
      return {{"oneOf", one_or_many}};
    }
    case kind::count:
    case kind::minutes: {
      json number_or_struct = json::array();
      number_or_struct.push_back({{"type", "integer"}});
      number_or_struct.push_back(number_struct);
      return {{"oneOf", number_or_struct}};
    }
    case kind::flag:
      return {{"type", "boolean"}};
  }
  return json::object();
}

}  // namespace

json job_submit_schema() {
  json props = json::object();
  for (const auto& f : fields) {
    auto schema = schema_of(f.how);
    schema["description"] = std::string("as sbatch ") + f.option;
    props[f.name] = std::move(schema);
  }
  props["script"] = {{"type", "string"}, {"description", "the batch script, starting with #!"}};
  props["argv"] = {{"type", "array"},
                   {"items", {{"type", "string"}}},
                   {"description", "the script's arguments"}};
  props["environment"] = {{"type", "array"},
                          {"items", {{"type", "string"}}},
                          {"description", "the job's whole environment, NAME=VALUE each"}};
  json job = {{"type", "object"}, {"properties", props}};
  return {{"type", "object"},
          {"required", json::array({"job"})},
          {"properties",
           {{"job", job},
            {"script", {{"type", "string"}, {"description", "the script, when not in job"}}}}}};
}

shoal::expected<msg::job_request> job_from_json(const json& body, const std::string& home,
                                                std::vector<std::string>& warnings) {
  if (!body.is_object())
    return shoal::error(errc::invalid_request, "the body is not a JSON object");
  auto job_it = body.find("job");
  if (job_it == body.end() || !job_it->is_object())
    return shoal::error(errc::invalid_request, "field job: missing or not an object");
  const auto& job = *job_it;
  // The job's environment is the one the request gives, never shoalrestd's own.
  std::vector<std::string> words = {"--export=NONE"};
  std::vector<std::string> env;
  bool has_directory = false;
  for (auto it = job.begin(); it != job.end(); ++it) {
    const auto& name = it.key();
    if (name == "script" || name == "argv") continue;
    if (name == "environment") {
      if (!it->is_array()) return bad_field(name, "expected a list of NAME=VALUE strings");
      for (const auto& item : *it) {
        if (!item.is_string() || item.get<std::string>().find('=') == std::string::npos)
          return bad_field(name, "expected a list of NAME=VALUE strings");
        env.push_back(item.get<std::string>());
      }
      continue;
    }
    const auto* f = find_field(name);
    if (f == nullptr) {
      warnings.push_back("field job." + name + " is not read by shoal and was ignored");
      continue;
    }
    if (name == "current_working_directory") has_directory = true;
    if (auto err = add_words(*f, *it, words)) return err;
  }
  if (!has_directory) words.push_back("--chdir=" + home);
  std::string script;
  std::vector<std::string> argv;
  if (auto err = take_script(body, job, script, argv)) return err;

  CLI::App parser{"REST submission"};
  cli::job_options opts;
  cli::add_job_options(parser, opts, /*batch=*/true);
  try {
    std::vector<std::string> reversed(words.rbegin(), words.rend());
    parser.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return shoal::error(errc::invalid_request, std::string("bad job field: ") + e.what());
  }
  if (auto bad = cli::refused_count(opts)) return shoal::error(errc::invalid_request, bad->text);
  auto req = cli::build_request(opts, argv, /*batch=*/true);
  if (!req) return std::move(req.error());
  for (auto& note : cli::ignored_option_notes(opts)) warnings.push_back(note);
  req->env.insert(req->env.end(), env.begin(), env.end());
  req->script = std::move(script);
  if (req->stdout_path.empty())
    req->stdout_path = req->workload.array.empty() ? "slurm-%j.out" : "slurm-%A_%a.out";
  if (req->name.empty()) req->name = "sbatch";
  return req;
}

}  // namespace shoal::restd
