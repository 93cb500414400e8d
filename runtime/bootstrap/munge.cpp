#include "runtime/bootstrap/munge.hpp"

#include <munge.h>

#include <cstdlib>
#include <memory>

#include "messages/errc.hpp"

namespace shoal::runtime {

namespace {

struct context_deleter {
  void operator()(munge_ctx_t ctx) const { munge_ctx_destroy(ctx); }
};
using context = std::unique_ptr<std::remove_pointer_t<munge_ctx_t>, context_deleter>;

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};

shoal::expected<context> context_for(const std::string& socket) {
  context ctx{munge_ctx_create()};
  if (!ctx)
    return shoal::error(errc::system_error, "cannot create a MUNGE context (out of memory)");
  if (munge_ctx_set(ctx.get(), MUNGE_OPT_SOCKET, socket.c_str()) != EMUNGE_SUCCESS)
    return shoal::error(errc::system_error, "cannot set the MUNGE socket to " + socket);
  return ctx;
}

std::string unreachable_text(const std::string& socket, munge_err_t rc, munge_ctx_t ctx) {
  const char* why = ctx != nullptr ? munge_ctx_strerror(ctx) : nullptr;
  return "cannot reach munged at " + socket + ": " + (why != nullptr ? why : munge_strerror(rc)) +
         " (start munged, name its socket with AuthInfo=socket=PATH, or set AuthType=auth/none "
         "for a single-user cluster)";
}

}  // namespace

shoal::expected<std::string> make_munge_credential(const std::string& socket,
                                                   std::string_view payload,
                                                   std::optional<uint32_t> only_for) {
  auto ctx = context_for(socket);
  if (!ctx) return std::move(ctx.error());
  if (only_for && munge_ctx_set(ctx->get(), MUNGE_OPT_UID_RESTRICTION,
                                static_cast<uid_t>(*only_for)) != EMUNGE_SUCCESS)
    return shoal::error(errc::system_error, "cannot restrict a MUNGE credential to one uid");
  char* raw = nullptr;
  auto rc = munge_encode(&raw, ctx->get(), payload.data(), static_cast<int>(payload.size()));
  std::unique_ptr<char, free_deleter> cred{raw};
  if (rc != EMUNGE_SUCCESS)
    return shoal::error(errc::system_error, unreachable_text(socket, rc, ctx->get()));
  return std::string{cred.get()};
}

shoal::expected<munge_identity> decode_munge_credential(const std::string& socket,
                                                        const std::string& credential) {
  if (credential.empty())
    return shoal::error(errc::authentication_failed,
                        "Protocol authentication error (no MUNGE credential; AuthType=auth/munge)");
  auto ctx = context_for(socket);
  if (!ctx) return std::move(ctx.error());
  void* raw = nullptr;
  int length = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  auto rc = munge_decode(credential.c_str(), ctx->get(), &raw, &length, &uid, &gid);
  std::unique_ptr<void, free_deleter> payload{raw};
  if (rc == EMUNGE_SOCKET || rc == EMUNGE_SNAFU || rc == EMUNGE_NO_MEMORY)
    return shoal::error(errc::system_error, unreachable_text(socket, rc, ctx->get()));
  if (rc != EMUNGE_SUCCESS)
    return shoal::error(
        errc::authentication_failed,
        std::string{"Protocol authentication error (MUNGE: "} + munge_strerror(rc) + ")");
  munge_identity who;
  who.uid = static_cast<uint32_t>(uid);
  who.gid = static_cast<uint32_t>(gid);
  if (payload && length > 0) who.payload.assign(static_cast<const char*>(payload.get()), length);
  return who;
}

}  // namespace shoal::runtime
