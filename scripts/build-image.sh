#!/bin/bash
# Builds Moat's Raspberry Pi SD-card image (arm64: Pi 3/3+/4/400/CM4, Zero 2 W) from this repository:
#   dist/moat-<version>-arm64.img.xz and its .sha256, and the update bundle of the same build,
#   dist/moat-<version>-arm64.raucb (scripts/build-bundle.sh; docs/updates.md)
# Runs as root on Debian straight after git clone: installs the Debian tools it needs and the project's
# own dependencies (npm ci). Nothing is mounted: filesystems are built from
# directories. What goes into the image lives in image/; the steps live in scripts/image-lib/.
#   MOAT_BINARY=path   use this arm64 moat binary instead of compiling src/main.ts (pipeline work only)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/image-lib/common.sh"
source "$here/image-lib/rootfs.sh"
source "$here/image-lib/customize.sh"
source "$here/image-lib/assemble.sh"

[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap, chroot)"
started=$(date +%s)
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$REPO" log -1 --format=%ct 2>/dev/null || echo 1735689600)}
mkdir -p "$WORK" "$DIST"

log "host tools"
missing=()
for p in mmdebstrap arch-test qemu-user-static binfmt-support dosfstools mtools fdisk e2fsprogs xz-utils \
  rauc squashfs-tools openssl u-boot-tools; do
  dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
done
if ((${#missing[@]})); then
  # another apt or dpkg run (unattended upgrades, a second build) holds the lock: wait for it, not fail
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
project_deps
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "binfmt for qemu-aarch64 is not active"

log "moat binary (arm64)"
if [ -n "${MOAT_BINARY:-}" ]; then moat_bin=$MOAT_BINARY; log "using $moat_bin (MOAT_BINARY)"
else
  moat_bin="$WORK/moat-arm64"
  compile_moat_arm64 "$moat_bin"
fi

build_base_root
ROOTFS="$WORK/rootfs"
log "root: copy of the base"
rm -rf "$ROOTFS" "$WORK/boot" "$WORK/firmware" "$WORK/moat" "$WORK/data"
cp -a "$BASE_ROOT" "$ROOTFS"
customize_root "$moat_bin"
split_boot "$WORK/boot" "$WORK/firmware"
moat_partition "$WORK/moat" "$WORK/firmware"

# The data partition starts with the appliance's default config, owned by moat.
mkdir -p "$WORK/data"
install -m 0640 "$IMAGE_DIR/rootfs/usr/share/moat/pihole.toml" "$WORK/data/pihole.toml"
moat_ids=$(awk -F: '$1 == "moat" { print $3 ":" $4 }' "$ROOTFS/etc/passwd")
[ -n "$moat_ids" ] || die "no moat user in the root filesystem"
chown -R "$moat_ids" "$WORK/data" && chmod 0750 "$WORK/data"

log "filesystems"
for d in "$ROOTFS" "$WORK/boot" "$WORK/moat" "$WORK/data"; do find "$d" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +; done
root_mb=$(( $(du -sm "$ROOTFS" | cut -f1) * 115 / 100 + ROOT_HEADROOM_MB ))
make_fat "$WORK/moat.img" "$MOAT_MB" "$WORK/moat" 16 MOAT "$MOAT_VOLID"
for slot in A B; do   # the two boot slots differ in cmdline.txt only
  slot_cmdline "$slot" >"$WORK/boot/cmdline.txt"
  touch -d "@$SOURCE_DATE_EPOCH" "$WORK/boot/cmdline.txt"
  make_fat "$WORK/boot-$slot.img" "$BOOT_MB" "$WORK/boot" 32 MOATBOOT "$BOOT_VOLID"
done
make_ext4 "$WORK/root.img" "$root_mb" rootfs "$ROOT_UUID" "$ROOTFS"
make_ext4 "$WORK/data.img" "$DATA_MB" moatdata "$DATA_UUID" "$WORK/data" "$moat_ids"   # /etc/moat itself is moat's

img="$DIST/$IMAGE_NAME.img"
log "disk image $img"
assemble_disk "$img" "$WORK/moat.img" "$WORK/boot-A.img" "$WORK/boot-B.img" "$WORK/root.img" "$WORK/data.img"
bundle="$DIST/$IMAGE_NAME.raucb"
log "update bundle $bundle"
MOAT_BUNDLE_VERSION=$VERSION bash "$REPO/scripts/build-bundle.sh" "$bundle" "$WORK/root.img" "$WORK/boot-A.img"
rm -f "$WORK"/{moat,boot-A,boot-B,root,data}.img
log "compressing"
xz -T2 -6 -f -k "$img"
(cd "$DIST" && sha256sum "$IMAGE_NAME.img.xz" >"$IMAGE_NAME.img.xz.sha256")

raw=$(($(stat -c%s "$img") >> 20)); xzmb=$(($(stat -c%s "$img.xz") >> 20)); bundlemb=$(($(stat -c%s "$bundle") >> 20))
log "done in $(( $(date +%s) - started )) s: $img ($raw MiB raw), $img.xz ($xzmb MiB compressed), $bundle ($bundlemb MiB)"
echo "build_seconds=$(( $(date +%s) - started )) raw_mib=$raw xz_mib=$xzmb bundle_mib=$bundlemb"
