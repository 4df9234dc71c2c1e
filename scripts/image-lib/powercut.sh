# The power-cut check of test-image.sh (sourced; uses qemu.sh's, checks.sh's and lan.sh's helpers). A second
# card of the same size from the same image: its first boot loses power the moment the initrd starts growing
# the data partition, the second the moment it starts growing the filesystem (the console says when: the grow
# script's "moat: " lines), and the third boot must end with both grown, a working Moat, and, after a clean
# poweroff, a filesystem e2fsck finds clean.
# This card sits on a LAN of the test's own (lan.sh) and its settings file gives it a fixed address and
# switches DHCP on, so the third boot (the first that gets to apply the settings file) also shows a device
# on that LAN getting a lease from Moat.

power_cut_checks() { # card-size
  local P="$T/powercut"
  rm -rf "$P" && mkdir -p "$P"
  log "power cut: a fresh $1 card from the image"
  xz -dc "$img_xz" >"$P/disk.img"
  truncate -s "$1" "$P/disk.img"
  lan_settings "$T/moat-settings.txt" >"$P/moat-settings.txt"
  mcopy -o -i "$P/disk.img@@$boot_off" "$P/moat-settings.txt" ::/moat-settings.txt
  serial_console "$P/disk.img@@$(part_offset "$P/disk.img" 2)"
  if ! make_lan; then check "the test's LAN (network namespaces, a bridge, a tap device)" false; return; fi
  GUEST_IP=$LAN_GUEST HTTP_PORT=80 DNS_PORT=53 SSH_PORT=22   # the guest's own ports, reached inside the LAN

  start_qemu "$P" serial-1.log
  check "power cut while the data partition grows" cut_power_at "$P/serial-1.log" 'moat: growing the data partition' "$BOOT_TIMEOUT"
  start_qemu "$P" serial-2.log
  check "power cut while the data filesystem grows" cut_power_at "$P/serial-2.log" 'moat: growing the data filesystem' "$BOOT_TIMEOUT"
  start_qemu "$P" serial-3.log
  log "power cut: third boot, waiting for DNS"
  if ! wait_dns "$BOOT_TIMEOUT"; then
    check "boot after two power cuts answers DNS" false
    tail -40 "$P/serial-3.log" >&2 || true
    stop_qemu; return
  fi
  log "  grow lines of the third boot: $(grep -o 'moat: [a-z].*' "$P/serial-3.log" | tr -d '\r' | paste -sd'|')"
  check "after the power cuts: login with the settings-file password" wait_for 120 login "$password"
  check "after the power cuts: data partition and filesystem fill the card" wait_for 60 data_grown
  lan_dhcp_checks
  check "after the power cuts: the guest powers off cleanly" stop_qemu 300
  check "after the power cuts: e2fsck finds the data filesystem clean" data_fsck_clean "$P/disk.img"
}

lan_dhcp_checks() {
  check "DHCP switched on by the settings file: /api/config shows the range and router" wait_for 60 dhcp_config_on
  check "listening: Moat's DHCP on 67 besides DNS, HTTP, HTTPS, DoT, NTP and SSH" \
    wait_for 30 listens_exactly "$APPLIANCE_LISTENERS $SSH_LISTENER $DHCP_SERVER_LISTENER"
  check "a device on the LAN gets a lease from the range (busybox udhcpc)" wait_for 120 lease_from_moat
  check "/api/dhcp/leases lists the device's lease and host name" wait_for 30 lease_listed
  check "DNS answers the device's host name with its leased address" wait_for 30 answers "$LAN_CLIENT_NAME" "$LEASE_IP"
}

data_fsck_clean() { # disk.img: e2fsck -fn of the data partition (7), read in place at its offset
  local out rc=0
  out=$(e2fsck -fn "$1?offset=$(part_offset "$1" 7)" 2>&1) || rc=$?
  log "  e2fsck -fn: exit $rc, $(tail -1 <<<"$out")"
  ((rc == 0)) || printf '%s\n' "$out" | tail -20 >&2
  ((rc == 0))
}
