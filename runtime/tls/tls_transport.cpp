#include "runtime/tls/tls_transport.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include <caf/actor_cast.hpp>
#include <caf/io/basp_broker.hpp>
#include <caf/io/middleman_actor_impl.hpp>
#include <caf/io/network/default_multiplexer.hpp>
#include <caf/io/network/doorman_impl.hpp>
#include <caf/io/network/interfaces.hpp>
#include <caf/io/network/stream_impl.hpp>
#include <caf/io/scribe.hpp>

#include "actors/daemon_transport.hpp"
#include "config/log.hpp"
#include "messages/caf/error.hpp"
#include "runtime/tls/cluster_identity.hpp"

namespace shoal::runtime {

namespace {

namespace net = caf::io::network;
using net::native_socket;
using net::rw_state;

struct ctx_free {
  void operator()(SSL_CTX* p) const { SSL_CTX_free(p); }
};
struct ssl_free {
  void operator()(SSL* p) const { SSL_free(p); }
};
using shared_ctx = std::shared_ptr<SSL_CTX>;

/// How long a connection of the daemons' port may take to finish its TLS handshake.
constexpr std::chrono::milliseconds handshake_patience{10000};

/// One context for every connection: TLS 1.3 only, the cluster's certificate as ours and as the
/// only one trusted, and a peer certificate required on both sides.
caf::expected<shared_ctx> make_context(const std::string& pem) {
  if (auto err = check_cluster_identity(pem)) return to_caf(err);
  shared_ctx ctx{SSL_CTX_new(TLS_method()), ctx_free{}};
  auto fail = [](const std::string& what) {
    return make_error(errc::invalid_config, what + ": " + openssl_reason());
  };
  if (!ctx) return fail("cannot make a TLS context");
  std::unique_ptr<BIO, decltype(&BIO_free)> key_in{
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key{
      PEM_read_bio_PrivateKey(key_in.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free};
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_in{
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free};
  std::unique_ptr<X509, decltype(&X509_free)> cert{
      PEM_read_bio_X509(cert_in.get(), nullptr, nullptr, nullptr), &X509_free};
  if (!key || !cert) return fail("cannot read the cluster's TLS identity");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION) != 1 ||
      SSL_CTX_use_certificate(ctx.get(), cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx.get()), cert.get()) != 1)
    return fail("cannot load the cluster's TLS identity");
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_clear_mode(ctx.get(), SSL_MODE_AUTO_RETRY);
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  return ctx;
}

/// What the watchdog and a connection share: whether the handshake is over, and whether the
/// connection (and so its socket) still exists. Guarded, so that the watchdog never shuts down a
/// socket number the connection has already given back.
struct handshake_watch {
  std::mutex lock;
  native_socket fd;
  std::string peer;
  bool over = false;
};

/// Drops connections whose TLS handshake is not over within `patience`: a peer that connects
/// and says nothing (a daemon under AuthType=auth/none speaking plain CAF, or a slow client)
/// must not hold a socket of the daemons' port forever. Shutting the socket down wakes the
/// multiplexer, which then closes the connection as any other that failed.
class handshake_watchdog {
 public:
  explicit handshake_watchdog(std::chrono::milliseconds patience) : patience_(patience) {
    thread_ = std::thread{[this] { run(); }};
  }
  ~handshake_watchdog() {
    {
      std::lock_guard<std::mutex> guard{lock_};
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }

  void watch(const std::shared_ptr<handshake_watch>& w) {
    {
      std::lock_guard<std::mutex> guard{lock_};
      pending_.emplace(std::chrono::steady_clock::now() + patience_, w);
    }
    wake_.notify_one();
  }

 private:
  void run() {
    std::unique_lock<std::mutex> guard{lock_};
    while (!stopping_) {
      if (pending_.empty()) {
        wake_.wait(guard);
        continue;
      }
      auto first = pending_.begin();
      if (wake_.wait_until(guard, first->first) == std::cv_status::no_timeout) continue;
      first = pending_.begin();
      if (first == pending_.end() || first->first > std::chrono::steady_clock::now()) continue;
      auto watched = first->second.lock();
      pending_.erase(first);
      if (!watched) continue;
      std::lock_guard<std::mutex> held{watched->lock};
      if (watched->over) continue;
      config::log().warn(
          "daemon port: no TLS handshake within {} ms peer={}: dropped (a daemon "
          "under AuthType=auth/none, or not a daemon at all?)",
          patience_.count(), watched->peer);
      ::shutdown(watched->fd, SHUT_RDWR);
    }
  }

  std::chrono::milliseconds patience_;
  std::mutex lock_;
  std::condition_variable wake_;
  std::multimap<std::chrono::steady_clock::time_point, std::weak_ptr<handshake_watch>> pending_;
  bool stopping_ = false;
  std::thread thread_;
};

/// Holds SIGPIPE back while OpenSSL writes to a socket the peer closed (its writes are plain
/// write(2) calls, without MSG_NOSIGNAL), then drops it: the write's EPIPE is the news. Setting
/// SIGPIPE to SIG_IGN instead would leak into every task shoald starts.
class sigpipe_held {
 public:
  sigpipe_held() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &before_);
  }
  ~sigpipe_held() {
    timespec now{0, 0};
    while (::sigtimedwait(&pipe_, nullptr, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &before_, nullptr);
  }
  sigpipe_held(const sigpipe_held&) = delete;
  sigpipe_held& operator=(const sigpipe_held&) = delete;

 private:
  sigset_t pipe_;
  sigset_t before_;
};

std::string peer_of(native_socket fd) {
  auto addr = net::remote_addr_of_fd(fd);
  auto port = net::remote_port_of_fd(fd);
  return (addr ? *addr : std::string{"?"}) + ":" + (port ? std::to_string(*port) : "?");
}

/// One connection's TLS session, as stream_impl's policy. Writes made before the handshake ends
/// wait in `held_` (reported as written), so the multiplexer never waits to write on a socket
/// that must be read first; the handshake's end flushes them.
class tls_policy {
 public:
  tls_policy(std::unique_ptr<SSL, ssl_free> ssl, std::shared_ptr<handshake_watch> watch,
             bool accepted)
      : ssl_(std::move(ssl)), watch_(std::move(watch)), accepted_(accepted) {}

  tls_policy(tls_policy&&) = default;

  ~tls_policy() {
    // Runs before the stream closes the socket: from now on the watchdog leaves it alone.
    if (watch_) {
      std::lock_guard<std::mutex> guard{watch_->lock};
      watch_->over = true;
    }
  }

  rw_state read_some(size_t& result, native_socket fd, void* buf, size_t len) {
    sigpipe_held held;
    result = 0;
    if (handshaking_ && !advance_handshake(fd)) return rw_state::failure;
    if (handshaking_ || len == 0) return rw_state::success;
    ERR_clear_error();
    auto n = SSL_read(ssl_.get(), buf, static_cast<int>(len));
    if (n > 0) {
      result = static_cast<size_t>(n);
      return rw_state::success;
    }
    return retry_later(n) ? rw_state::success : rw_state::failure;
  }

  rw_state write_some(size_t& result, native_socket fd, const void* buf, size_t len) {
    sigpipe_held held;
    result = 0;
    if (handshaking_) {
      held_.append(static_cast<const char*>(buf), len);
      result = len;
      if (!advance_handshake(fd)) return rw_state::failure;
      return len == 0 ? rw_state::indeterminate : rw_state::success;
    }
    if (!flush_held(fd)) return rw_state::failure;
    if (len == 0) return rw_state::indeterminate;
    ERR_clear_error();
    auto n = SSL_write(ssl_.get(), buf, static_cast<int>(len));
    if (n > 0) {
      result = static_cast<size_t>(n);
      return rw_state::success;
    }
    return retry_later(n) ? rw_state::success : rw_state::failure;
  }

  bool try_accept(native_socket& result, native_socket fd) {
    sockaddr_storage addr{};
    socklen_t length = sizeof addr;
    result = ::accept4(fd, reinterpret_cast<sockaddr*>(&addr), &length, SOCK_CLOEXEC);
    return result != net::invalid_native_socket;
  }

  bool must_read_more(native_socket, size_t threshold) {
    return static_cast<size_t>(SSL_pending(ssl_.get())) >= threshold;
  }

 private:
  /// Drives the handshake; false when it failed (logged once).
  bool advance_handshake(native_socket fd) {
    ERR_clear_error();
    auto rc = SSL_do_handshake(ssl_.get());
    if (rc == 1) {
      handshaking_ = false;
      {
        std::lock_guard<std::mutex> guard{watch_->lock};
        watch_->over = true;
      }
      return flush_held(fd);
    }
    if (retry_later(rc)) return true;
    if (failed_) return false;  // logged once, when it failed
    failed_ = true;
    auto reason = openssl_reason();
    auto verdict = SSL_get_verify_result(ssl_.get());
    if (verdict != X509_V_OK) reason = X509_verify_cert_error_string(verdict);
    config::log().warn(
        "daemon port: TLS handshake {} peer={}: {} (a peer needs the cluster's "
        "identity; docs/security.md)",
        accepted_ ? "refused" : "failed", watch_->peer,
        reason.empty() ? std::string{"connection closed"} : reason);
    return false;
  }

  /// Writes what waited for the handshake. The socket's buffer is empty then, so this does not
  /// wait in practice; it waits at most a second before giving the peer up.
  bool flush_held(native_socket fd) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{1};
    while (!held_.empty()) {
      ERR_clear_error();
      auto n = SSL_write(ssl_.get(), held_.data(), static_cast<int>(held_.size()));
      if (n > 0) {
        held_.erase(0, static_cast<size_t>(n));
        continue;
      }
      if (!retry_later(n) || std::chrono::steady_clock::now() > deadline) return false;
      pollfd p{fd, POLLOUT | POLLIN, 0};
      ::poll(&p, 1, 100);
    }
    return true;
  }

  /// Whether the last call only needs the socket to be ready again.
  bool retry_later(int rc) {
    auto err = SSL_get_error(ssl_.get(), rc);
    return err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE;
  }

  std::unique_ptr<SSL, ssl_free> ssl_;
  std::shared_ptr<handshake_watch> watch_;
  bool accepted_;
  bool handshaking_ = true;
  bool failed_ = false;
  std::string held_;
};

caf::expected<tls_policy> make_policy(const shared_ctx& ctx, native_socket fd, bool accepted,
                                      handshake_watchdog& watchdog) {
  std::unique_ptr<SSL, ssl_free> ssl{SSL_new(ctx.get())};
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1)
    return make_error(errc::system_error, "cannot start a TLS session: " + openssl_reason());
  if (accepted)
    SSL_set_accept_state(ssl.get());
  else
    SSL_set_connect_state(ssl.get());
  auto watch = std::make_shared<handshake_watch>();
  watch->fd = fd;
  watch->peer = peer_of(fd);
  watchdog.watch(watch);
  return tls_policy{std::move(ssl), std::move(watch), accepted};
}

class tls_scribe : public caf::io::scribe {
 public:
  tls_scribe(net::default_multiplexer& mpx, native_socket fd, tls_policy policy)
      : scribe(net::conn_hdl_from_socket(fd)), stream_(mpx, fd, std::move(policy)) {}

  void configure_read(caf::io::receive_policy::config config) override {
    stream_.configure_read(config);
    if (!launched_) launch();
  }
  void ack_writes(bool enable) override { stream_.ack_writes(enable); }
  std::vector<char>& wr_buf() override { return stream_.wr_buf(); }
  std::vector<char>& rd_buf() override { return stream_.rd_buf(); }
  void graceful_shutdown() override {
    stream_.graceful_shutdown();
    detach(&stream_.backend(), false);
  }
  void flush() override { stream_.flush(this); }
  std::string addr() const override {
    auto x = net::remote_addr_of_fd(stream_.fd());
    return x ? *x : std::string{};
  }
  uint16_t port() const override {
    auto x = net::remote_port_of_fd(stream_.fd());
    return x ? *x : 0;
  }
  void add_to_loop() override { stream_.activate(this); }
  void remove_from_loop() override { stream_.passivate(); }

 private:
  void launch() {
    launched_ = true;
    stream_.start(this);
    // A first, empty write drives a connecting side's handshake (its ClientHello).
    stream_.force_empty_write(this);
  }

  bool launched_ = false;
  net::stream_impl<tls_policy> stream_;
};

class tls_doorman : public net::doorman_impl {
 public:
  tls_doorman(net::default_multiplexer& mpx, native_socket fd, shared_ctx ctx,
              std::shared_ptr<handshake_watchdog> watchdog)
      : doorman_impl(mpx, fd), ctx_(std::move(ctx)), watchdog_(std::move(watchdog)) {}

  bool new_connection() override {
    if (detached()) return false;
    auto& mpx = acceptor_.backend();
    auto fd = acceptor_.accepted_socket();
    net::child_process_inherit(fd, false);
    net::nonblocking(fd, true);
    auto policy = make_policy(ctx_, fd, true, *watchdog_);
    if (!policy) {
      config::log().error("daemon port: {}", describe(policy.error()));
      net::close_socket(fd);
      return false;
    }
    auto scribe = caf::make_counted<tls_scribe>(mpx, fd, std::move(*policy));
    auto hdl = scribe->hdl();
    parent()->add_scribe(std::move(scribe));
    return doorman::new_connection(&mpx, hdl);
  }

 private:
  shared_ctx ctx_;
  std::shared_ptr<handshake_watchdog> watchdog_;
};

class tls_middleman : public caf::io::middleman_actor_impl {
 public:
  tls_middleman(caf::actor_config& cfg, caf::actor broker, shared_ctx ctx)
      : middleman_actor_impl(cfg, std::move(broker)),
        ctx_(std::move(ctx)),
        watchdog_(std::make_shared<handshake_watchdog>(handshake_patience)) {}

  const char* name() const override { return "shoal_tls_middleman"; }

 protected:
  caf::expected<caf::io::scribe_ptr> connect(const std::string& host, uint16_t port) override {
    auto fd = net::new_tcp_connection(host, port);
    if (!fd) return std::move(fd.error());
    net::nonblocking(*fd, true);
    auto policy = make_policy(ctx_, *fd, false, *watchdog_);
    if (!policy) {
      net::close_socket(*fd);
      return std::move(policy.error());
    }
    return caf::make_counted<tls_scribe>(mpx(), *fd, std::move(*policy));
  }

  caf::expected<caf::io::doorman_ptr> open(uint16_t port, const char* addr, bool reuse) override {
    auto fd = net::new_tcp_acceptor_impl(port, addr, reuse);
    if (!fd) return std::move(fd.error());
    return caf::make_counted<tls_doorman>(mpx(), *fd, ctx_, watchdog_);
  }

 private:
  net::default_multiplexer& mpx() {
    return static_cast<net::default_multiplexer&>(system().middleman().backend());
  }

  shared_ctx ctx_;
  std::shared_ptr<handshake_watchdog> watchdog_;
};

}  // namespace

caf::error start_tls_transport(caf::actor_system& sys, const std::string& identity_pem) {
  auto ctx = make_context(identity_pem);
  if (!ctx) return std::move(ctx.error());
  auto broker = sys.middleman().named_broker<caf::io::basp_broker>(caf::atom("BASP"));
  auto transport = sys.spawn<tls_middleman, caf::detached + caf::hidden>(broker, std::move(*ctx));
  // It lives on a thread of its own (connecting blocks), which the actor system waits for when
  // it ends: it ends with the BASP broker, which the middleman stops on the way out (CAF's own
  // middleman actor is stopped the same way).
  auto* basp = caf::actor_cast<caf::abstract_actor*>(broker);
  basp->attach_functor([sys = &sys, weak = caf::actor_cast<caf::weak_actor_ptr>(transport)] {
    // The registry's reference goes too: a detached actor's thread waits for its destruction.
    sys->registry().erase(actors::daemon_transport_key);
    if (auto alive = weak.lock())
      caf::anon_send_exit(caf::actor_cast<caf::actor>(alive), caf::exit_reason::kill);
  });
  sys.registry().put(actors::daemon_transport_key, transport);
  return caf::none;
}

}  // namespace shoal::runtime
