#!/bin/bash
# Boots the built image (dist/moat-<version>-arm64.img.xz) in qemu-system-aarch64 -M virt and checks it from
# outside, through ports forwarded to 127.0.0.1 only: first-boot settings, API password, DNS (local record,
# a domain blocked through the API), restart after a kill, data kept across a reboot, exactly the expected
# listeners, the dashboard in Chromium, HTTPS and DNS over TLS verified against the appliance's own authority;
# then firmware updates through the API (scripts/image-lib/update-checks.sh: refused bundles, a version 2 tried
# and kept with the data, a version 3 that cannot start rolled back, a power cut during an install, version 2
# from an https URL); then a second card whose first boots lose
# power while the data partition grows, on a LAN of network namespaces where its settings file switches DHCP on
# and a client gets a lease.
# No traffic leaves this machine: the first card reaches nothing but the forwarded ports, the second
# nothing but the test's namespaces.
# Prints the boot-to-first-DNS-answer time, the update figures and "N passed, N failed"; exits non-zero when a
# check failed. CHECKS=updates runs only what the update stage builds on and the reboot check, then that stage
# (for work on it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/image-lib/common.sh"
source "$here/image-lib/qemu.sh"
source "$here/image-lib/lan.sh"

BOOT_TIMEOUT=${BOOT_TIMEOUT:-600}   # seconds; software emulation of a 2-core arm64 on a busy host is slow
CARD=${CARD:-16G}                   # a real card's size (a sparse file): first boot grows the data partition into it
CHECKS=${CHECKS:-all}               # all, or updates
T="$WORK/test"
img_xz="$DIST/$IMAGE_NAME.img.xz"
[ -f "$img_xz" ] || die "$img_xz not found: run scripts/build-image.sh first"

missing=()
for p in qemu-system-arm mtools bind9-dnsutils knot-dnsutils curl jq openssl openssh-client xz-utils e2fsprogs fdisk \
  iproute2 busybox chromium rauc squashfs-tools u-boot-qemu u-boot-tools libubootenv-tool; do
  dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || missing+=("$p")
done
if ((${#missing[@]})); then
  apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

project_deps   # bun and playwright-core for the dashboard check

passed=0 failed=0 failures=()
check() { # name command...
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); log "PASS $name"
  else failed=$((failed + 1)); failures+=("$name"); log "FAIL $name"; fi
}

log "verifying and unpacking $img_xz"
(cd "$DIST" && sha256sum -c --quiet "$IMAGE_NAME.img.xz.sha256")
rm -rf "$T" && mkdir -p "$T"
xz -dc "$img_xz" >"$T/disk.img"
truncate -s "$CARD" "$T/disk.img"

password="test-$(od -An -tx8 -N8 /dev/urandom | tr -d ' ')"
ssh-keygen -q -t ed25519 -N '' -C moat-image-test -f "$T/ssh_key"
# Upstream: a port inside the guest where nothing listens, so nothing is ever forwarded off this machine.
cat >"$T/moat-settings.txt" <<EOF
# test settings
MOAT_PASSWORD=$password
MOAT_UPSTREAMS=127.0.0.1#5335
MOAT_GATEWAY=not-an-address
MOAT_SSH_KEY=$(cat "$T/ssh_key.pub")
EOF
boot_off=$(fat_offset "$T/disk.img")
mcopy -o -i "$T/disk.img@@$boot_off" "$T/moat-settings.txt" ::/moat-settings.txt
serial_console "$T/disk.img@@$(part_offset "$T/disk.img" 2)"   # slot A's kernel on the serial log

pick_ports
# -no-reboot: every reboot of the guest ends QEMU, and the harness powers on again (qemu.sh power_on_again)
start_qemu --no-reboot "$T"
if booted_slot "$T/serial.log" 300; then FIRST_BOOT_LINE=$BOOT_LINE; fi
trap 'stop_qemu || true; stop_update_server 2>/dev/null; remove_lan' EXIT

log "waiting for the first DNS answer (up to ${BOOT_TIMEOUT}s)"
if wait_dns "$BOOT_TIMEOUT"; then
  first_answer=$(( $(date +%s) - QEMU_STARTED ))
  log "boot to first DNS answer: ${first_answer}s"
else
  first_answer=timeout
  log "no DNS answer after ${BOOT_TIMEOUT}s; serial console tail:"; tail -40 "$T/serial.log" >&2 || true
fi

source "$here/image-lib/checks.sh"
source "$here/image-lib/tls-checks.sh"
source "$here/image-lib/powercut.sh"
source "$here/image-lib/update-checks.sh"
if [ "$CHECKS" = updates ]; then
  first_checks
  check "U-Boot's script booted slot A, and moat-health gave its try back (BOOT_A_LEFT=3)" wait_for 120 counters_settled
  check "systemd arms the hardware watchdog (30 s), a panic restarts after 10 s" wait_for 60 watchdog_armed
  check "reboot keeps the password, local record and deny list" survives_reboot
else run_checks; fi
run_update_checks
stop_qemu || true
[ "$CHECKS" = updates ] || power_cut_checks "$CARD"
remove_lan

log "boot to first DNS answer: ${first_answer}s (qemu-system-aarch64 -M virt, TCG)"
((failed == 0)) || log "failed: ${failures[*]}"
echo "image-test: $passed passed, $failed failed"
echo "boot_to_first_dns_answer_seconds=$first_answer"
printf 'update: %s\n' "${UPDATE_FIGURES[@]}"
((failed == 0))
