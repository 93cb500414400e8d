#pragma once

// sacctmgr list/show (Slurm 22.05, src/sacctmgr/common.c's field table, the *_functions.c
// default formats, src/common/print_fields.c): clusters, accounts, users, associations and QOS
// as the accounting store keeps them (msg::association_data), with `format=`, `where`
// conditions, `withassoc`, `-n`, `-p`, `-P`. Pure: the CLI fetches the data, this selects and
// lays it out byte for byte as sacctmgr prints it.

#include <string>
#include <string_view>
#include <vector>

#include "messages/errc.hpp"
#include "messages/types.hpp"

namespace shoal::cli {

/// How sacctmgr was asked to print.
struct acctmgr_print_options {
  bool no_header = false;       ///< -n
  int parsable = 0;             ///< 0: columns; 1: -p (a `|` after every field); 2: -P
  std::string delimiter = "|";  ///< with -p/-P
};

/// One list command: `sacctmgr list ENTITY [names] [where] [KEY=VALUE...] [format=...]
/// [withassoc]`, its words after the entity.
struct acctmgr_listing {
  std::string entity;              ///< cluster, account, user, association or qos
  std::vector<std::string> words;  ///< names and KEY=VALUE conditions, `where` and `withassoc`
};

/// The entity a word names, as sacctmgr's abbreviations allow (`user`, `users`, `assoc`,
/// `associations`, `acc`, `accounts`, `qos`, `cluster`, ...): "cluster", "account", "user",
/// "association" or "qos"; empty for none of them.
std::string acctmgr_entity(std::string_view word);

/// What sacctmgr prints for `listing` over `data`. Errors: errc::invalid_request with sacctmgr's
/// words: "Unknown field 'X'" (format=), " Unknown condition: X" (a condition it does not take).
shoal::expected<std::string> render_acctmgr_list(const msg::association_data& data,
                                                 const acctmgr_listing& listing,
                                                 const acctmgr_print_options& opt);

}  // namespace shoal::cli
