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
# configuration, the keyring (the certificate whose key signs the bundles), the tryboot backend, the
# post-install handler that gives a boot slot its own cmdline.txt, the health
# check of a trial boot, the units that reboot when the API asks, and a D-Bus policy that lets only root and the moat user talk to RAUC's service.
install_rauc() {
  local rauc="$REPO/scripts/image-lib/rauc" cert
  cert=$(bash "$REPO/scripts/build-bundle.sh" --cert) || die "no certificate for the keyring"
  install -D -m 0644 "$rauc/system.conf" "$ROOTFS/etc/rauc/system.conf"
  install -D -m 0644 "$cert" "$ROOTFS/etc/rauc/keyring.pem"
  install -D -m 0755 "$rauc/rauc-tryboot" "$ROOTFS/usr/lib/moat/rauc-tryboot"
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

# Debian's generic arm64 kernel carries drivers for every arm64 board; a Pi (or QEMU) needs few of them.
prune_modules() {
  local kdir
  for kdir in "$ROOTFS"/lib/modules/*/kernel; do
    rm -rf "$kdir"/drivers/{gpu,media,infiniband,staging,scsi/{qla2xxx,lpfc,mpt3sas,bfa,be2iscsi,megaraid},net/ethernet/{mellanox,intel,chelsio,qlogic,marvell,cavium,broadcom/bnxt,huawei,hisilicon},net/wireless/{ath,intel,mediatek,realtek,marvell,ti,quantenna,rsi,st,zydas,ralink,microchip,purelifi,silabs},isdn,iio,input/touchscreen,video/fbdev} \
      "$kdir"/sound "$kdir"/net/{mac80211_hwsim*,bluetooth} 2>/dev/null || true
    in_root depmod -a "$(basename "$(dirname "$kdir")")"
  done
}

# Moves /boot/firmware (filled by raspi-firmware's kernel hook) out of the root into the boot slots' tree;
# each slot's cmdline.txt comes from slot_cmdline.
split_boot() { # boot-dir
  mkdir -p "$1"
  cp -r "$ROOTFS"/boot/firmware/. "$1/"
  rm -rf "$ROOTFS"/boot/firmware/*
  # Only the standard GPU firmware (no camera, debug or cut-down variants); no Pi 5 (not supported yet).
  rm -f "$1"/start{,4}{_,}{cd,db,x}.elf "$1"/fixup{,4}{_,}{cd,db,x}.dat "$1"/bcm2712-*.dtb
  local kver
  kver=$(ls "$ROOTFS/lib/modules" | head -1)
  sed "s/@KVER@/$kver/g" "$IMAGE_DIR/boot/config.txt" >"$1/config.txt"
}

# cmdline.txt of boot slot A or B: its own root partition (5 or 6) and rauc.slot=, which RAUC and the udev rule
# 61-moat-slot.rules read to know which slot booted.
slot_cmdline() { # A|B
  local rootpart=05
  [ "$1" = B ] && rootpart=06
  tr -s '\n ' ' ' <"$IMAGE_DIR/boot/cmdline.txt" | sed "s/ *\$//; s/@ROOTPART@/$rootpart/; s/@SLOT@/$1/"
  echo
}

# Partition 1, MOAT: what the firmware reads first (autoboot.txt: which boot slot) and the settings file.
moat_partition() { # dir
  mkdir -p "$1"
  cp "$IMAGE_DIR/boot/autoboot.txt" "$IMAGE_DIR/boot/moat-settings.txt" "$1/"
}
