#!/bin/bash
# Builds a signed RAUC update bundle (docs/updates.md) from a root filesystem image and, for the Pi, its boot
# partition image:
#   scripts/build-bundle.sh OUT.raucb ROOT_IMAGE [BOOT_IMAGE]
#   scripts/build-bundle.sh --cert     prints the signing certificate's path (the image's keyring), making
#                                      the development pair first when there is none (see Signing)
#   scripts/build-bundle.sh --key      prints the signing key's path, the same way (scripts/release.sh signs
#                                      SHA256SUMS with it)
# Any file works as ROOT_IMAGE (the tests use a small ext4 image). The manifest carries:
#   MOAT_BUNDLE_VERSION     the version (default: package.json's)
#   MOAT_BUNDLE_COMPATIBLE  what the system must be (default: moat-rpi-arm64, system.conf's compatible)
#   BUNDLE_FORMAT           verity (default; RAUC >= 1.5) or plain (for machines without device-mapper)
# Signing: MOAT_BUNDLE_KEY and MOAT_BUNDLE_CERT (PEM paths; the project's key for a release). Without them a
# development pair is made once in MOAT_BUNDLE_KEYDIR (default dist/keys) and reused: only an image whose
# keyring holds that certificate accepts the bundle.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Sets key and cert: the project's pair from the environment, or the development pair (made once).
signing_pair() {
  key=${MOAT_BUNDLE_KEY:-} cert=${MOAT_BUNDLE_CERT:-}
  if [ -z "$key$cert" ]; then
    keydir=${MOAT_BUNDLE_KEYDIR:-$REPO/dist/keys}
    key=$keydir/dev-bundle.key.pem cert=$keydir/dev-bundle.cert.pem
    if [ ! -f "$key" ] || [ ! -f "$cert" ]; then
      log "no MOAT_BUNDLE_KEY/MOAT_BUNDLE_CERT: making a development key pair in $keydir"
      mkdir -p "$keydir" && chmod 0700 "$keydir"
      openssl req -x509 -newkey rsa:4096 -nodes -days 3650 -subj "/O=Moat development/CN=Moat dev bundle key" \
        -keyout "$key" -out "$cert" 2>/dev/null || die "openssl could not make the development key"
    fi
    log "signing with the development key $key (an image accepts it only with $cert as its keyring)"
  fi
  [ -f "$key" ] && [ -f "$cert" ] || die "MOAT_BUNDLE_KEY and MOAT_BUNDLE_CERT must both name PEM files"
}

if [ "${1:-}" = --cert ]; then signing_pair; echo "$cert"; exit 0; fi
if [ "${1:-}" = --key ]; then signing_pair; echo "$key"; exit 0; fi
[ $# -ge 2 ] && [ $# -le 3 ] || die "usage: $0 OUT.raucb ROOT_IMAGE [BOOT_IMAGE]"
out=$1 root=$2 boot=${3:-}
[ -f "$root" ] || die "no root image $root"
[ -z "$boot" ] || [ -f "$boot" ] || die "no boot image $boot"
command -v rauc >/dev/null || die "rauc is not installed (Debian package rauc)"
command -v mksquashfs >/dev/null || die "mksquashfs is not installed (Debian package squashfs-tools)"

version=${MOAT_BUNDLE_VERSION:-$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$REPO/package.json" | head -1)}
compatible=${MOAT_BUNDLE_COMPATIBLE:-moat-rpi-arm64}
format=${BUNDLE_FORMAT:-verity}
case "$format" in verity | plain) ;; *) die "BUNDLE_FORMAT must be verity or plain, not $format" ;; esac
# The manifest is an INI file: a newline or bracket in a value would start a new key or section.
for v in "$version" "$compatible"; do
  [[ $v =~ ^[A-Za-z0-9._+~-]+$ ]] || die "version and compatible may hold letters, digits and . _ + ~ - only: '$v'"
done

signing_pair

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/content"
# A hard link where the file system allows it: images are hundreds of MiB and mksquashfs reads them once anyway.
ln "$root" "$dir/content/root.ext4" 2>/dev/null || cp "$root" "$dir/content/root.ext4"
{
  printf '[update]\ncompatible=%s\nversion=%s\ndescription=Moat %s\n\n' "$compatible" "$version" "$version"
  printf '[bundle]\nformat=%s\n\n' "$format"
  printf '[image.rootfs]\nfilename=root.ext4\n'
} >"$dir/content/manifest.raucm"
if [ -n "$boot" ]; then
  ln "$boot" "$dir/content/boot.vfat" 2>/dev/null || cp "$boot" "$dir/content/boot.vfat"
  printf '\n[image.boot]\nfilename=boot.vfat\n' >>"$dir/content/manifest.raucm"
fi

rm -f "$out"
rauc bundle --cert="$cert" --key="$key" "$dir/content" "$out" >"$dir/log" 2>&1 || { cat "$dir/log" >&2; die "rauc bundle failed"; }
log "bundle $out: version $version, compatible $compatible, format $format, $(($(stat -c%s "$out") >> 10)) KiB"
