# The power-cut check of test-image.sh (sourced; uses qemu.sh's and checks.sh's helpers). A second card of
# the same size from the same image: its first boot loses power the moment the initrd starts growing the
# data partition, the second the moment it starts growing the filesystem (the console says when: the grow
# script's "moat: " lines), and the third boot must end with both grown, a working Moat, and, after a clean
# poweroff, a filesystem e2fsck finds clean.

power_cut_checks() { # card-size
  local P="$T/powercut"
  rm -rf "$P" && mkdir -p "$P"
  log "power cut: a fresh $1 card from the image"
  xz -dc "$img_xz" >"$P/disk.img"
  truncate -s "$1" "$P/disk.img"
  mcopy -o -i "$P/disk.img@@$boot_off" "$T/moat-settings.txt" ::/moat-settings.txt
  cp "$T/vmlinuz" "$T/initrd" "$P/"

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
  check "after the power cuts: the guest powers off cleanly" stop_qemu 300
  check "after the power cuts: e2fsck finds the data filesystem clean" data_fsck_clean "$P/disk.img"
}

data_fsck_clean() { # disk.img: e2fsck -fn of partition 3, read in place at its offset
  local start; start=$(sfdisk -J "$1" | jq '.partitiontable.partitions[2].start')
  local out rc=0
  out=$(e2fsck -fn "$1?offset=$((start * 512))" 2>&1) || rc=$?
  log "  e2fsck -fn: exit $rc, $(tail -1 <<<"$out")"
  ((rc == 0)) || printf '%s\n' "$out" | tail -20 >&2
  ((rc == 0))
}
