#!/bin/bash
# The Debian package in a clean Debian 12 root (issue 38): CPack makes the .deb from this build,
# debootstrap makes a minimal bookworm root from Debian's packages, `apt-get install ./shoal_*.deb`
# installs it there with its dependencies, and the commands of the installed systemd units start a
# one-host cluster (munged, shoalctld, shoald, shoalrestd) that runs a job through sbatch's name.
#
# Usage: clean_root_test.sh BUILD_DIR. Needs root (chroot, namespaces) and a Debian mirror;
# exits 77 (ctest's skip) with the reason when either is missing. SHOAL_DEBIAN_MIRROR picks the
# mirror (default: deb.debian.org).
set -euo pipefail

build=$(realpath "$1")
mirror=${SHOAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
skip() {
  echo "SKIPPED: $*"
  exit 77
}
[ "$(id -u)" -eq 0 ] || skip "needs root for chroot and mount namespaces"
command -v debootstrap >/dev/null || skip "debootstrap is not installed (scripts/install-deps.sh)"
command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
# Reaching the mirror is the precondition; anything after it that fails is the test failing.
if ! timeout 20 bash -c "exec 3<>/dev/tcp/$(echo "$mirror" | sed -E 's#^[a-z]+://([^/:]+).*#\1#')/80" \
  2>/dev/null; then
  skip "the Debian mirror $mirror does not answer"
fi

work=$(mktemp -d /var/tmp/shoal-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root

echo "== the package, from $build"
cpack --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; exit 1; }
deb=$(ls "$work"/pkg/shoal_*.deb)
dpkg-deb -I "$deb" | grep -E '^ (Package|Version|Depends):'

echo "== a clean bookworm root (debootstrap --variant=minbase)"
# SHOAL_DEBOOTSTRAP_TARBALL (from `debootstrap --make-tarball`) spares a developer the download.
debootstrap --variant=minbase ${SHOAL_DEBOOTSTRAP_TARBALL:+--unpack-tarball="$SHOAL_DEBOOTSTRAP_TARBALL"} \
  bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -20 "$work/debootstrap.log"; exit 1; }
cp "$deb" "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# Mounts in a namespace of their own: gone when it ends, whatever happens here.
in_root() {
  unshare --mount --propagation private bash -euo pipefail -c '
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/run"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
      DEBIAN_FRONTEND=noninteractive bash -euo pipefail -c "$1"' in_root "$root" "$1"
}

echo "== apt-get install ./$(basename "$deb")"
in_root "apt-get update -qq && apt-get install -y -qq --no-install-recommends /tmp/$(basename "$deb")" \
  >"$work/apt.log" 2>&1 || { tail -30 "$work/apt.log"; exit 1; }

echo "== what the package put in place"
in_root '
  for f in /usr/bin/shoal /usr/bin/shoalctld /usr/bin/shoald /usr/bin/shoalrestd /usr/bin/shoal-stepd \
           /usr/lib/systemd/system/shoalctld.service /usr/lib/systemd/system/shoald.service \
           /usr/lib/systemd/system/shoalrestd.service /usr/share/man/man1/shoal.1.gz \
           /usr/share/man/man8/shoalctld.8.gz /usr/share/man/man8/shoald.8.gz \
           /usr/share/man/man8/shoalrestd.8.gz /etc/shoal/shoal.conf; do
    [ -e "$f" ] || { echo "missing: $f"; exit 1; }
  done
  [ "$(readlink -f /usr/lib/shoal/slurm-names/sbatch)" = /usr/bin/shoal ] || { echo "sbatch link"; exit 1; }
  host=$(uname -n | cut -d. -f1)
  grep -qx "NodeName=$host NodeAddr=127.0.0.1" /etc/shoal/shoal.conf || { echo "no node $host"; exit 1; }
  shoalctld --check -f /etc/shoal/shoal.conf
  echo "files, links, man pages and /etc/shoal/shoal.conf for node $host: present"'

# The REST daemon needs the JWT key; a site uncomments the line the default config carries.
sed -i 's/^#AuthAltTypes=auth\/jwt/AuthAltTypes=auth\/jwt/' "$root/etc/shoal/shoal.conf"

echo "== the units' commands, in a network and process namespace of the test's own"
# Each unit's ExecStartPre/ExecStart line, run as systemd would (bare names found on PATH;
# DynamicUser's stranger is nobody here). Ports 6817, 6818 and 6820 are the defaults: the
# namespace keeps them from any other cluster on the host.
unit_command() {
  sed -n "s/^$2=//p" "$root/usr/lib/systemd/system/$1" | sed 's/\$SHOALRESTD_OPTIONS //; s/\$SHOALRESTD_LISTEN/127.0.0.1:6820/'
}
ctld_check=$(unit_command shoalctld.service ExecStartPre)
ctld=$(unit_command shoalctld.service ExecStart)
shoald=$(unit_command shoald.service ExecStart)
restd=$(unit_command shoalrestd.service ExecStart)
[ -n "$ctld" ] && [ -n "$shoald" ] && [ -n "$restd" ] || { echo "a unit has no ExecStart"; exit 1; }

in_root_isolated() {
  unshare --mount --propagation private --net --pid --fork bash -euo pipefail -c '
    root=$1; shift
    ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    mount -t tmpfs tmpfs "$root/run"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/lib/shoal/slurm-names:/usr/sbin:/usr/bin:/sbin:/bin \
      HOME=/root bash -euo pipefail -c "$1"' in_root "$root" "$1"
}

in_root_isolated "
  mkdir -p /run/munge && chown munge:munge /run/munge
  [ -e /etc/munge/munge.key ] || { echo 'the munge package made no key'; exit 1; }
  chroot --userspec=munge:munge / /usr/sbin/munged
  $ctld_check
  $ctld >/var/log/shoalctld.log 2>&1 &
  $shoald >/var/log/shoald.log 2>&1 &
  host=\$(uname -n | cut -d. -f1)
  for i in \$(seq 1 100); do
    sinfo -h -N -o '%N %t' 2>/dev/null | grep -q \"^\$host idle\" && break
    sleep 0.2
  done
  sinfo
  id=\$(sbatch --parsable -o /tmp/job.out --wrap 'echo ran on \$(hostname -s) as \$(id -un)')
  for i in \$(seq 1 150); do
    state=\$(sacct -n -X -j \$id -o State 2>/dev/null | tr -d ' ')
    [ \"\$state\" = COMPLETED ] && break
    sleep 0.2
  done
  squeue; sacct -j \$id -o JobID,JobName,State,ExitCode
  [ \"\$state\" = COMPLETED ] || { echo \"job \$id: \$state\"; tail -20 /var/log/shoal*.log; exit 1; }
  grep -q 'ran on' /tmp/job.out || { echo 'no output'; cat /tmp/job.out; exit 1; }
  cat /tmp/job.out

  chroot --userspec=nobody:nogroup / $restd >/var/log/shoalrestd.log 2>&1 &
  token=\$(shoal control token lifespan=120 | sed -n 's/^SLURM_JWT=//p')
  [ -n \"\$token\" ] || { echo 'no token'; exit 1; }
  for i in \$(seq 1 50); do
    (exec 3<>/dev/tcp/127.0.0.1/6820) 2>/dev/null && break
    sleep 0.2
  done
  exec 3<>/dev/tcp/127.0.0.1/6820
  printf 'GET /slurm/v0.0.41/ping HTTP/1.0\r\nX-SLURM-USER-TOKEN: %s\r\n\r\n' \"\$token\" >&3
  answer=\$(cat <&3)
  echo \"\$answer\" | head -1
  echo \"\$answer\" | grep -q '\"pinged\": *\"UP\"' || { echo \"\$answer\"; tail /var/log/shoalrestd.log; exit 1; }
  echo 'shoalrestd (as nobody) answered ping with the token shoal control token made'
"
echo "PASSED: installed in a clean root, the units' commands started a cluster, a job ran"
