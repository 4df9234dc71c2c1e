#!/bin/bash
# Puts a release's files into dist/ (README "Checking a download"), run as root from a checkout:
#   moat-<v>-linux-x64, moat-<v>-linux-arm64     the binaries (scripts/build-container.sh makes them)
#   moat_<v>_amd64.deb, moat_<v>_arm64.deb       the packages (scripts/build-deb.sh, where the checkout has it)
#   moat-<v>-oci.tar                             the container image, amd64 and arm64 (scripts/build-container.sh)
#   moat-<v>-arm64.img.xz, moat-<v>-arm64.raucb  the Raspberry Pi image and its update bundle (scripts/build-image.sh,
#                                                20+ minutes: MOAT_RELEASE_IMAGE=0 leaves them out)
#   moat-<v>.cdx.json                            the CycloneDX SBOM of the npm packages inside the binary, and Bun
#   SHA256SUMS, SHA256SUMS.sig                   the sums of all the above, signed with the release key
#   moat-release.cert.pem                        the certificate of that key (compare it with the published one)
# The release key is the update bundle's (scripts/build-bundle.sh: MOAT_BUNDLE_KEY, a PEM file or pkcs11: URI of a key
# on a token, and MOAT_BUNDLE_CERT, else the development pair in /var/tmp/moat-image/dev-keys). A published release is made with
# MOAT_RELEASE=1, which refuses to sign with the development key. No armhf file: Bun runs on 64-bit ARM only, so a 32-bit Raspberry Pi OS
# (and a Pi Zero W, ARMv6) cannot run Moat.
set -euo pipefail
. "$(dirname "$0")/image-lib/common.sh"

[ "$(id -u)" = 0 ] || die "run as root (the container and the Pi image need it)"
command -v openssl >/dev/null || die "openssl is missing (Debian package openssl)"
project_deps
mkdir -p "$DIST"
files=()

log "container image and binaries"
bash "$REPO/scripts/build-container.sh"
files+=("moat-$VERSION-linux-x64" "moat-$VERSION-linux-arm64" "moat-$VERSION-oci.tar")

if [ -f "$REPO/scripts/build-deb.sh" ]; then
  log "Debian packages"
  rm -f "$DIST/moat_${VERSION}_"*.deb
  bash "$REPO/scripts/build-deb.sh"
  for deb in "$DIST/moat_${VERSION}_"*.deb; do [ -f "$deb" ] && files+=("$(basename "$deb")"); done
else
  log "no scripts/build-deb.sh in this checkout: no .deb"
fi

if [ "${MOAT_RELEASE_IMAGE:-1}" = 0 ]; then
  log "MOAT_RELEASE_IMAGE=0: no Raspberry Pi image or update bundle"
else
  log "Raspberry Pi image and update bundle"
  bash "$REPO/scripts/build-image.sh"
  files+=("moat-$VERSION-arm64.img.xz" "moat-$VERSION-arm64.raucb")
fi

log "SBOM"
# The lock file's production packages (what `bun build` bundles), plus the Bun runtime the binary embeds.
sbom=moat-$VERSION.cdx.json
(cd "$REPO" && npm sbom --sbom-format cyclonedx --omit dev --package-lock-only) >"$DIST/$sbom.part"
"$BUN" -e '
  const [file, version] = process.argv.slice(1);
  const bom = JSON.parse(await Bun.file(file).text());
  bom.components.push({ type: "application", name: "bun", version, purl: `pkg:npm/bun@${version}`, "bom-ref": `bun@${version}` });
  await Bun.write(file, JSON.stringify(bom, null, 2) + "\n");
' "$DIST/$sbom.part" "$("$BUN" --version)"
mv "$DIST/$sbom.part" "$DIST/$sbom"
files+=("$sbom")

log "SHA256SUMS and its signature"
for f in "${files[@]}"; do [ -f "$DIST/$f" ] || die "$f was not made"; done
(cd "$DIST" && sha256sum "${files[@]}") >"$DIST/SHA256SUMS"
bash "$REPO/scripts/build-bundle.sh" --sign "$DIST/SHA256SUMS"   # SHA256SUMS.sig, with a PEM key or through a token
cert=$(bash "$REPO/scripts/build-bundle.sh" --cert)
cp "$cert" "$DIST/moat-release.cert.pem"
openssl dgst -sha256 -verify <(openssl x509 -in "$DIST/moat-release.cert.pem" -pubkey -noout) \
  -signature "$DIST/SHA256SUMS.sig" "$DIST/SHA256SUMS" >/dev/null || die "the signature does not verify"
log "release $VERSION in $DIST: ${files[*]} SHA256SUMS SHA256SUMS.sig moat-release.cert.pem (no armhf: Bun needs 64-bit)"
