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

# Partition layout (MBR: every Pi boots from it): boot (FAT32) | root (ext4) | data (ext4, /etc/moat, grown on first boot)
DISK_ID=0x6d6f6174                  # "moat"; partitions are PARTUUID=6d6f6174-01/02/03
BOOT_MB=256
DATA_MB=64                          # grown to the rest of the card on first boot
ROOT_HEADROOM_MB=160                # free space in the root partition
BOOT_VOLID=6d6f6174
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
  command -v npm >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null; }
  log "project dependencies: npm ci"
  (cd "$REPO" && npm ci --no-audit --no-fund --loglevel=error) >&2
  [ -x "$BUN" ] || die "npm ci did not install $BUN"
}
