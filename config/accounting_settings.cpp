#include "config/accounting_settings.hpp"

#include <cctype>
#include <cstdlib>

namespace shoal::config {

const char* to_string(accounting_storage type) {
  switch (type) {
    case accounting_storage::none:
      return "accounting_storage/none";
    case accounting_storage::sqlite:
      return "accounting_storage/sqlite";
    case accounting_storage::postgres:
      return "accounting_storage/postgres";
  }
  return "accounting_storage/none";
}

bool apply_accounting_key(accounting_settings& settings, const std::string& key,
                          const std::string& value, std::string& error) {
  if (key == "accountingstoragetype") {
    if (value == "accounting_storage/none")
      settings.type = accounting_storage::none;
    else if (value == "accounting_storage/sqlite")
      settings.type = accounting_storage::sqlite;
    else if (value == "accounting_storage/postgres")
      settings.type = accounting_storage::postgres;
    else if (value == "accounting_storage/slurmdbd")
      error =
          "shoal has no slurmdbd: the controller writes the store itself; use "
          "accounting_storage/sqlite (the default, nothing to install) or "
          "accounting_storage/postgres with AccountingStorageHost/Port/User/Pass";
    else
      error = "accounting_storage/sqlite, accounting_storage/postgres or accounting_storage/none";
    return true;
  }
  if (key == "accountingstorageloc") {
    settings.location = value;
    return true;
  }
  if (key == "accountingstoragehost") {
    settings.host = value;
    return true;
  }
  if (key == "accountingstorageuser") {
    settings.user = value;
    return true;
  }
  if (key == "accountingstoragepass") {
    settings.password = value;
    return true;
  }
  if (key == "accountingstorageenforce") {
    settings.enforce_associations = settings.enforce_limits = settings.enforce_qos = false;
    std::string item;
    for (size_t i = 0; i <= value.size(); ++i) {
      if (i < value.size() && value[i] != ',') {
        item += static_cast<char>(std::tolower(static_cast<unsigned char>(value[i])));
        continue;
      }
      if (item == "associations") {
        settings.enforce_associations = true;
      } else if (item == "limits" || item == "safe") {
        settings.enforce_associations = settings.enforce_limits = true;
      } else if (item == "qos") {
        settings.enforce_associations = settings.enforce_qos = true;
      } else if (item == "all") {
        settings.enforce_associations = settings.enforce_limits = settings.enforce_qos = true;
      } else if (item == "none" || item == "0" || item == "wckeys" || item == "nojobs" ||
                 item == "nosteps") {
        // wckeys, nojobs and nosteps are accepted and change nothing: shoal keeps no WCKeys
        // and always records jobs and steps.
      } else if (!item.empty()) {
        error =
            "a comma list of associations, limits, qos, safe, wckeys, nojobs, nosteps, "
            "all or none";
        return true;
      }
      item.clear();
    }
    return true;
  }
  if (key == "accountingstorageport") {
    char* end = nullptr;
    auto port = std::strtoul(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || port == 0 || port > 65535)
      error = "a port number, 1 to 65535";
    else
      settings.port = static_cast<uint16_t>(port);
    return true;
  }
  return false;
}

std::string enforce_text(const accounting_settings& settings) {
  std::string out;
  if (settings.enforce_associations) out += "associations";
  if (settings.enforce_limits) out += ",limits";
  if (settings.enforce_qos) out += ",qos";
  return out.empty() ? "none" : out;
}

std::string sqlite_path(const accounting_settings& settings,
                        const std::string& state_save_location) {
  if (!settings.location.empty()) return settings.location;
  return state_save_location + "/accounting.db";
}

}  // namespace shoal::config
