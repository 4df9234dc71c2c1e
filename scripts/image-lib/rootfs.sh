# The base root filesystem: Debian packages only (kernel, firmware, initramfs), built once per package list
# with mmdebstrap under qemu-user emulation and cached under $WORK/base-<hash>.
# Sourced by build-image.sh; sets BASE_ROOT.

build_base_root() {
  local key
  key=$(cat "$IMAGE_DIR/packages.txt" "$IMAGE_DIR"/initramfs/* "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)
  BASE_ROOT="$WORK/base-$key"
  if [ -f "$BASE_ROOT.done" ]; then log "base root: cached ($BASE_ROOT)"; return; fi
  rm -rf "$BASE_ROOT" && mkdir -p "$BASE_ROOT"
  local pkgs
  pkgs=$(sed 's/#.*//' "$IMAGE_DIR/packages.txt" | xargs | tr ' ' ',')
  log "base root: mmdebstrap $SUITE arm64 (several minutes under emulation)"
  # The initramfs settings go in before the kernel is installed, so the initrd is built once, small.
  # Documentation, man pages and locales are never unpacked (copyright files are kept).
  mmdebstrap --mode=root --variant=minbase --arch=arm64 --include="$pkgs" \
    --components=main,non-free-firmware \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    --dpkgopt='path-exclude=/usr/share/lintian/*' \
    --dpkgopt=force-confold --dpkgopt=force-confdef \
    --essential-hook="mkdir -p \"\$1/etc/initramfs-tools/conf.d\"" \
    --essential-hook="cp '$IMAGE_DIR/initramfs/moat.conf' \"\$1/etc/initramfs-tools/conf.d/moat.conf\"" \
    --essential-hook="cp '$IMAGE_DIR/initramfs/modules' \"\$1/etc/initramfs-tools/modules\"" \
    "$SUITE" "$BASE_ROOT" \
    "deb $MIRROR $SUITE main non-free-firmware" \
    "deb $MIRROR $SUITE-updates main non-free-firmware" \
    "deb $SECURITY_MIRROR $SUITE-security main non-free-firmware"
  touch "$BASE_ROOT.done"
}
