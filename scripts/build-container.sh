#!/bin/bash
# Builds the container image: dist/moat-<version>-oci.tar, an OCI archive holding the linux/amd64 and
# linux/arm64 images under one index (`podman load -i`, `docker load -i`; README "The container").
# No base image is pulled: each root is made of a few Debian packages unpacked with dpkg-deb (no maintainer
# scripts run) and the compiled Moat binary, which holds cap_net_bind_service as a file capability so the
# unprivileged user binds ports 53, 80, 443 and 853. As a by-product dist/ gets the two binaries,
# moat-<version>-linux-x64 and moat-<version>-linux-arm64 (scripts/release.sh ships them).
#   MOAT_CONTAINER_ARCHES   which images (default "amd64 arm64")
#   MOAT_IMAGE_WORK         scratch directory (default /var/tmp/moat-image; the packages are cached there)
set -euo pipefail
. "$(dirname "$0")/image-lib/common.sh"

ARCHES=${MOAT_CONTAINER_ARCHES:-amd64 arm64}
CWORK=$WORK/container
OUT=$DIST/moat-$VERSION-oci.tar
# What the root holds besides Moat: the C library Bun links against, the time zones (TZ), the CA
# certificates (HTTPS upstreams and list downloads), /etc/services and /etc/protocols, /etc/os-release.
PACKAGES="libc6 tzdata ca-certificates netbase base-files"
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 0)}

for tool in apt-get dpkg-deb setcap gzip sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing (Debian packages apt, dpkg, libcap2-bin, gzip, coreutils)"
done
[ "$(id -u)" = 0 ] || die "run as root: the layer's files belong to root and to the moat user (uid 1000)"
project_deps
mkdir -p "$CWORK" "$DIST"
# one build at a time: two (two test runs, a release beside a test) would unpack into the same roots
exec 9>"$CWORK/lock"
flock 9

bun_arch() { case $1 in amd64) echo x64 ;; arm64) echo arm64 ;; *) die "no Bun for $1 (amd64 and arm64 only)" ;; esac; }

# The binaries, with the commit and date that scripts/build.ts stamps (src/core/version.ts).
commit=$(git -C "$REPO" rev-parse --short=8 HEAD 2>/dev/null || echo unknown)
date=$(git -C "$REPO" log -1 --format=%cI 2>/dev/null || date -u -d "@0" +%FT%TZ)
build_binary() {
  local arch=$1 out=$DIST/moat-$VERSION-linux-$(bun_arch "$1")
  log "moat binary ($arch) -> $out"
  if [ "$arch" = amd64 ]; then (cd "$REPO" && "$BUN" scripts/build.ts --outfile "$out") >&2
  else compile_moat_arm64 "$out" "--define=MOAT_BUILD_COMMIT=\"$commit\"" "--define=MOAT_BUILD_DATE=\"$date\""
  fi
}

# Debian's packages for one architecture through a private apt state (the machine's own is untouched).
fetch_packages() {
  local arch=$1 dir=$CWORK/apt-$arch
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' "$MIRROR" "$SUITE" "$MIRROR" "$SUITE-updates" \
    >"$dir/sources.list"
  printf 'deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s-security main\n' "$SECURITY_MIRROR" "$SUITE" >>"$dir/sources.list"
  : >"$dir/status"
  APT=(apt-get -qq -o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/lists" -o "Dir::State::status=$dir/status" -o "Dir::Cache=$dir/cache"
    -o "APT::Architecture=$arch" -o "APT::Architectures=$arch" -o APT::Sandbox::User=root)
  # a day-old index is good enough; a new one is fetched after that
  if [ -z "$(find "$dir/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
    log "Debian $SUITE package index ($arch)"
    "${APT[@]}" update >&2 || die "apt-get update for $arch failed (is $MIRROR reachable?)"
  fi
  rm -f "$dir/debs"/*.deb
  (cd "$dir/debs" && "${APT[@]}" download $(printf "%s:$arch " $PACKAGES)) >&2 || die "apt-get download for $arch failed"
}

# The root of one image: the packages, the accounts, the mount points, Moat.
make_root() {
  local arch=$1 root=$CWORK/root-$arch bin=$DIST/moat-$VERSION-linux-$(bun_arch "$1")
  rm -rf "$root" && mkdir -p "$root"
  for deb in "$CWORK/apt-$arch/debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  # merged /usr, as Debian's base-files makes it at installation
  for d in bin sbin lib; do [ -L "$root/$d" ] || { mkdir -p "$root/usr/$d"; ln -sfn "usr/$d" "$root/$d"; }; done
  [ "$arch" = amd64 ] && [ ! -e "$root/lib64" ] && ln -sfn usr/lib64 "$root/lib64"
  # Documentation, manual pages, translations and iconv's modules: nothing here reads them.
  rm -rf "$root/usr/share/doc" "$root/usr/share/man" "$root/usr/share/info" "$root/usr/share/locale" \
    "$root/usr/share/lintian" "$root/usr/share/common-licenses" "$root/usr/lib/"*-linux-gnu/gconv
  # ca-certificates' maintainer script would write the bundle: the same from its certificates
  mkdir -p "$root/etc/ssl/certs"
  find "$root/usr/share/ca-certificates" -name '*.crt' | sort | xargs cat >"$root/etc/ssl/certs/ca-certificates.crt"
  [ -s "$root/etc/ssl/certs/ca-certificates.crt" ] || die "no CA certificates in ca-certificates ($arch)"
  ln -sfn /usr/share/zoneinfo/Etc/UTC "$root/etc/localtime"
  # uid and gid 1000: the owner of an existing Pi-hole v6 volume (its image's pihole user)
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nmoat:x:1000:1000:Moat:/etc/pihole:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nmoat:x:1000:\n' >"$root/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$root/etc/nsswitch.conf"
  : >"$root/etc/hosts" && : >"$root/etc/resolv.conf" && : >"$root/etc/hostname"
  install -d -m 1777 "$root/tmp" && install -d -m 0755 "$root/run" "$root/root" "$root/dev" "$root/proc" "$root/sys"
  install -d -m 0750 -o 1000 -g 1000 "$root/etc/pihole"
  # `moat password` and the other commands find the data without --data-dir
  ln -sfn pihole "$root/etc/moat"
  install -d "$root/usr/share/moat"
  install -m 0644 "$REPO/image/container/pihole.toml" "$root/usr/share/moat/pihole.toml"
  install -m 0755 "$bin" "$root/usr/bin/moat"
  setcap cap_net_bind_service=+ep "$root/usr/bin/moat"
  find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
}

# The layer: a reproducible tar (sorted names, fixed times, numeric owners) that carries the file
# capability as a PAX xattr record, which Docker and podman restore when they unpack it.
make_layer() {
  local arch=$1 root=$CWORK/root-$arch layer=$CWORK/layer-$arch.tar
  (cd "$root" && tar --create --format=pax --sort=name --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    --xattrs --xattrs-include=security.capability --file "$layer" .)
  sha256sum "$layer" | cut -d' ' -f1 >"$layer.diffid"
  gzip -n -6 -f -k "$layer"
}

for arch in $ARCHES; do
  bun_arch "$arch" >/dev/null
  build_binary "$arch"
  fetch_packages "$arch"
  # the layer is made again only when what goes into it changed (the tests build the image more than once)
  key=$(cat "$DIST/moat-$VERSION-linux-$(bun_arch "$arch")" "$CWORK/apt-$arch/debs"/*.deb "$REPO/image/container/"* \
    "$REPO/scripts/build-container.sh" | sha256sum | cut -d' ' -f1)
  if [ -f "$CWORK/layer-$arch.tar.gz" ] && [ "$(cat "$CWORK/layer-$arch.key" 2>/dev/null)" = "$key" ]; then
    log "root and layer ($arch): unchanged"
  else
    log "root and layer ($arch)"
    make_root "$arch"
    make_layer "$arch"
    echo "$key" >"$CWORK/layer-$arch.key"
  fi
done

log "OCI layout -> $OUT"
layout=$CWORK/layout
rm -rf "$layout"
args=()
for arch in $ARCHES; do args+=("$arch=$CWORK/layer-$arch.tar.gz=$(cat "$CWORK/layer-$arch.tar.diffid")"); done
"$BUN" "$REPO/scripts/image-lib/oci-layout.ts" "$layout" "$VERSION" "${args[@]}"
find "$layout" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$layout" && tar --create --sort=name --numeric-owner --owner=0 --group=0 --mtime="@$SOURCE_DATE_EPOCH" \
  --file "$OUT.part" oci-layout index.json blobs) && mv "$OUT.part" "$OUT"
for arch in $ARCHES; do log "  linux/$arch: $(($(stat -c%s "$CWORK/layer-$arch.tar.gz") >> 20)) MiB compressed"; done
log "image $OUT ($(($(stat -c%s "$OUT") >> 20)) MiB): podman load -i $OUT"
