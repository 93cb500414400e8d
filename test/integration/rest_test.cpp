// shoalrestd (issue 38): slurmrestd's v0.0.41 endpoints in front of a real controller, reached
// with real HTTP clients (curl and Python's urllib), authenticated with auth/jwt tokens the
// controller mints (`shoal control token`, as `scontrol token`) and refused with 401, 403 and
// 400 where slurmrestd refuses.

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "runtime/bootstrap/temp_dir.hpp"
#include "test/integration/harness.hpp"

using namespace shoal::test;

namespace {

/// auth/jwt's key, in a directory of its own made before the controller starts.
struct jwt_key_file {
  jwt_key_file() {
    auto made = shoal::runtime::make_temp_dir("shoal-jwt");
    if (!made) throw std::runtime_error("cannot make the key's directory");
    dir = *made;
    std::ifstream random("/dev/urandom", std::ios::binary);
    std::string key(32, '\0');
    random.read(key.data(), static_cast<std::streamsize>(key.size()));
    std::ofstream{dir + "/jwt_hs256.key", std::ios::binary} << key;
  }
  ~jwt_key_file() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  jwt_key_file(const jwt_key_file&) = delete;
  jwt_key_file& operator=(const jwt_key_file&) = delete;
  std::string path() const { return dir + "/jwt_hs256.key"; }
  std::string config() const {
    return "AuthAltTypes=auth/jwt\nAuthAltParameters=jwt_key=" + path() + "\n";
  }
  std::string dir;
};

/// Two nodes under auth/jwt and a shoalrestd in front of their controller.
struct rest_cluster : jwt_key_file, cluster_fixture {
  rest_cluster() : jwt_key_file(), cluster_fixture(2, config()) {
    port = free_port();
    restd = std::make_unique<daemon_process>(
        std::vector<std::string>{bin_path("shoalrestd"), "-f", conf,
                                 "127.0.0.1:" + std::to_string(port)},
        scratch.file("shoalrestd.log"));
    base = "http://127.0.0.1:" + std::to_string(port) + "/slurm/v0.0.41";
    token = mint({"lifespan=600"});
    BOOST_REQUIRE(!token.empty());
    BOOST_REQUIRE_MESSAGE(wait_until([&] { return get("/ping").status == 200; }, 20s),
                          read_file(scratch.file("shoalrestd.log")));
  }

  /// `shoal control token WORDS...`'s token, or "".
  std::string mint(const std::vector<std::string>& words) {
    std::vector<std::string> args{"control", "token"};
    args.insert(args.end(), words.begin(), words.end());
    auto r = run_cli(args);
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    const std::string prefix = "SLURM_JWT=";
    if (r.out.rfind(prefix, 0) != 0) return "";
    auto t = r.out.substr(prefix.size());
    while (!t.empty() && t.back() == '\n') t.pop_back();
    return t;
  }

  struct answer {
    int status = 0;
    nlohmann::json body;
    std::string raw;
  };

  /// What `curl ... -w "\n%{http_code}"` printed, as status and body (status 0 when it failed).
  static answer curl_answer(const command_result& r) {
    answer a;
    auto cut = r.out.rfind('\n');
    if (r.exit_code != 0 || cut == std::string::npos) return a;
    a.status = std::atoi(r.out.c_str() + cut + 1);
    a.raw = r.out.substr(0, cut);
    a.body = parse_json(a.raw);
    return a;
  }

  /// curl's answer to METHOD base+PATH with `body` (none when empty) and `with_token`'s token.
  answer http(const std::string& method, const std::string& path, const std::string& body = "",
              const std::optional<std::string>& with_token = std::nullopt,
              const std::vector<std::string>& headers = {}) {
    std::vector<std::string> argv{"curl", "-sS", "--noproxy", "*",  "-X",
                                  method, "-o",  "-",         "-w", "\n%{http_code}"};
    auto t = with_token ? *with_token : token;
    if (!t.empty()) argv.insert(argv.end(), {"-H", "X-SLURM-USER-TOKEN: " + t});
    for (const auto& h : headers) argv.insert(argv.end(), {"-H", h});
    if (!body.empty())
      argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", body});
    argv.push_back(base + path);
    return curl_answer(run_command(argv));
  }
  answer get(const std::string& path) { return http("GET", path); }

  /// POST job/submit of `script` with `fields` added to the job; the job id or 0.
  uint64_t rest_submit(const std::string& script, nlohmann::json fields = nlohmann::json::object(),
                       const std::optional<std::string>& with_token = std::nullopt) {
    fields["script"] = script;
    if (!fields.contains("current_working_directory"))
      fields["current_working_directory"] = scratch.path();
    fields["environment"] = {"PATH=/usr/bin:/bin"};
    auto a = http("POST", "/job/submit", nlohmann::json{{"job", fields}}.dump(), with_token);
    BOOST_CHECK_MESSAGE(a.status == 200, a.raw);
    if (a.status != 200 || !a.body["job_id"].is_number()) return 0;
    return a.body["job_id"].get<uint64_t>();
  }

  /// The job's first job_state word as GET job/ID says.
  std::string rest_state(uint64_t id) {
    auto a = get("/job/" + std::to_string(id));
    if (a.status != 200 || a.body["jobs"].empty()) return "";
    return a.body["jobs"][0]["job_state"][0].get<std::string>();
  }

  std::string python(const std::vector<std::string>& args, int& exit_code) {
    // Debian's interpreter, which has Debian's python3-jsonschema.
    std::string interpreter = path_exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
    std::vector<std::string> argv{interpreter, data_path("../integration/rest_client.py")};
    argv.insert(argv.end(), args.begin(), args.end());
    command_options opt;
    opt.timeout = 240s;
    auto r = run_command(argv, opt);
    exit_code = r.exit_code;
    BOOST_CHECK_MESSAGE(r.exit_code == 0, r.describe());
    return r.out;
  }

  uint16_t port = 0;
  std::unique_ptr<daemon_process> restd;
  std::string base;
  std::string token;
};

bool ended(const std::string& state) {
  return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED";
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(rest, rest_cluster)

BOOST_AUTO_TEST_CASE(a_job_submitted_over_rest_runs_and_is_listed) {
  auto ping = get("/ping");
  BOOST_CHECK_EQUAL(ping.body["pings"][0]["pinged"], "UP");
  BOOST_CHECK_EQUAL(ping.body["meta"]["plugin"]["data_parser"], "data_parser/v0.0.41");
  BOOST_CHECK(ping.body["errors"].empty());

  auto id = rest_submit(
      "#!/bin/sh\necho hello over rest\n",
      {{"name", "rest1"}, {"tasks", 1}, {"time_limit", {{"set", true}, {"number", 5}}}});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return ended(rest_state(id)); }, 60s));
  BOOST_CHECK_EQUAL(rest_state(id), "COMPLETED");
  BOOST_CHECK_EQUAL(read_file(scratch.file("slurm-" + std::to_string(id) + ".out")),
                    "hello over rest\n");
  auto job = get("/job/" + std::to_string(id)).body["jobs"][0];
  BOOST_CHECK_EQUAL(job["name"], "rest1");
  BOOST_CHECK_EQUAL(job["time_limit"]["number"], 5);
  BOOST_CHECK_EQUAL(job["exit_code"]["return_code"]["number"], 0);
  BOOST_CHECK_EQUAL(job["user_name"], getpwuid(::getuid())->pw_name);
  BOOST_CHECK_EQUAL(job["current_working_directory"], scratch.path());

  // The same job as the CLI sees it: one controller, one answer.
  BOOST_CHECK_EQUAL(job_state(id), "COMPLETED");
  auto jobs = get("/jobs").body["jobs"];
  bool listed = false;
  for (const auto& j : jobs) listed = listed || j["job_id"] == id;
  BOOST_CHECK(listed);

  auto nodes = get("/nodes").body["nodes"];
  BOOST_REQUIRE_EQUAL(nodes.size(), 2u);
  BOOST_CHECK_EQUAL(nodes[0]["name"], "node1");
  BOOST_CHECK_EQUAL(nodes[0]["state"][0], "IDLE");
  BOOST_CHECK_EQUAL(get("/node/node2").body["nodes"][0]["name"], "node2");
  BOOST_CHECK_EQUAL(get("/node/nosuch").status, 404);
  auto parts = get("/partitions").body["partitions"];
  BOOST_REQUIRE_EQUAL(parts.size(), 1u);
  BOOST_CHECK_EQUAL(parts[0]["nodes"]["total"], 2);
  BOOST_CHECK_EQUAL(get("/partition/" + parts[0]["name"].get<std::string>()).status, 200);

  // The accounting store's record of it (/slurmdb/), once the controller has written it.
  auto saved = [&] {
    auto saved_base = base;
    base.replace(base.find("/slurm/"), 7, "/slurmdb/");
    auto answer = get("/jobs?users=" + std::string{getpwuid(::getuid())->pw_name});
    base = saved_base;
    for (const auto& j : answer.body["jobs"])
      if (j["job_id"] == id) return j;
    return nlohmann::json{};
  };
  BOOST_REQUIRE(wait_until([&] { return !saved().is_null(); }, 30s));
  auto record = saved();
  BOOST_CHECK_EQUAL(record["name"], "rest1");
  BOOST_CHECK_EQUAL(record["state"]["current"][0], "COMPLETED");
  BOOST_CHECK_EQUAL(record["time"]["limit"]["number"], 5);
  BOOST_CHECK(!record["steps"].empty());
}

BOOST_AUTO_TEST_CASE(pythons_urllib_submits_and_watches_a_job) {
  int code = 0;
  auto out = python({"round-trip", base, token, scratch.path()}, code);
  auto result = parse_json(out);
  BOOST_CHECK_EQUAL(result["state"], "COMPLETED");
  BOOST_CHECK_EQUAL(result["listed"], true);
  auto id = result["job_id"].get<uint64_t>();
  BOOST_CHECK_EQUAL(read_file(scratch.file("slurm-" + std::to_string(id) + ".out")),
                    "hello from urllib\n");
}

BOOST_AUTO_TEST_CASE(a_job_is_updated_signalled_and_cancelled) {
  auto id = rest_submit("#!/bin/sh\ntrap 'echo got USR1' USR1\nwhile :; do sleep 0.1; done\n",
                        {{"time_limit", 30}});
  BOOST_REQUIRE(id != 0);
  BOOST_REQUIRE(wait_until([&] { return rest_state(id) == "RUNNING"; }, 30s));
  auto path = "/job/" + std::to_string(id);
  auto up =
      http("POST", path, R"({"job":{"time_limit":{"set":true,"number":20},"comment":"via rest"}})");
  BOOST_CHECK_MESSAGE(up.status == 200, up.raw);
  auto job = get(path).body["jobs"][0];
  BOOST_CHECK_EQUAL(job["time_limit"]["number"], 20);
  BOOST_CHECK_EQUAL(job["comment"], "via rest");

  auto sig = http("DELETE", path + "?signal=SIGUSR1");
  BOOST_CHECK_MESSAGE(sig.status == 200, sig.raw);
  auto out = scratch.file("slurm-" + std::to_string(id) + ".out");
  BOOST_CHECK(wait_until([&] { return contains(read_file(out), "got USR1"); }, 20s));
  BOOST_CHECK_EQUAL(rest_state(id), "RUNNING");
  BOOST_CHECK_EQUAL(http("DELETE", path + "?signal=NOSUCH").status, 400);

  auto cancel = http("DELETE", path);
  BOOST_CHECK_MESSAGE(cancel.status == 200, cancel.raw);
  BOOST_CHECK(wait_until([&] { return rest_state(id) == "CANCELLED"; }, 30s));
}

BOOST_AUTO_TEST_CASE(credentials_and_bodies_are_refused_as_slurmrestd_refuses_them) {
  // No token, a forged one, an expired one, a name that is not the token's.
  auto none = http("GET", "/jobs", "", std::string{});
  BOOST_CHECK_EQUAL(none.status, 401);
  BOOST_CHECK(contains(none.raw, "X-SLURM-USER-TOKEN"));
  int code = 0;
  auto me = std::string{getpwuid(::getuid())->pw_name};
  auto forged = python({"forged", me}, code);
  forged.pop_back();
  auto bad = http("GET", "/jobs", "", forged);
  BOOST_CHECK_EQUAL(bad.status, 401);
  BOOST_CHECK(contains(bad.raw, "bad signature"));
  auto expired = python({"token", path(), me, "-60"}, code);
  expired.pop_back();
  auto late = http("GET", "/jobs", "", expired);
  BOOST_CHECK_EQUAL(late.status, 401);
  BOOST_CHECK(contains(late.raw, "expired"));
  // The same key and a live expiry: accepted, so the two above failed for what they say.
  auto fresh = python({"token", path(), me, "600"}, code);
  fresh.pop_back();
  BOOST_CHECK_EQUAL(http("GET", "/jobs", "", fresh).status, 200);
  BOOST_CHECK_EQUAL(
      http("GET", "/jobs", "", std::nullopt, {"X-SLURM-USER-NAME: someoneelse"}).status, 401);
  BOOST_CHECK_EQUAL(http("GET", "/jobs", "", "not-a-token").status, 401);

  // Bodies that cannot mean a job: 400, naming what is wrong.
  auto garbage = http("POST", "/job/submit", "{not json");
  BOOST_CHECK_EQUAL(garbage.status, 400);
  BOOST_CHECK(contains(garbage.raw, "not JSON"));
  auto wrong_type =
      http("POST", "/job/submit", R"({"job":{"tasks":"many","script":"#!/bin/sh\ntrue\n"}})");
  BOOST_CHECK_EQUAL(wrong_type.status, 400);
  BOOST_CHECK(contains(wrong_type.raw, "job.tasks"));
  auto no_script = http("POST", "/job/submit", R"({"job":{"tasks":1}})");
  BOOST_CHECK_EQUAL(no_script.status, 400);
  BOOST_CHECK(contains(no_script.raw, "script"));
  auto dos = http("POST", "/job/submit", R"({"job":{"script":"#!/bin/sh\r\ntrue\r\n"}})");
  BOOST_CHECK_EQUAL(dos.status, 400);
  BOOST_CHECK(contains(dos.raw, "DOS line breaks"));
  auto unknown = http("POST", "/job/submit",
                      R"({"job":{"script":"#!/bin/sh\ntrue\n","no_such_field":1,)"
                      R"("current_working_directory":"/tmp"}})");
  BOOST_CHECK_EQUAL(unknown.status, 200);
  BOOST_CHECK(contains(unknown.raw, "job.no_such_field"));
  BOOST_CHECK_EQUAL(get("/no/such/endpoint").status, 404);

  // Bytes that are not UTF-8, in a path and in a job's name: a JSON answer all the same.
  auto odd_path = get("/job/%FF%FE");
  BOOST_CHECK_EQUAL(odd_path.status, 400);
  BOOST_CHECK_MESSAGE(odd_path.body.is_object(), odd_path.raw);
  auto odd_name = run_cli({"batch", "--hold", "-J", "caf\xe9\xff", "--wrap", "true"});
  BOOST_REQUIRE_MESSAGE(odd_name.exit_code == 0, odd_name.describe());
  auto listed = get("/jobs");
  BOOST_CHECK_EQUAL(listed.status, 200);
  BOOST_CHECK_MESSAGE(contains(listed.raw, "caf\xef\xbf\xbd"), "U+FFFD for the bad bytes");
}

BOOST_AUTO_TEST_CASE(another_users_job_is_forbidden) {
  auto id = rest_submit("#!/bin/sh\nsleep 120\n");
  BOOST_REQUIRE(id != 0);
  // The daemon user (who runs this test and shoalctld) may make a token for someone else.
  auto theirs = mint({"username=nobody", "lifespan=300"});
  BOOST_REQUIRE(!theirs.empty());
  auto path = "/job/" + std::to_string(id);
  BOOST_CHECK_EQUAL(http("DELETE", path, "", theirs).status, 403);
  BOOST_CHECK_EQUAL(http("POST", path, R"({"job":{"comment":"not yours"}})", theirs).status, 403);
  BOOST_CHECK_EQUAL(
      http("POST", "/node/node1", R"({"state":"DRAIN","reason":"no"})", theirs).status, 403);
  BOOST_CHECK(rest_state(id) != "CANCELLED");
  // An admin drains and resumes a node over REST.
  auto drain = http("POST", "/node/node2", R"({"state":["DRAIN"],"reason":"rest drain"})");
  BOOST_CHECK_MESSAGE(drain.status == 200, drain.raw);
  BOOST_CHECK_EQUAL(get("/node/node2").body["nodes"][0]["reason"], "rest drain");
  BOOST_CHECK_EQUAL(http("POST", "/node/node2", R"({"state":"RESUME"})").status, 200);
  BOOST_CHECK_EQUAL(http("DELETE", path).status, 200);
}

BOOST_AUTO_TEST_CASE(a_token_cannot_make_a_token_and_the_cli_words_are_scontrols) {
  auto r = run_cli({"control", "token", "lifespan=abc"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  r = run_cli({"control", "token", "colour=blue"});
  BOOST_CHECK_EQUAL(r.exit_code, 2);
  BOOST_CHECK(contains(r.err, "lifespan=, username="));
  r = run_slurm(*this, "scontrol", {"token"});
  BOOST_CHECK_MESSAGE(r.exit_code == 0 && r.out.rfind("SLURM_JWT=", 0) == 0, r.describe());
}

BOOST_AUTO_TEST_CASE(every_operation_of_the_openapi_document_answers_as_it_says) {
  auto id = rest_submit("#!/bin/sh\nsleep 120\n");
  BOOST_REQUIRE(id != 0);
  auto root = "http://127.0.0.1:" + std::to_string(port);
  auto part = get("/partitions").body["partitions"][0]["name"].get<std::string>();
  // A reservation an hour away on the node the job does not hold, so that GET
  // reservation/{name} has one to show.
  BOOST_REQUIRE(wait_until([&] { return rest_state(id) == "RUNNING"; }, 30s));
  auto held = get("/job/" + std::to_string(id)).body["jobs"][0]["nodes"].get<std::string>();
  auto free_node = held == "node1" ? "node2" : "node1";
  auto made =
      run_cli({"control", "create", "reservation", "reservationname=later", "starttime=now+1hour",
               "duration=10", std::string("nodes=") + free_node, "users=root"});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  int code = 0;
  auto out = python({"openapi", root, token, std::to_string(id), "node2", part, "later"}, code);
  auto result = parse_json(out);
  BOOST_REQUIRE(result.is_object());
  BOOST_CHECK_MESSAGE(result["problems"].empty(), result["problems"].dump(1));
  BOOST_CHECK_EQUAL(result["checked"].size(), 17u);
  auto shown = get("/reservation/later");
  BOOST_CHECK_EQUAL(shown.body["reservations"][0]["node_list"], free_node);
  BOOST_CHECK_EQUAL(get("/reservation/nosuch").status, 404);
  auto diag = get("/diag");
  BOOST_CHECK_GE(diag.body["statistics"]["jobs_submitted"].get<int64_t>(), 1);
  BOOST_CHECK(wait_until([&] { return rest_state(id) == "CANCELLED"; }, 30s));
  BOOST_CHECK(wait_node_state("node2", "IDLE"));
}

BOOST_AUTO_TEST_CASE(thirty_two_clients_lose_and_duplicate_nothing) {
  int code = 0;
  auto out = python({"load", base, token, scratch.path(), "32", "1000"}, code);
  auto result = parse_json(out);
  BOOST_REQUIRE(result.is_object());
  BOOST_CHECK_MESSAGE(result["failures"].empty(), result["failures"].dump());
  std::set<uint64_t> ids;
  for (const auto& id : result["ids"]) ids.insert(id.get<uint64_t>());
  BOOST_CHECK_EQUAL(ids.size(), result["ids"].size());                 // none twice
  BOOST_CHECK_EQUAL(ids.size(), result["submissions"].get<size_t>());  // none lost
  BOOST_CHECK_GE(ids.size(), 200u);  // every fifth request of each client a submission
  int ok = 0;
  for (auto it = result["statuses"].begin(); it != result["statuses"].end(); ++it)
    if (it.key() == "200") ok = it->get<int>();
  BOOST_CHECK_EQUAL(ok, 1000);
  // Every one of them is the controller's, and the scheduler ran them all.
  BOOST_CHECK(wait_until(
      [&] {
        auto all = jobs();
        size_t done = 0;
        for (const auto& j : all)
          if (ids.count(j["job_id"].get<uint64_t>()) != 0 && j["state"] == "COMPLETED") ++done;
        return done == ids.size();
      },
      180s));
}

BOOST_AUTO_TEST_CASE(the_unix_socket_knows_its_own_user_without_a_token) {
  // slurmrestd's unix:PATH with rest_auth/local: the kernel names the caller.
  auto made = shoal::runtime::make_temp_dir("shoal-restd-sock");
  BOOST_REQUIRE(made);
  std::string dir = *made;
  ::chmod(dir.c_str(), 0755);  // so that another user can reach the socket and be refused
  auto socket = dir + "/restd.sock";
  daemon_process local({bin_path("shoalrestd"), "-f", conf, "unix:" + socket},
                       scratch.file("shoalrestd-unix.log"));
  auto over_socket = [&](const std::vector<std::string>& prefix, const std::string& method,
                         const std::string& path, const std::string& body) {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), {"curl", "-sS", "--unix-socket", socket, "-X", method, "-o", "-", "-w",
                             "\n%{http_code}"});
    if (!body.empty())
      argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", body});
    argv.push_back("http://localhost/slurm/v0.0.41" + path);
    return curl_answer(run_command(argv));
  };
  BOOST_REQUIRE_MESSAGE(
      wait_until([&] { return over_socket({}, "GET", "/ping", "").status == 200; }, 20s),
      read_file(scratch.file("shoalrestd-unix.log")));

  nlohmann::json job = {{"script", "#!/bin/sh\necho over the socket\n"},
                        {"name", "sock1"},
                        {"current_working_directory", scratch.path()},
                        {"environment", {"PATH=/usr/bin:/bin"}}};
  auto submitted = over_socket({}, "POST", "/job/submit", nlohmann::json{{"job", job}}.dump());
  BOOST_REQUIRE_MESSAGE(submitted.status == 200, submitted.raw);
  auto id = submitted.body["job_id"].get<uint64_t>();
  BOOST_CHECK(wait_until([&] { return ended(rest_state(id)); }, 60s));
  auto shown = over_socket({}, "GET", "/job/" + std::to_string(id), "");
  BOOST_REQUIRE_EQUAL(shown.status, 200);
  passwd* me = ::getpwuid(::getuid());
  BOOST_REQUIRE(me != nullptr);
  BOOST_CHECK_EQUAL(shown.body["jobs"][0]["user_name"], me->pw_name);
  BOOST_CHECK_EQUAL(shown.body["meta"]["client"]["user"], me->pw_name);

  // Another user on the same socket, without a token: refused, as rest_auth/local refuses.
  if (::getuid() == 0) {
    auto stranger = over_socket({"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"},
                                "GET", "/jobs", "");
    BOOST_CHECK_EQUAL(stranger.status, 401);
    BOOST_CHECK(contains(stranger.raw, "may not use this socket"));
  }
  // A socket left by a daemon that is gone is replaced; a live one is not taken over.
  auto second = run_command({bin_path("shoalrestd"), "-f", conf, "unix:" + socket});
  BOOST_CHECK_EQUAL(second.exit_code, 1);
  BOOST_CHECK(contains(second.err, "another shoalrestd is listening there"));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

BOOST_AUTO_TEST_CASE(https_on_the_tcp_port_with_the_sites_certificate) {
  // A certificate for 127.0.0.1 made with openssl(1), as a site makes or is given one.
  auto cert = scratch.file("restd-cert.pem");
  auto key = scratch.file("restd-key.pem");
  auto made = run_command({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                           "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                           "-keyout", key, "-out", cert});
  BOOST_REQUIRE_MESSAGE(made.exit_code == 0, made.describe());
  auto tls_port = free_port();
  auto where = "127.0.0.1:" + std::to_string(tls_port);
  daemon_process secure(
      {bin_path("shoalrestd"), "-f", conf, "--tls-cert", cert, "--tls-key", key, where},
      scratch.file("shoalrestd-tls.log"));
  auto https = [&](const std::vector<std::string>& options, const std::string& path) {
    std::vector<std::string> argv{
        "curl", "-sS", "--noproxy",      "*",  "-o",
        "-",    "-w",  "\n%{http_code}", "-H", "X-SLURM-USER-TOKEN: " + token};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(path);
    return curl_answer(run_command(argv));
  };
  auto url = "https://" + where + "/slurm/v0.0.41";
  BOOST_REQUIRE_MESSAGE(wait_until(
                            [&] {
                              return https({"--cacert", cert}, url + "/ping").status == 200;
                            },
                            20s),
                        read_file(scratch.file("shoalrestd-tls.log")));
  auto jobs = https({"--cacert", cert}, url + "/jobs");
  BOOST_CHECK_EQUAL(jobs.status, 200);
  BOOST_CHECK(jobs.body["jobs"].is_array());
  // Python's urllib, verifying the certificate as a portal would.
  std::string program =
      "import ssl, sys, urllib.request\n"
      "ctx = ssl.create_default_context(cafile=sys.argv[1])\n"
      "req = urllib.request.Request(sys.argv[2], headers={'X-SLURM-USER-TOKEN': sys.argv[3]})\n"
      "print(urllib.request.urlopen(req, context=ctx).status)\n";
  auto py = run_command({"python3", "-c", program, cert, url + "/ping", token});
  BOOST_CHECK_MESSAGE(py.exit_code == 0 && contains(py.out, "200"), py.describe());
  // A client that does not trust the certificate, and one speaking plain HTTP, get nothing.
  BOOST_CHECK_EQUAL(https({}, url + "/ping").status, 0);
  BOOST_CHECK_EQUAL(https({}, "http://" + where + "/slurm/v0.0.41/ping").status, 0);
  // The certificate without its key is bad usage; a file that is no certificate is refused.
  auto alone = run_command({bin_path("shoalrestd"), "-f", conf, "--tls-cert", cert, where});
  BOOST_CHECK_EQUAL(alone.exit_code, 2);
  BOOST_CHECK_MESSAGE(contains(alone.err, "--tls-key"), alone.describe());
  auto wrong = run_command({bin_path("shoalrestd"), "-f", conf, "--tls-cert", conf, "--tls-key",
                            key, "127.0.0.1:" + std::to_string(free_port())});
  BOOST_CHECK_EQUAL(wrong.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(wrong.err, "cannot load the TLS certificate"), wrong.describe());
  // A key that is not the certificate's is refused at start too, not at the first handshake.
  auto other_key = scratch.file("restd-other-key.pem");
  auto keyed = run_command({"openssl", "genpkey", "-algorithm", "RSA", "-out", other_key});
  BOOST_REQUIRE_MESSAGE(keyed.exit_code == 0, keyed.describe());
  auto mismatched =
      run_command({bin_path("shoalrestd"), "-f", conf, "--tls-cert", cert, "--tls-key", other_key,
                   "127.0.0.1:" + std::to_string(free_port())});
  BOOST_CHECK_EQUAL(mismatched.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(mismatched.err, "cannot load the TLS certificate"),
                      mismatched.describe());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(rest_without_jwt, one_node)

/// Without auth/jwt the controller says what to set.
BOOST_AUTO_TEST_CASE(token_without_auth_jwt_names_the_keys) {
  auto r = run_cli({"control", "token"});
  BOOST_CHECK_EQUAL(r.exit_code, 1);
  BOOST_CHECK_MESSAGE(contains(r.err, "AuthAltTypes=auth/jwt"), r.describe());
}

BOOST_AUTO_TEST_SUITE_END()
