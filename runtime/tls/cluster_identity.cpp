#include "runtime/tls/cluster_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "state/file_io.hpp"

namespace shoal::runtime {

namespace {

template <class T, void (*Free)(T*)>
struct freer {
  void operator()(T* p) const { Free(p); }
};
using key_ptr = std::unique_ptr<EVP_PKEY, freer<EVP_PKEY, EVP_PKEY_free>>;
using cert_ptr = std::unique_ptr<X509, freer<X509, X509_free>>;
using bio_ptr = std::unique_ptr<BIO, freer<BIO, BIO_free_all>>;
using ext_ptr = std::unique_ptr<X509_EXTENSION, freer<X509_EXTENSION, X509_EXTENSION_free>>;

shoal::error openssl_failure(const std::string& what) {
  auto why = openssl_reason();
  return shoal::error(errc::system_error, what + ": " + (why.empty() ? "no reason given" : why));
}

bool add_extension(X509* cert, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  ext_ptr ext{X509V3_EXT_conf_nid(nullptr, &ctx, nid, value)};
  return ext && X509_add_ext(cert, ext.get(), -1) == 1;
}

shoal::expected<std::string> read_all(int fd, const std::string& path) {
  std::string text;
  char buf[4096];
  for (;;) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      return shoal::error(errc::system_error, "cannot read " + path + ": " + std::strerror(errno));
    if (n == 0) return text;
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

std::string openssl_reason() {
  std::string out;
  while (auto code = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(code, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out;
}

shoal::expected<std::string> make_cluster_identity() {
  key_ptr key{EVP_EC_gen("P-256")};
  if (!key) return openssl_failure("cannot make the cluster's TLS key");
  cert_ptr cert{X509_new()};
  if (!cert) return openssl_failure("cannot make the cluster's TLS certificate");
  unsigned char serial[8];
  if (RAND_bytes(serial, sizeof serial) != 1) return openssl_failure("no random serial number");
  serial[0] &= 0x7f;  // a positive number
  uint64_t number = 0;
  for (auto b : serial) number = number << 8 | b;
  constexpr long hundred_years = 100L * 365 * 24 * 3600;
  bool made = X509_set_version(cert.get(), 2) == 1 &&
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), number) == 1 &&
              X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) != nullptr &&
              X509_gmtime_adj(X509_getm_notAfter(cert.get()), hundred_years) != nullptr &&
              X509_set_pubkey(cert.get(), key.get()) == 1;
  auto* name = X509_get_subject_name(cert.get());
  made = made &&
         X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                    reinterpret_cast<const unsigned char*>("shoal-cluster"), -1, -1,
                                    0) == 1 &&
         X509_set_issuer_name(cert.get(), name) == 1 &&
         add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE") &&
         add_extension(cert.get(), NID_key_usage, "critical,digitalSignature,keyCertSign") &&
         X509_sign(cert.get(), key.get(), EVP_sha256()) > 0;
  if (!made) return openssl_failure("cannot make the cluster's TLS certificate");
  bio_ptr out{BIO_new(BIO_s_mem())};
  if (!out ||
      PEM_write_bio_PrivateKey(out.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) != 1 ||
      PEM_write_bio_X509(out.get(), cert.get()) != 1)
    return openssl_failure("cannot write the cluster's TLS identity");
  char* data = nullptr;
  auto size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

shoal::error check_cluster_identity(const std::string& pem) {
  bio_ptr in{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))};
  key_ptr key{in ? PEM_read_bio_PrivateKey(in.get(), nullptr, nullptr, nullptr) : nullptr};
  if (!key) {
    ERR_clear_error();
    return shoal::error(errc::invalid_config, "the cluster's TLS identity holds no private key");
  }
  bio_ptr again{BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))};
  cert_ptr cert{again ? PEM_read_bio_X509(again.get(), nullptr, nullptr, nullptr) : nullptr};
  if (!cert) {
    ERR_clear_error();
    return shoal::error(errc::invalid_config, "the cluster's TLS identity holds no certificate");
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    ERR_clear_error();
    return shoal::error(errc::invalid_config,
                        "the cluster's TLS certificate is not for the key beside it");
  }
  return {};
}

shoal::expected<std::string> load_or_create_cluster_identity(const std::string& directory) {
  if (auto err = state::make_directories(directory)) return err;
  auto path = directory + "/" + cluster_identity_file;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    auto made = make_cluster_identity();
    if (!made) return made;
    // Written whole under a name of our own, then linked into place: a primary and a backup
    // starting together over one StateSaveLocation either make it or read the other's, complete
    // (an O_EXCL create written afterwards let the other read it half-written).
    auto own = path + ".new.XXXXXX";         // mkostemp turns the Xs into a unique suffix
    fd = ::mkostemp(own.data(), O_CLOEXEC);  // mode 0600
    if (fd < 0)
      return shoal::error(errc::system_error, "cannot create " + own + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < made->size()) {
      auto n = ::write(fd, made->data() + done, made->size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        auto why = std::string{std::strerror(errno)};
        ::close(fd);
        ::unlink(own.c_str());
        return shoal::error(errc::system_error, "cannot write " + own + ": " + why);
      }
      done += static_cast<size_t>(n);
    }
    bool synced = ::fsync(fd) == 0;
    auto sync_error = std::string{std::strerror(errno)};
    ::close(fd);
    if (!synced) {
      ::unlink(own.c_str());
      return shoal::error(errc::system_error, "cannot write " + own + ": " + sync_error);
    }
    bool linked = ::link(own.c_str(), path.c_str()) == 0;
    auto link_errno = errno;
    ::unlink(own.c_str());
    if (linked) return made;
    if (link_errno != EEXIST)
      return shoal::error(errc::system_error,
                          "cannot create " + path + ": " + std::strerror(link_errno));
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);  // another controller made it first
  }
  if (fd < 0)
    return shoal::error(errc::system_error, "cannot read " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && (st.st_mode & 077) != 0) {
    ::close(fd);
    return shoal::error(errc::invalid_config,
                        path + " may be read by others than its owner (chmod 600 " + path + ")");
  }
  auto text = read_all(fd, path);
  ::close(fd);
  if (!text) return text;
  if (auto err = check_cluster_identity(*text))
    return shoal::error(errc::invalid_config, path + ": " + err.text());
  return text;
}

}  // namespace shoal::runtime
