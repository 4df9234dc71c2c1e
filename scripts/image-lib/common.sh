# Shared settings of build-image.sh and test-image.sh (sourced, not run).
# Fixed identifiers make two builds of the same inputs byte-identical apart from package versions.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
IMAGE_DIR="$REPO/image"
DIST="$REPO/dist"
# Scratch space outside the checkout (bun test and tsc must not walk a Debian root); the base root is cached here.
WORK=${MOAT_IMAGE_WORK:-/var/tmp/moat-image}
SUITE=trixie
MIRROR=http://deb.debian.org/debian
SECURITY_MIRROR=http://deb.debian.org/debian-security

# Partition layout (MBR: every Pi boots from it; docs/updates.md "Slot layout"): 1 MOAT (FAT: Pi firmware,
# config.txt, U-Boot, boot.scr, the boot counters, moat-settings.txt) | 2 boot A | 3 boot B (FAT: kernel,
# initrd, cmdline.txt) | 4 extended: 5 root A | 6 root B (ext4) | 7 data (ext4, /etc/moat, grown on first boot).
DISK_ID=0x6d6f6174                  # "moat"; partitions are PARTUUID=6d6f6174-01 ... -07
MOAT_MB=64                          # partition 1: firmware, device trees, U-Boot (about 12 MiB) and room for new ones
BOOT_ENV_SIZE=0x4000                # each copy of the boot counters (boot.cmd's moat_env_size, /etc/fw_env.config)
BOOT_MB=256                         # each boot slot
DATA_MB=64                          # grown to the rest of the card on first boot
ROOT_HEADROOM_MB=160                # free space in the root partition
MOAT_VOLID=6d6f6174
BOOT_VOLID=6d6f0b00                 # both boot slots: a bundle writes the same image into either
ROOT_UUID=5b1f3a3e-6d6f-4174-8000-726f6f746673
DATA_UUID=5b1f3a3e-6d6f-4174-8000-646174613030
HASH_SEED=5b1f3a3e-6d6f-4174-8000-000000000000

VERSION=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$REPO/package.json" | head -1)
IMAGE_NAME="moat-$VERSION-arm64"
BUN="$REPO/node_modules/.bin/bun"

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# The project's own dependencies (bun, playwright-core), as a fresh clone has none: npm ci installs exactly
# the lock file (and Debian's nodejs and npm first when the machine has no npm).
project_deps() {
  [ -x "$BUN" ] && [ -d "$REPO/node_modules/playwright-core" ] && return 0
  command -v npm >/dev/null || { apt-get -o DPkg::Lock::Timeout=600 update -qq; DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends nodejs npm >/dev/null; }
  log "project dependencies: npm ci"
  (cd "$REPO" && npm ci --no-audit --no-fund --loglevel=error) >&2
  [ -x "$BUN" ] || die "npm ci did not install $BUN"
}

# Cross-compiles Moat for the image: compile_moat_arm64 OUT [bun build options, e.g. --define=MOAT_BUILD_VERSION=…].
# The runtime comes from the npm registry once, pinned to node_modules/bun's version, and is cached in $WORK.
compile_moat_arm64() {
  local out=$1; shift
  local bun_version runtime
  bun_version=$("$BUN" --version)
  runtime="$WORK/bun-linux-aarch64-$bun_version"
  if [ ! -x "$runtime/package/bin/bun" ]; then
    mkdir -p "$runtime"
    (cd "$runtime" && npm pack --silent "@oven/bun-linux-aarch64@$bun_version" >/dev/null && tar xzf oven-bun-linux-aarch64-*.tgz)
  fi
  # Workers are extra entry points, or the compiled binary cannot start them.
  (cd "$REPO" && "$BUN" build --compile --minify --target=bun-linux-arm64 "$@" \
     --compile-executable-path "$runtime/package/bin/bun" src/main.ts $(find src -name "*worker.ts" | sort) --outfile "$out") >&2
}
