#!/bin/bash
# Installs the Debian 12 packages shoal builds against, if any are missing. Safe to re-run.
set -euo pipefail

packages=(
  g++ make cmake ninja-build pkg-config  # toolchain
  libcaf-dev                           # C++ Actor Framework 0.17.6
  capnproto libcapnp-dev               # wire and state encoding
  libhwloc-dev                         # machine status
  libspdlog-dev libfmt-dev             # logging
  libboost-test-dev                    # tests
  libcli11-dev nlohmann-json3-dev      # CLI parsing, JSON output
  libbenchmark-dev                     # micro-benchmarks
  libcpp-httplib-dev                   # the Prometheus /metrics endpoint
  munge libmunge-dev                   # AuthType=auth/munge (the tests start a private munged)
  libssl-dev                           # the daemons' CAF port in TLS (runtime/tls)
  libpmix-dev                          # shoal-stepd's PMIx server (srun --mpi=pmix)
  iproute2                             # the network-split tests' namespaces (ip netns)
  tmux                                 # the --pty test drives a terminal through it
  openmpi-bin libopenmpi-dev           # the mpirun-inside-sbatch test (skipped without them)
  mpich libmpich-dev                   # --mpi=pmi2 tests: mpicc.mpich (Open MPI stays mpicc)
  libsqlite3-dev libpq-dev             # the accounting store: SQLite (default) and PostgreSQL
  postgresql                           # the PostgreSQL store's tests start a private server
  curl python3-jsonschema openssl      # the REST tests' clients, OpenAPI validation, a TLS cert
  openapi-specification                # the OpenAPI 3.0 JSON schema the document is checked against
  help2man dpkg-dev debootstrap        # the .deb: man pages, dependencies, its clean-root test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "shoal: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "shoal: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
