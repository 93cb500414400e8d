#pragma once

#include <string>

#include "config/config.hpp"
#include "messages/errc.hpp"
#include "metrics/text_parser.hpp"

namespace shoal::cli {

/// shoalctld's endpoint as the config gives it: http://HOST:MetricsPort/metrics (HOST from
/// SHOAL_CONTROLLER or SlurmctldHost). Error (errc::invalid_request) when MetricsPort is 0 or
/// CollectMetrics=NO.
shoal::expected<std::string> controller_metrics_url(const config::cluster_config& cfg);

/// GETs `url` ("http://HOST:PORT/PATH", or "HOST:PORT" for /metrics) and parses it as
/// Prometheus text. Errors: errc::unreachable (connection, HTTP status) or
/// errc::malformed_message (the parser's, naming the line).
shoal::expected<metrics::exposition> scrape(const std::string& url);

}  // namespace shoal::cli
