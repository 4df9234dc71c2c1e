#!/bin/bash
# Builds a signed RAUC update bundle (docs/updates.md) from a root filesystem image and, for the Pi, its boot
# partition image:
#   scripts/build-bundle.sh OUT.raucb ROOT_IMAGE [BOOT_IMAGE]
#   scripts/build-bundle.sh --cert     prints the signing certificate's path, making the development pair
#                                      first when there is none (see Signing)
#   scripts/build-bundle.sh --key      prints the signing key's path or PKCS#11 URI, the same way
#   scripts/build-bundle.sh --sign FILE  signs FILE with that key into FILE.sig (openssl dgst -sha256; with a
#                                      pkcs11: URI through the token: scripts/release.sh signs SHA256SUMS so)
#   scripts/build-bundle.sh --keyring  prints the image's keyring: the signing certificate, then the next
#                                      key's (MOAT_BUNDLE_NEXT_CERT), so that images made now accept bundles
#                                      signed after the key is rotated
# Any file works as ROOT_IMAGE (the tests use a small ext4 image). The manifest carries:
#   MOAT_BUNDLE_VERSION     the version (default: package.json's)
#   MOAT_BUNDLE_COMPATIBLE  what the system must be (default: moat-rpi-arm64, system.conf's compatible)
#   BUNDLE_FORMAT           verity (default; RAUC >= 1.5) or plain (for machines without device-mapper)
# Signing (docs/updates.md, "Keys"):
#   MOAT_BUNDLE_KEY         the release key: a PEM file or a PKCS#11 URI (RFC 7512, pkcs11:token=…;object=…), so
#                           the key itself stays on a token, off the build machine. RAUC and openssl reach the
#                           token through OpenSSL's pkcs11 engine (Debian's libengine-pkcs11-openssl, libp11),
#                           which loads p11-kit's proxy and so every module p11-kit knows (softhsm2, opensc),
#                           or RAUC_PKCS11_MODULE's; the PIN from the URI's pin-value= (both) or
#                           RAUC_PKCS11_PIN (RAUC)
#   MOAT_BUNDLE_CERT        its certificate (PEM), valid from before the image's clock floor (SOURCE_DATE_EPOCH:
#                           a Pi without a clock battery starts there until NTP answers)
#   MOAT_BUNDLE_NEXT_CERT   the next key's certificate, added to the keyring (rotation)
#   MOAT_RELEASE=1          a release build: refuses to run without MOAT_BUNDLE_KEY/MOAT_BUNDLE_CERT, and
#                           refuses the development certificate
# Without them a development pair is made once in MOAT_BUNDLE_KEYDIR (default /var/tmp/moat-image/dev-keys,
# outside dist/ so that nothing copies it beside a release) as dev-only-bundle.{key,cert}.pem, and reused:
# only an image whose keyring holds that certificate accepts the bundle. Its certificate is valid from
# 2020-01-01, before any image's clock floor.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

DEV_SUBJECT="/O=Moat development, not for releases/CN=Moat dev-only bundle key"
DEV_START=20200101000000Z

# A self-signed certificate valid from DEV_START for ten years (openssl req sets "now" as its start, later
# than an image's clock floor; openssl ca can set it).
dev_pair() { # key cert
  local d; d=$(mktemp -d)
  mkdir "$d/new" && : >"$d/index.txt" && echo 01 >"$d/serial"
  printf '[ca]\ndefault_ca=dev\n[dev]\ndir=%s\ndatabase=$dir/index.txt\nnew_certs_dir=$dir/new\nserial=$dir/serial\ndefault_md=sha256\npolicy=any\nunique_subject=no\nx509_extensions=ext\n[any]\norganizationName=supplied\ncommonName=supplied\n[ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nsubjectKeyIdentifier=hash\n' "$d" >"$d/ca.cnf"
  openssl req -new -newkey rsa:4096 -nodes -subj "$DEV_SUBJECT" -keyout "$1" -out "$d/req.pem" 2>/dev/null &&
    openssl ca -batch -selfsign -config "$d/ca.cnf" -keyfile "$1" -in "$d/req.pem" -out "$2" \
      -startdate "$DEV_START" -enddate 20400101000000Z -notext 2>"$d/log" || { cat "$d/log" >&2; rm -rf "$d"; return 1; }
  rm -rf "$d"
}

# Sets key and cert: the project's pair from the environment, or the development pair (made once).
signing_pair() {
  key=${MOAT_BUNDLE_KEY:-} cert=${MOAT_BUNDLE_CERT:-}
  if [ -z "$key$cert" ]; then
    [ "${MOAT_RELEASE:-0}" != 1 ] || die "a release (MOAT_RELEASE=1) is signed with the release key: set MOAT_BUNDLE_KEY and MOAT_BUNDLE_CERT (docs/updates.md, Keys)"
    keydir=${MOAT_BUNDLE_KEYDIR:-${MOAT_IMAGE_WORK:-/var/tmp/moat-image}/dev-keys}
    key=$keydir/dev-only-bundle.key.pem cert=$keydir/dev-only-bundle.cert.pem
    if [ ! -f "$key" ] || [ ! -f "$cert" ]; then
      log "no MOAT_BUNDLE_KEY/MOAT_BUNDLE_CERT: making a development key pair in $keydir"
      mkdir -p "$keydir" && chmod 0700 "$keydir"
      dev_pair "$key" "$cert" || die "openssl could not make the development key"
    fi
    log "signing with the development key $key (an image accepts it only with $cert in its keyring; never a release)"
  fi
  [[ $key == pkcs11:* ]] || [ -f "$key" ] || die "MOAT_BUNDLE_KEY must name a PEM file or a pkcs11: URI"
  [ -f "$cert" ] || die "MOAT_BUNDLE_CERT must name a PEM file"
  if [ "${MOAT_RELEASE:-0}" = 1 ] && openssl x509 -noout -subject -in "$cert" | grep -q "Moat development"; then
    die "a release is never signed with the development key ($cert)"
  fi
  return 0
}

if [ "${1:-}" = --keyring ]; then
  signing_pair
  cat "$cert"
  if [ -n "${MOAT_BUNDLE_NEXT_CERT:-}" ]; then
    [ -f "$MOAT_BUNDLE_NEXT_CERT" ] || die "MOAT_BUNDLE_NEXT_CERT must name a PEM file"
    cat "$MOAT_BUNDLE_NEXT_CERT"
  fi
  exit 0
fi
if [ "${1:-}" = --cert ]; then signing_pair; echo "$cert"; exit 0; fi
if [ "${1:-}" = --key ]; then signing_pair; echo "$key"; exit 0; fi
if [ "${1:-}" = --sign ]; then
  [ $# = 2 ] && [ -f "$2" ] || die "usage: $0 --sign FILE"
  signing_pair
  engine=()
  if [[ $key == pkcs11:* ]]; then
    [ -n "${RAUC_PKCS11_MODULE:-}" ] && export PKCS11_MODULE_PATH=$RAUC_PKCS11_MODULE
    engine=(-engine pkcs11 -keyform engine)
  fi
  openssl dgst -sha256 "${engine[@]}" -sign "$key" -out "$2.sig" "$2" >/dev/null 2>"$2.sig.log" ||
    { cat "$2.sig.log" >&2; rm -f "$2.sig" "$2.sig.log"; die "openssl could not sign $2 with $key"; }
  rm -f "$2.sig.log"
  exit 0
fi
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
