#!/bin/sh
# Installs the Debian packages Loom needs when run as root; otherwise names
# what is missing and fails.
set -e
PKGS="g++ cmake ninja-build make pkg-config libmpich-dev mpich libopenmpi-dev
openmpi-bin gfortran libgtest-dev libcli11-dev libfmt-dev nlohmann-json3-dev libxxhash-dev libhwy-dev valgrind
python3-matplotlib python3-mpi4py python3-numpy"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "installing:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
    apt-get update >/dev/null && apt-get install -y --no-install-recommends $missing >/dev/null; }
else
  echo "missing Debian packages:$missing" >&2
  echo "run: sudo apt-get install$missing" >&2
  exit 1
fi
