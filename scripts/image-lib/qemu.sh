# Booting the image in QEMU and talking to it: through 127.0.0.1-only forwarded ports (user networking), or
# inside the test's own LAN namespace (lan.sh). Sourced by test-image.sh.

part_offset() { # disk.img partition-number -> byte offset of that partition
  echo $(( $(sfdisk -J "$1" | jq --arg n "$2" '.partitiontable.partitions[] | select(.node | endswith($n)) | .start') * 512 ))
}
fat_offset() { part_offset "$1" 1; } # partition 1, MOAT: boot.scr, the boot counters, moat-settings.txt

# QEMU boots the card the way a Pi does from U-Boot on: U-Boot for QEMU's virt machine (Debian's u-boot-qemu,
# as -bios) finds the card's boot.scr on partition 1, which picks the slot by the boot counters in
# moat-boot.env (and its second copy) and boots that slot's kernel, initrd and cmdline.txt (image/boot/boot.cmd,
# docs/updates.md).
# The harness only powers the machine on again after a reboot (-no-reboot) and reads U-Boot's console.
U_BOOT_QEMU=/usr/lib/u-boot/qemu_arm64/u-boot.bin

# What emulation needs on a boot slot's command line, added to cmdline.txt on the test's card or in a bundle's
# boot image: console=ttyAMA0 (the image names tty0 only), so the kernel's and the initrd's lines reach the
# log; and a longer wait for devices than the image's 90 s (systemd.default_device_timeout_sec=), as udev's
# first pass under software emulation on a loaded machine took longer than that (a Pi takes seconds).
serial_console() { # fat-image-spec (file or file@@offset)
  local line
  line=$(mtype -i "$1" ::/cmdline.txt | tr -d '\r\n') || return 1
  [[ " $line " == *" console=ttyAMA0 "* ]] && return 0
  printf '%s console=ttyAMA0 systemd.default_device_timeout_sec=600\n' "$line" | mcopy -o -i "$1" - ::/cmdline.txt
}

# The slot U-Boot's boot script chose, from its line on the console: sets BOOTED_SLOT, BOOTED_PARTITION and
# BOOT_LINE (the counters it left). Waits for the Nth such line of the log (default: the first).
booted_slot() { # serial-log timeout-seconds [N]
  local deadline=$(( $(date +%s) + $2 )) n=${3:-1} line
  while :; do
    line=$(grep -a 'moat: booting slot' "$1" 2>/dev/null | sed -n "${n}p" | tr -d '\r')
    [ -n "$line" ] && break
    if (( $(date +%s) >= deadline )); then log "  U-Boot named no slot in $1 within $2 s"; tail -n 20 "$1" >&2; return 1; fi
    sleep 1
  done
  BOOT_LINE=${line#*moat: }
  BOOTED_SLOT=$(sed -n 's/.*booting slot \([AB]\).*/\1/p' <<<"$line")
  BOOTED_PARTITION=$(sed -n 's/.*(partition \([0-9]\)).*/\1/p' <<<"$line")
  log "  U-Boot: $BOOT_LINE"
}

# Where the test reaches the guest: 127.0.0.1 and the forwarded ports (user networking), or, on a card booted
# on a LAN of its own (lan.sh), the guest's address and its real ports from inside that network namespace.
GUEST_IP=127.0.0.1
LAN_NS=
on_lan() { if [ -n "$LAN_NS" ]; then ip netns exec "$LAN_NS" "$@"; else "$@"; fi; }

pick_ports() {
  read -r HTTP_PORT DNS_PORT SSH_PORT HTTPS_PORT DOT_PORT < <(python3 -c '
import socket
ps = []
for _ in range(5):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ps.append(s)
print(*[s.getsockname()[1] for s in ps])')
}

# --no-reboot: a guest's reboot (or a panic's) ends QEMU, and the harness powers on again (power_on_again), so
# each boot has its own log. i6300esb is the watchdog systemd arms, as bcm2835_wdt on a Pi; its timer runs on
# the host's clock, so on a loaded host a guest whose vCPUs get no time for 30 s misses its ping though nothing
# hangs (a first boot here was reset in the middle of moat-firstboot). So QEMU only says when it fires
# ("watchdog", in the test's log) instead of resetting: the image arms it the same (check watchdog_armed), and
# resetting a hung board is bcm2835_wdt's, which only a board shows (docs/updates.md, "Per board").
start_qemu() { # [--no-reboot] dir [serial-log-name]
  local no_reboot=()
  if [ "$1" = --no-reboot ]; then no_reboot=(-no-reboot); shift; fi
  QEMU_STARTED=$(date +%s)
  local net in_ns=()
  if [ -n "$LAN_NS" ]; then
    # the LAN's tap device (lan.sh): qemu runs inside the LAN's namespace, where the tap is; ip netns exec
    # execs qemu, so QEMU_PID is qemu's own (a function here would put a subshell in between)
    net="tap,id=net,ifname=$LAN_TAP,script=no,downscript=no"
    in_ns=(ip netns exec "$LAN_NS")
  else
    # Not restrict=on: libslirp then drops every UDP packet from the guest before looking up its socket,
    # so the answers to the forwarded DNS port never come back (TCP forwards still work). Nothing leaves
    # anyway: the settings file points Moat's upstream at a dead port inside the guest, and time sync
    # resolves its servers through Moat. Forwards bind 127.0.0.1 only.
    net="user,id=net,hostfwd=tcp:127.0.0.1:$HTTP_PORT-:80,hostfwd=udp:127.0.0.1:$DNS_PORT-:53,hostfwd=tcp:127.0.0.1:$SSH_PORT-:22"
    net+=",hostfwd=tcp:127.0.0.1:$HTTPS_PORT-:443,hostfwd=tcp:127.0.0.1:$DOT_PORT-:853"
  fi
  "${in_ns[@]}" qemu-system-aarch64 -M virt -cpu cortex-a53 -smp 2 -m 1024 -accel tcg,thread=multi \
    -bios "$U_BOOT_QEMU" -device i6300esb -action watchdog=debug \
    -drive "file=$1/disk.img,format=raw,if=none,id=disk" -device virtio-blk-pci,drive=disk \
    -netdev "$net" \
    -device virtio-net-pci,netdev=net,romfile= -device virtio-rng-pci \
    -display none -monitor none -serial "file:$1/${2:-serial.log}" "${no_reboot[@]}" &
  QEMU_PID=$!
  if [ -n "$LAN_NS" ]; then log "qemu pid $QEMU_PID on the LAN in namespace $LAN_NS: the guest is $GUEST_IP"
  else log "qemu pid $QEMU_PID: http 127.0.0.1:$HTTP_PORT, https :$HTTPS_PORT, dns :$DNS_PORT, dot :$DOT_PORT, ssh :$SSH_PORT"; fi
}

# After a guest's reboot under --no-reboot: waits for QEMU to end, then powers on again; U-Boot picks the slot
# (booted_slot reads which). Sets BOOTED_SLOT and BOOTED_PARTITION.
power_on_again() { # seconds-to-wait-for-the-end serial-log-name
  local i
  for i in $(seq "$1"); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 1; done
  if kill -0 "$QEMU_PID" 2>/dev/null; then log "  qemu still runs $1 s after the guest was to reboot"; return 1; fi
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=
  start_qemu --no-reboot "$T" "$2"
  booted_slot "$T/$2" 300
}

stop_qemu() { # [seconds to wait for the guest's poweroff]; fails when qemu had to be killed
  [ -n "${QEMU_PID:-}" ] || return 0
  local killed=0
  if kill -0 "$QEMU_PID" 2>/dev/null; then
    guest_once poweroff >/dev/null 2>&1 || true
    for _ in $(seq "${1:-60}"); do kill -0 "$QEMU_PID" 2>/dev/null || break; sleep 1; done
    kill "$QEMU_PID" 2>/dev/null && { killed=1; log "qemu killed: the guest did not power off"; }
  fi
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=
  return "$killed"
}

cut_power_at() { # serial-log pattern timeout-seconds: kills qemu (no shutdown) once the console shows pattern
  local deadline=$(( $(date +%s) + $3 ))
  while ! grep -q "$2" "$1" 2>/dev/null; do
    kill -0 "$QEMU_PID" 2>/dev/null || { log "qemu exited before '$2'"; return 1; }
    (( $(date +%s) < deadline )) || { log "no '$2' on the console after $3 s"; kill -9 "$QEMU_PID"; wait "$QEMU_PID" 2>/dev/null; QEMU_PID=; return 1; }
    sleep 0.1
  done
  kill -9 "$QEMU_PID"; wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=
  log "  power cut at '$2'; the console's last grow lines: $(grep -o 'moat: [a-z].*' "$1" | tr -d '\r' | tail -3 | paste -sd'|')"
}

dns() { # name [type] -> dig's short answer; fails when no reply came
  on_lan dig @"$GUEST_IP" -p "$DNS_PORT" +tries=1 +time=3 +short "$@"
}

dns_status() { # name -> NOERROR / NXDOMAIN / SERVFAIL ...
  on_lan dig @"$GUEST_IP" -p "$DNS_PORT" +tries=1 +time=3 "$@" | sed -n 's/.*status: \([A-Z]*\).*/\1/p'
}

wait_dns() { # timeout-seconds: any reply at all counts
  local deadline=$(( $(date +%s) + $1 ))
  while (( $(date +%s) < deadline )); do
    kill -0 "$QEMU_PID" 2>/dev/null || { log "qemu exited"; return 1; }
    [ -n "$(dns_status moat.test)" ] && return 0
    sleep 1
  done
  return 1
}

wait_for() { # timeout-seconds command...
  local deadline=$(( $(date +%s) + $1 )); shift
  while (( $(date +%s) < deadline )); do "$@" && return 0; sleep 2; done
  return 1
}

api() { # method path [json] -> body; HTTP status in $API_STATUS
  local out
  out=$(on_lan curl -s -m 60 -X "$1" -w '\n%{http_code}' -H 'Content-Type: application/json' \
    ${SID:+-H "X-FTL-SID: $SID"} ${3:+--data "$3"} "http://$GUEST_IP:$HTTP_PORT$2") || { API_STATUS=000; return 0; }
  API_STATUS=${out##*$'\n'}
  printf '%s' "${out%$'\n'*}"
}

# A command run as root in the guest over SSH (enabled by the test's settings file). guest retries when
# ssh itself fails (exit 255: the emulated guest, busy, was slow to take the connection): for commands
# that can run twice; guest_once for the rest (kill, reboot, poweroff).
guest() {
  local try rc
  for try in 1 2 3; do
    guest_once "$@" && return 0
    rc=$?; [ "$rc" = 255 ] || return "$rc"
    sleep 3
  done
  return 255
}
guest_once() {
  on_lan ssh -q -i "$T/ssh_key" -p "$SSH_PORT" -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o ConnectTimeout=15 "root@$GUEST_IP" "$@"
}
