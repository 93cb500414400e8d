#include "tools/cli/scrape.hpp"

#include <cstdlib>

#include "messages/errc.hpp"
#include "runtime/bootstrap/controller_client.hpp"
#include "runtime/bootstrap/tcp_connect.hpp"

namespace shoal::cli {

shoal::expected<std::string> controller_metrics_url(const config::cluster_config& cfg) {
  if (!cfg.collect_metrics)
    return shoal::error(errc::invalid_request,
                        "the cluster runs with CollectMetrics=NO: there are no metrics to read");
  if (cfg.metrics_port == 0)
    return shoal::error(errc::invalid_request,
                        "MetricsPort=0: shoalctld serves no metrics (set MetricsPort, or give "
                        "--url)");
  auto host = runtime::controller_endpoint(cfg).first;
  return "http://" + host + ":" + std::to_string(cfg.metrics_port) + "/metrics";
}

shoal::expected<metrics::exposition> scrape(const std::string& url) {
  std::string rest = url;
  auto scheme = rest.find("://");
  if (scheme != std::string::npos) rest = rest.substr(scheme + 3);
  auto slash = rest.find('/');
  auto host_port = rest.substr(0, slash);
  auto path = slash == std::string::npos ? std::string{"/metrics"} : rest.substr(slash);
  auto colon = host_port.rfind(':');
  auto host = host_port.substr(0, colon);
  long port =
      colon == std::string::npos ? 80 : std::strtol(host_port.c_str() + colon + 1, nullptr, 10);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);  // [::1]
  if (host.empty() || port <= 0 || port > 65535)
    return shoal::error(errc::invalid_request,
                        "cannot read " + url + ": not http://HOST:PORT/PATH");
  auto res = runtime::http_get(host, static_cast<uint16_t>(port), path, std::chrono::seconds{10});
  if (!res)
    return shoal::error(errc::unreachable, "cannot read " + url + " (" + describe(res.error()) +
                                               "); is the daemon running with metrics on?");
  if (res->status != 200)
    return shoal::error(errc::unreachable,
                        "cannot read " + url + ": HTTP status " + std::to_string(res->status));
  auto parsed = metrics::parse_text(res->body);
  if (!parsed)
    return shoal::error(errc::malformed_message,
                        url + ": not Prometheus text: " + describe(parsed.error()));
  return parsed;
}

}  // namespace shoal::cli
