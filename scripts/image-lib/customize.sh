# Turns a copy of the cached base root into Moat's root filesystem: the image/rootfs overlay, the moat binary,
# its user, the enabled services, and nothing the appliance does not need. Sourced by build-image.sh.

in_root() { chroot "$ROOTFS" "$@"; }   # runs arm64 programs through qemu-user (binfmt)

customize_root() { # moat-binary
  log "root: overlay, moat binary, services"
  cp -r --no-preserve=ownership --preserve=mode "$IMAGE_DIR/rootfs/." "$ROOTFS/"
  install -m 0755 "$1" "$ROOTFS/usr/bin/moat"
  in_root systemd-sysusers
  mkdir -p "$ROOTFS/etc/moat" "$ROOTFS/var/lib/moat"
  # A kernel upgrade (only through bundles on the appliance) regenerates cmdline.txt from ROOTPART: the file is
  # sourced as shell, so ROOTPART is the booted slot's root and rauc.slot= (one root image serves both slots).
  sed -i '/^#\?ROOTPART=/d' "$ROOTFS/etc/default/raspi-firmware"
  cat >>"$ROOTFS/etc/default/raspi-firmware" <<'EOF'
# Moat: the booted slot's root partition and name (docs/updates.md), from rauc.slot= on the command line.
case " $(cat /proc/cmdline 2>/dev/null) " in
  *" rauc.slot=B "*) ROOTPART="PARTUUID=6d6f6174-06 rauc.slot=B" ;;
  *) ROOTPART="PARTUUID=6d6f6174-05 rauc.slot=A" ;;
esac
EOF
  install_rauc

  in_root systemctl enable moat.service moat-firstboot.service moat-health.service moat-reboot.path \
    systemd-networkd.service systemd-timesyncd.service
  # Nothing listens but Moat: SSH only when the settings file gives a key; no unattended apt traffic.
  in_root systemctl disable ssh.service ssh.socket wpa_supplicant.service apt-daily.timer apt-daily-upgrade.timer 2>/dev/null || true
  rm -f "$ROOTFS"/etc/ssh/ssh_host_*     # made at first boot when SSH is enabled
  # systemd's SSH generator would put sshd on AF_VSOCK/AF_UNIX sockets: SSH stays entirely off by default.
  ln -sf /dev/null "$ROOTFS/etc/systemd/system-generators/systemd-ssh-generator" 2>/dev/null ||
    { mkdir -p "$ROOTFS/etc/systemd/system-generators" && ln -sf /dev/null "$ROOTFS/etc/systemd/system-generators/systemd-ssh-generator"; }
  : >"$ROOTFS/etc/machine-id"           # made at first boot: every appliance gets its own
  # The initrd again, now with the overlay's hook that grows the data partition at first boot. Copied to
  # /boot/firmware here: raspi-firmware's own post-update hook refuses to run in a chroot without /proc.
  in_root env INITRAMFS_TOOLS_KERNEL_HOOK=1 update-initramfs -u -k all >/dev/null
  cp "$ROOTFS"/boot/initrd.img-* "$ROOTFS/boot/firmware/"
  rm -f "$ROOTFS/var/lib/dbus/machine-id"

  # The kernel and initrd live on the boot partition; the root keeps only the modules.
  # So do the device trees and the Pi firmware: their copies in /usr/lib (only used by the kernel upgrade hook;
  # the appliance is updated by flashing, not by apt) go too.
  rm -f "$ROOTFS"/boot/vmlinuz-* "$ROOTFS"/boot/initrd.img-* "$ROOTFS"/boot/System.map-*
  rm -rf "$ROOTFS"/usr/lib/linux-image-* "$ROOTFS"/usr/lib/raspi-firmware
  prune_modules
  rm -rf "$ROOTFS"/var/cache/apt/* "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/log/* "$ROOTFS"/tmp/*
  log "root: $(du -sm "$ROOTFS" | cut -f1) MiB"
}

# RAUC (the rauc and rauc-service packages are in the base root) set up as docs/updates.md says: the system
# configuration (U-Boot backend; /etc/fw_env.config says where the boot counters are), the keyring (the
# certificates whose keys may sign bundles: build-bundle.sh --keyring), the post-install handler that gives a
# boot slot its own cmdline.txt, the health check of a trial boot, the units that reboot when the API asks,
# and a D-Bus policy that lets only root and the moat user talk to RAUC's service.
install_rauc() {
  local rauc="$REPO/scripts/image-lib/rauc"
  install -D -m 0644 "$rauc/system.conf" "$ROOTFS/etc/rauc/system.conf"
  bash "$REPO/scripts/build-bundle.sh" --keyring >"$WORK/keyring.pem" || die "no keyring"
  keyring_valid_at_floor "$WORK/keyring.pem"
  install -D -m 0644 "$WORK/keyring.pem" "$ROOTFS/etc/rauc/keyring.pem"
  # The clock floor: systemd starts the clock no earlier than this file's time (SOURCE_DATE_EPOCH, as every
  # file of the image), so a Pi without a clock battery that has not reached NTP is never before it.
  touch "$ROOTFS/usr/lib/clock-epoch"
  fw_env_config /boot/moat >"$ROOTFS/etc/fw_env.config"
  install -D -m 0755 "$rauc/moat-reboot" "$ROOTFS/usr/lib/moat/moat-reboot"
  install -D -m 0755 "$rauc/rauc-post-install" "$ROOTFS/usr/lib/moat/rauc-post-install"
  install -D -m 0755 "$rauc/moat-health" "$ROOTFS/usr/lib/moat/moat-health"
  install -D -m 0644 "$rauc/moat-health.service" "$ROOTFS/etc/systemd/system/moat-health.service"
  # the API's reboot request (src/update/reboot.ts) is acted on by root: the path unit starts the service
  install -D -m 0644 "$rauc/moat-reboot.path" "$ROOTFS/etc/systemd/system/moat-reboot.path"
  install -D -m 0644 "$rauc/moat-reboot.service" "$ROOTFS/etc/systemd/system/moat-reboot.service"
  # Debian's policy (any user may control RAUC) goes; the bus reads both directories and ours would only add.
  rm -f "$ROOTFS/usr/share/dbus-1/system.d/de.pengutronix.rauc.conf"
  install -D -m 0644 "$rauc/de.pengutronix.rauc.conf" "$ROOTFS/etc/dbus-1/system.d/de.pengutronix.rauc.conf"
}

# RAUC checks a bundle's certificate against the clock: one that starts after the image's clock floor
# (SOURCE_DATE_EPOCH) would refuse every bundle on a Pi that has not reached NTP yet.
keyring_valid_at_floor() { # keyring.pem
  local d n=0 f start
  d=$(mktemp -d)
  awk -v d="$d" '/BEGIN CERT/ { n++ } n { print > (d "/" n ".pem") }' "$1"
  for f in "$d"/*.pem; do
    [ -f "$f" ] || die "the keyring holds no certificate"
    start=$(date -u -d "$(openssl x509 -noout -startdate -in "$f" | cut -d= -f2)" +%s)
    ((start <= SOURCE_DATE_EPOCH)) || die "the keyring's certificate $(openssl x509 -noout -subject -in "$f") is valid only from $(date -u -d "@$start" +%F), after the image's clock floor $(date -u -d "@$SOURCE_DATE_EPOCH" +%F): make it with an earlier start"
    n=$((n + 1))
  done
  rm -rf "$d"
  log "keyring: $n certificate(s), each valid from before the clock floor"
}

# Debian's generic arm64 kernel carries drivers for every arm64 board; a Pi (or QEMU) needs few of them.
prune_modules() {
  local kdir
  for kdir in "$ROOTFS"/lib/modules/*/kernel; do
    rm -rf "$kdir"/drivers/{gpu,media,infiniband,staging,scsi/{qla2xxx,lpfc,mpt3sas,bfa,be2iscsi,megaraid},net/ethernet/{mellanox,intel,chelsio,qlogic,marvell,cavium,broadcom/bnxt,huawei,hisilicon},net/wireless/{ath,intel,mediatek,realtek,marvell,ti,quantenna,rsi,st,zydas,ralink,microchip,purelifi,silabs},isdn,iio,input/touchscreen,video/fbdev} \
      "$kdir"/sound "$kdir"/net/{mac80211_hwsim*,bluetooth} 2>/dev/null || true
    in_root depmod -a "$(basename "$(dirname "$kdir")")"
  done
}

# Moves /boot/firmware (filled by raspi-firmware's kernel hook) out of the root into the boot slots' tree: the
# kernel and initrd under fixed names, which the boot script loads (image/boot/boot.cmd); each slot's
# cmdline.txt comes from slot_cmdline. The Pi firmware, its device trees and U-Boot go to partition 1
# (moat_partition), where the firmware looks for them.
split_boot() { # boot-dir firmware-dir
  mkdir -p "$1" "$2"
  cp -r "$ROOTFS"/boot/firmware/. "$2/"
  rm -rf "$ROOTFS"/boot/firmware/*
  local k i
  k=$(ls "$2"/vmlinuz-* 2>/dev/null | head -1) i=$(ls "$2"/initrd.img-* 2>/dev/null | head -1)
  [ -n "$k" ] && [ -n "$i" ] || die "no kernel or initrd in /boot/firmware (raspi-firmware's kernel hook, customize_root)"
  mv "$k" "$1/vmlinuz"
  mv "$i" "$1/initrd.img"
  rm -f "$2"/cmdline.txt "$2"/config.txt
  # Only the standard GPU firmware (no camera, debug or cut-down variants); no Pi 5 (not supported yet).
  rm -f "$2"/start{,4}{_,}{cd,db,x}.elf "$2"/fixup{,4}{_,}{cd,db,x}.dat "$2"/bcm2712-*.dtb
  # U-Boot for the Pi's 64-bit mode (one binary for Pi 3, 4 and Zero 2 W: Debian's u-boot-rpi rpi_arm64)
  # (the root keeps no copy: U-Boot changes with a new image, not with a bundle)
  cp "$ROOTFS/usr/lib/u-boot/rpi_arm64/u-boot.bin" "$2/u-boot.bin" && rm -rf "$ROOTFS/usr/lib/u-boot"
  # boot.cmd puts the counters' flags byte in and out itself, for a U-Boot without a redundant environment of
  # its own; with one, env import -c would expect that byte (docs/updates.md, "Two copies"; env/fat.c names its
  # second copy uboot-redund.env only then)
  ! grep -qa 'uboot-redund\.env' "$2/u-boot.bin" ||
    die "this U-Boot has a redundant environment (CONFIG_SYS_REDUNDAND_ENVIRONMENT): image/boot/boot.cmd must read the counters with env import -c as they are then"
  local f
  for f in bootcode.bin start.elf fixup.dat start4.elf fixup4.dat u-boot.bin; do
    [ -f "$2/$f" ] || die "the Pi boot file $f is missing (raspi-firmware, u-boot-rpi)"
  done
}

# cmdline.txt of boot slot A or B: its own root partition (5 or 6) and rauc.slot=, which RAUC and the udev rule
# 61-moat-slot.rules read to know which slot booted.
slot_cmdline() { # A|B
  local rootpart=05
  [ "$1" = B ] && rootpart=06
  grep -v '^#' "$IMAGE_DIR/boot/cmdline.txt" | tr -s '\n ' ' ' | sed "s/ *\$//; s/@ROOTPART@/$rootpart/; s/@SLOT@/$1/"
  echo
}

# The boot counters (image/boot/boot.cmd) are two copies of U-Boot's redundant environment layout (CRC, flags
# byte, variables) on partition 1; fw_printenv/fw_setenv (libubootenv, RAUC's U-Boot backend) take a two-line
# fw_env.config as such a pair: file, offset, size.
BOOT_ENV_FILES="moat-boot.env moat-boot-redund.env"
fw_env_config() { # directory of the copies
  local f
  echo "# U-Boot boot counters (image/boot/boot.cmd), two copies: file, offset, size"
  for f in $BOOT_ENV_FILES; do echo "$1/$f 0x0000 $BOOT_ENV_SIZE"; done
}

# Partition 1, MOAT: what the Pi firmware reads (its files, config.txt, U-Boot), U-Boot's boot script and the
# boot counters (slot A first, 3 tries; B, empty until the first update, none; both copies alike, flags 1),
# and the settings file. Without a firmware directory (the tests' small disks) only the boot script and counters.
moat_partition() { # dir [firmware-dir]
  mkdir -p "$1"
  [ -z "${2:-}" ] || cp -r "$2/." "$1/"
  cp "$IMAGE_DIR/boot/config.txt" "$IMAGE_DIR/boot/moat-settings.txt" "$1/"
  mkimage -A arm64 -O linux -T script -C none -n "Moat boot selection" -d "$IMAGE_DIR/boot/boot.cmd" "$1/boot.scr" >/dev/null
  local f
  for f in $BOOT_ENV_FILES; do
    printf 'BOOT_ORDER=A B\nBOOT_A_LEFT=3\nBOOT_B_LEFT=0\n' | mkenvimage -r -s "$BOOT_ENV_SIZE" -o "$1/$f" -
  done
}
