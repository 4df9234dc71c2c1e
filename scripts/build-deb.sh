#!/usr/bin/env bash
# scripts/build-deb.sh [amd64] [arm64]: dist/moat_<version>_<arch>.deb, both architectures when none is named.
# The package: the compiled binary (/usr/bin/moat), the Pi image's systemd unit as it is (the one source of
# the unit: image/rootfs/etc/systemd/system/moat.service), the maintainer scripts of scripts/deb/ (user moat,
# /etc/moat kept on remove and purged on purge, the port check), and what lintian asks of a package.
# MOAT_BINARY_amd64 / MOAT_BINARY_arm64: use that binary instead of compiling one. MOAT_DIST: where the
# packages go (default dist/). MOAT_DEB_COMPRESSION: xz (default; about 2 CPU-minutes a package) or gzip, and
# MOAT_DEB_LEVEL its level (the tests: gzip at 1, seconds); lintian refuses an uncompressed package.
set -euo pipefail
source "$(dirname "$0")/image-lib/common.sh"
DEB_DIR="$REPO/scripts/deb"
OUT=${MOAT_DIST:-$DIST}

archs=("$@")
[ ${#archs[@]} -gt 0 ] || archs=(amd64 arm64)
for a in "${archs[@]}"; do
  case $a in amd64 | arm64) ;; *) die "Moat is built for amd64 and arm64 only (Bun does not run on $a)" ;; esac
done
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing (apt-get install dpkg)"
project_deps

commit=$(git -C "$REPO" rev-parse --short=8 HEAD 2>/dev/null || echo unknown)
date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || date -u -d @0 +%FT%TZ)
# file times and the changelog's date are the commit's: two builds of one commit give the same package
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(date -d "$date" +%s)}

binary_for() {
  local arch=$1 out=$2 given
  given=$(eval "echo \${MOAT_BINARY_$arch:-}")
  if [ -n "$given" ]; then
    log "$arch: using $given"
    install -m 0755 "$given" "$out"
  elif [ "$arch" = amd64 ]; then
    "$BUN" "$REPO/scripts/build.ts" --target=bun-linux-x64 --outfile "$out" >&2
  else
    compile_moat_arm64 "$out" "--define=MOAT_BUILD_COMMIT=\"$commit\"" "--define=MOAT_BUILD_DATE=\"$date\""
  fi
}

stage=""
trap '[ -z "$stage" ] || rm -rf "$stage"' EXIT

build_one() {
  local arch=$1 doc
  stage=$(mktemp -d "${TMPDIR:-/tmp}/moat-deb.XXXXXX")
  doc="$stage/usr/share/doc/moat"
  install -d "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/lib/systemd/system" "$doc" "$stage/usr/share/lintian/overrides"
  binary_for "$arch" "$stage/usr/bin/moat"
  install -m 0644 "$IMAGE_DIR/rootfs/etc/systemd/system/moat.service" "$stage/usr/lib/systemd/system/moat.service"
  install -m 0644 "$DEB_DIR/copyright" "$doc/copyright"
  install -m 0644 "$DEB_DIR/lintian-overrides" "$stage/usr/share/lintian/overrides/moat"
  {
    echo "moat ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Moat $VERSION, built from commit $commit."
    echo
    echo " -- Moat maintainers <maintainers@users.noreply.github.com>  $(date -u -R -d "@$SOURCE_DATE_EPOCH")"
  } | gzip -9n >"$doc/changelog.gz"
  chmod 0644 "$doc/changelog.gz"
  for s in postinst prerm postrm; do install -m 0755 "$DEB_DIR/$s" "$stage/DEBIAN/$s"; done
  sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$stage" | cut -f1)/" \
    "$DEB_DIR/control.in" >"$stage/DEBIAN/control"
  (cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
  chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
  find "$stage" -type d -exec chmod 0755 {} +
  find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  mkdir -p "$OUT"
  local deb="$OUT/moat_${VERSION}_${arch}.deb"
  dpkg-deb --root-owner-group "-Z${MOAT_DEB_COMPRESSION:-xz}" ${MOAT_DEB_LEVEL:+"-z$MOAT_DEB_LEVEL"} --build "$stage" "$deb" >/dev/null
  rm -rf "$stage"
  stage=""
  log "$deb: $(du -h "$deb" | cut -f1)"
}

for a in "${archs[@]}"; do build_one "$a"; done
