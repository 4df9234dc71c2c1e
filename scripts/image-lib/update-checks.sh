# The firmware update end to end (docs/updates.md), after run_checks, against the running version-1 guest that
# holds the password, the local record nas.moat.test and the deny entry ads.moat.test. Everything goes through
# Moat's API as the dashboard does it: POST /api/action/update (upload), POST /api/action/reboot. The slot each
# boot takes is U-Boot's boot script's choice (image/boot/boot.cmd) from the counters RAUC and moat-health
# keep; the harness only powers QEMU on again after each reboot (the first card runs with -no-reboot).
#   version 2 (0.1.1-test): the build's root with a moat compiled to report that version; tried in slot B,
#     whose first trial boot loses power as its kernel starts (U-Boot tries B again), kept by moat-health
#   refusals: another key's bundle, a truncated one, one for another system: 400 with the sentence, no change
#   version 3 (0.1.2-broken): its kernel command line runs /bin/false as init, so the kernel panics; after
#     3 panicking boots of slot A U-Boot boots slot B by itself, and Moat says version 3 did not start (message
#     and last result)
#   a power cut (QEMU killed) while version 2's bundle is being written into slot A: the card boots version 2 on
#     slot B as before, with the data, and Moat says the update did not finish (message and last result)
#   version 2 from an https URL (serve-https.ts on this machine's loopback, 10.0.2.2 to the guest, with a
#     certificate from the test's own authority, which the guest's Moat is told to trust): into slot A, the
#     slot the cut left half written; then a plain reboot (systemctl reboot over SSH), not the API's, which
#     starts the trial all the same; tried, kept, data intact
# Sourced by test-image.sh; uses qemu.sh's and checks.sh's helpers and check(). Figures go to the log and to
# UPDATE_FIGURES (printed at the end of the test).

V2=0.1.1-test
V3=0.1.2-broken
UPD="$T/update"
UPDATE_FIGURES=()

# Replaces /usr/bin/moat (moat.service's ExecStart) in an ext4 image with debugfs, nothing mounted; root-owned,
# mode 0755 as the build installs it. Read back and compared, and the filesystem checked, as debugfs says little.
replace_moat() { # root.ext4 new-binary
  debugfs -w -f - "$1" >/dev/null 2>"$UPD/debugfs.log" <<EOF
rm /usr/bin/moat
write $2 /usr/bin/moat
sif /usr/bin/moat mode 0100755
sif /usr/bin/moat uid 0
sif /usr/bin/moat gid 0
EOF
  rm -f "$UPD/readback"
  debugfs -R "dump /usr/bin/moat $UPD/readback" "$1" 2>/dev/null
  cmp -s "$2" "$UPD/readback" && debugfs -R 'stat /usr/bin/moat' "$1" 2>/dev/null | grep -q 'Mode:  0755' &&
    e2fsck -fn "$1" >/dev/null 2>&1 || { log "  writing $2 into $1 failed: $(cat "$UPD/debugfs.log")"; return 1; }
}

# The bundles, made from the build's own root and boot images (build-bundle.sh's inputs, read back out of the
# build's bundle: a verity bundle begins with its squashfs) and signed with the key the image's keyring trusts.
make_update_bundles() {
  rm -rf "$UPD" && mkdir -p "$UPD"
  unsquashfs -q -n -d "$UPD/v1" "$DIST/$IMAGE_NAME.raucb" root.ext4 boot.vfat >/dev/null || return 1
  local t0; t0=$(date +%s)
  compile_moat_arm64 "$UPD/moat-v2" "--define=MOAT_BUILD_VERSION=\"$V2\"" 2>"$UPD/compile.log" ||
    { cat "$UPD/compile.log" >&2; return 1; }
  log "  moat $V2 compiled for arm64 in $(($(date +%s) - t0)) s"
  printf '#!/bin/sh\n# version 3 of the update test: a Moat that cannot start\nexit 1\n' >"$UPD/moat-v3"
  local v
  for v in v2 v3; do
    cp --sparse=always "$UPD/v1/root.ext4" "$UPD/$v-root.ext4" && replace_moat "$UPD/$v-root.ext4" "$UPD/moat-$v" || return 1
  done
  # the test's serial console in both; version 3's kernel command line runs /bin/false as init, so its
  # kernel panics ("Attempted to kill init!") on every boot and panic=10 restarts it
  serial_console "$UPD/v1/boot.vfat" || return 1
  cp "$UPD/v1/boot.vfat" "$UPD/v3-boot.vfat"
  printf '%s init=/bin/false\n' "$(mtype -i "$UPD/v3-boot.vfat" ::/cmdline.txt | tr -d '\r\n')" |
    mcopy -o -i "$UPD/v3-boot.vfat" - ::/cmdline.txt || return 1
  MOAT_BUNDLE_VERSION=$V2 bash "$REPO/scripts/build-bundle.sh" "$UPD/v2.raucb" "$UPD/v2-root.ext4" "$UPD/v1/boot.vfat" &&
    MOAT_BUNDLE_VERSION=$V3 bash "$REPO/scripts/build-bundle.sh" "$UPD/v3.raucb" "$UPD/v3-root.ext4" "$UPD/v3-boot.vfat" || return 1
  rm -f "$UPD"/v[23]-root.ext4
  UPDATE_FIGURES+=("bundle_v2_mib=$(($(stat -c%s "$UPD/v2.raucb") >> 20))")
}

# The bundles the image must refuse. Their content does not matter (the refusal comes before it is read), so the
# stranger's and the other system's carry a small file: another key (a throwaway pair, never the image's), the
# other system's compatible, and the first half of version 2's bundle.
make_refused_bundles() {
  head -c 1048576 /dev/urandom >"$UPD/small.img"   # rauc wants more than one block of squashfs
  openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=Not Moat's update key" \
    -keyout "$UPD/stranger.key.pem" -out "$UPD/stranger.cert.pem" 2>/dev/null || return 1
  MOAT_BUNDLE_KEY="$UPD/stranger.key.pem" MOAT_BUNDLE_CERT="$UPD/stranger.cert.pem" MOAT_BUNDLE_VERSION=$V2 \
    bash "$REPO/scripts/build-bundle.sh" "$UPD/stranger.raucb" "$UPD/small.img" || return 1
  MOAT_BUNDLE_COMPATIBLE=moat-x86-64 MOAT_BUNDLE_VERSION=$V2 \
    bash "$REPO/scripts/build-bundle.sh" "$UPD/other.raucb" "$UPD/small.img" || return 1
  head -c $(($(stat -c%s "$UPD/v2.raucb") / 2)) "$UPD/v2.raucb" >"$UPD/truncated.raucb"
}

# Uploads a bundle as the dashboard does (multipart "file", the session's SID), or gives its https URL (JSON
# {"url"}), and keeps the reply, each line with the seconds since the request began (the first line comes once
# the bundle is received and checked), then a last line "http=CODE".
upload() { # bundle-file-or-https-url reply-file
  local t0=${EPOCHREALTIME/./} line d body
  if [[ $1 == https://* ]]; then body=(-H 'Content-Type: application/json' --data "{\"url\": \"$1\"}")
  else body=(-F "file=@$1;type=application/octet-stream"); fi
  on_lan curl -sS -N -m 900 ${SID:+-H "X-FTL-SID: $SID"} "${body[@]}" \
    -w '\nhttp=%{http_code}\n' "http://$GUEST_IP:$HTTP_PORT/api/action/update" 2>&1 |
    while IFS= read -r line; do
      d=$(((${EPOCHREALTIME/./} - t0) / 100000))   # tenths of a second
      if [ -n "$line" ]; then printf '%d.%d\t%s\n' $((d / 10)) $((d % 10)) "$line"; fi
    done >"$2"
}
reply_text() { cut -f2- "$1" | grep -v '^http='; }     # reply-file -> the body
reply_code() { cut -f2- "$1" | sed -n 's/^http=//p'; }  # reply-file -> the HTTP status

# What must not change when a bundle is refused: RAUC's view of the slots and the API's of the versions.
slots_state() {
  guest rauc status --output-format=json | jq -cS . && api GET /api/info/update | jq -cS '{running, other}'
}

refused() { # bundle hint: 400 "Update refused" with that hint
  upload "$1" "$UPD/refused.out" || true
  local code body; code=$(reply_code "$UPD/refused.out") body=$(reply_text "$UPD/refused.out")
  log "  $code $(jq -r '.error.message + ": " + .error.hint' <<<"$body" 2>/dev/null || echo "$body")"
  [ "$code" = 400 ] && [ "$(jq -r .error.message <<<"$body")" = "Update refused" ] &&
    [ "$(jq -r .error.hint <<<"$body")" = "$2" ]
}

same_slots_state() { # the state before the refusals, $UPDATE_BEFORE
  local now; now=$(slots_state) || return 1
  [ "$now" = "$UPDATE_BEFORE" ] || { log "  before: $UPDATE_BEFORE"; log "  now:    $now"; return 1; }
}

api_installs() { # bundle-or-url version [figure-name]: the streamed progress ends in "installed version V into the other slot…"
  local out="$UPD/install-${3:-$2}.out" last first_s last_s
  upload "$1" "$out" || { log "  curl failed: $(tail -3 "$out")"; return 1; }
  last=$(reply_text "$out" | tail -1)
  first_s=$(head -1 "$out" | cut -f1) last_s=$(grep -v $'\thttp=' "$out" | tail -1 | cut -f1)
  log "  HTTP $(reply_code "$out"); first progress line after ${first_s} s (upload and check), the last after ${last_s} s: $last"
  UPDATE_FIGURES+=("install_${3:-$2}: received and checked ${first_s} s, installed ${last_s} s after the request began")
  [ "$(reply_code "$out")" = 200 ] && [[ $last == "installed version $2 into the other slot"* ]]
}

# After an install into slot S (boot partition B, root R): RAUC's post-install handler gave boot B its own
# command line, and RAUC's U-Boot backend put S first in BOOT_ORDER with 3 tries.
trial_pending() { # slot boot-partition root-partition
  local out; out=$(guest "export MTOOLS_SKIP_CHECK=1; mtype -i /dev/disk/by-partuuid/6d6f6174-0$2 ::/cmdline.txt
    fw_printenv BOOT_ORDER BOOT_${1}_LEFT") || return 1
  log "  $(tr '\n' '|' <<<"$out")"
  local other=A; [ "$1" = A ] && other=B
  grep -q "root=PARTUUID=6d6f6174-0$3 rw rauc.slot=$1 " <<<"$out" && grep -qx "BOOT_ORDER=$1 $other" <<<"$out" &&
    grep -qx "BOOT_${1}_LEFT=3" <<<"$out"
}

api_reboot() { # slot: 202, the next boot is slot's trial
  REBOOT_ASKED=$(date +%s)
  api POST /api/action/reboot '{}' >"$UPD/reboot.json"
  log "  $API_STATUS $(cat "$UPD/reboot.json")"
  [ "$API_STATUS" = 202 ] && jq -e --arg s "$1" '.status == "rebooting" and .slot == $s and .tryboot == true' "$UPD/reboot.json" >/dev/null
}

# moat-reboot.path acts on the request with a plain reboot, which ends QEMU (-no-reboot); powered on again,
# U-Boot's script picks the slot by the counters.
boots_partition() { # partition serial-log-name [dns]: with dns, waits for the first DNS answer too
  power_on_again $((BOOT_TIMEOUT + 300)) "$2" || return 1
  log "  QEMU ended and was powered on again $(($(date +%s) - REBOOT_ASKED)) s after the reboot was asked for; U-Boot booted partition $BOOTED_PARTITION"
  [ "$BOOTED_PARTITION" = "$1" ] || return 1
  [ -z "${3:-}" ] && return 0
  wait_dns "$BOOT_TIMEOUT" || { log "  no DNS answer"; tail -30 "$T/$2" >&2; return 1; }
  local s=$(($(date +%s) - REBOOT_ASKED))
  log "  first DNS answer ${s} s after the reboot was asked for"
  UPDATE_FIGURES+=("reboot_to_first_dns_answer_$3=${s}s")
}

# The trial's first boot loses power once its kernel runs (QEMU killed as U-Boot hands over): powered on again,
# U-Boot tries the same slot once more, with one try fewer.
trial_interrupted() { # slot serial-log-name
  local log="$T/$2" t0; t0=$(date +%s)
  cut_power_at "$log" 'Starting kernel' "$BOOT_TIMEOUT" || return 1
  start_qemu --no-reboot "$T" "${2%.log}-again.log"
  booted_slot "$T/${2%.log}-again.log" 300 || return 1
  UPDATE_FIGURES+=("trial_interrupted: powered on again, U-Boot chose slot $BOOTED_SLOT in $(($(date +%s) - t0)) s: $BOOT_LINE")
  [ "$BOOTED_SLOT" = "$1" ] && [[ $BOOT_LINE == *"tries left "*"$1=1"* ]]
}

# A version whose kernel panics at every boot: each panic restarts the machine (panic=10; QEMU ends and is
# powered on again), U-Boot takes a try each time, and once slot's 3 are used up it boots the other slot.
panics_until_fallback() { # slot other-partition serial-log-prefix
  local n t0; t0=$(date +%s)
  for n in 1 2 3 4; do
    power_on_again $((BOOT_TIMEOUT + 300)) "$3-$n.log" || return 1
    if [ "$BOOTED_PARTITION" = "$2" ]; then
      local s=$(($(date +%s) - t0))
      log "  after $((n - 1)) panicking boots of slot $1, U-Boot booted partition $2 (${s} s)"
      UPDATE_FIGURES+=("panic_fallback: $((n - 1)) boots of slot $1 panicked, then U-Boot booted the old slot ${s} s after the reboot: $BOOT_LINE")
      [ "$n" = 4 ] || return 1
      wait_dns "$BOOT_TIMEOUT" || { log "  no DNS answer"; return 1; }
      UPDATE_FIGURES+=("panic_fallback_to_first_dns_answer=$(($(date +%s) - t0))s")
      return 0
    fi
    [ "$BOOTED_SLOT" = "$1" ] || return 1
    wait_for 300 grep -aq 'Kernel panic' "$T/$3-$n.log" || { log "  no kernel panic in boot $n"; return 1; }
    log "  boot $n of slot $1 panicked: $(grep -a -m1 'Kernel panic' "$T/$3-$n.log" | tr -d '\r')"
  done
  return 1
}

runs_version() { # version slot: /api/info/version and /api/info/update say so (after a new login: a new boot)
  wait_for 120 login "$password" || { log "  the password does not work"; return 1; }
  local v u; v=$(api GET /api/info/version | jq -r .version.core.local.version)
  u=$(api GET /api/info/update | jq -c '{running, other}')
  log "  /api/info/version: $v; /api/info/update: $u"
  [ "$v" = "v$1" ] && jq -e --arg v "v$1" --arg s "$2" '.running.version == $v and .running.slot == $s' <<<"$u" >/dev/null
}
data_kept() { wait_for 60 answers nas.moat.test 10.1.2.3 && wait_for 60 blocked ads.moat.test; }

is_default() { # slot: moat-health confirmed the booted trial: marked good (3 tries again), RAUC's primary
  local out; out=$(guest 'rauc status --output-format=json | grep -o "\"booted\":\"[A-Z]*\""
      fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; echo "confirmed=$(cat /etc/moat/rauc/confirmed)"') || return 1
  log "  $(tr '\n' '|' <<<"$out")"
  grep -qx "\"booted\":\"$1\"" <<<"$out" && grep -q "^BOOT_ORDER=$1 " <<<"$out" && grep -qx "BOOT_${1}_LEFT=3" <<<"$out" &&
    grep -qx "confirmed=$1" <<<"$out"
}

rollback_reported() { # the other slot is bad and Moat's messages say that version did not start
  local u m; u=$(api GET /api/info/update | jq -c .other)
  m=$(api GET /api/info/messages | jq -r '.messages[] | select(.type == "UPDATE_ROLLBACK") | .plain')
  log "  other slot: $u; UPDATE_ROLLBACK: $m"
  local last; last=$(api GET /api/info/update | jq -c .last)
  log "  last result: $last"
  jq -e --arg v "$V3" '.version == $v and .bootStatus == "bad"' <<<"$u" >/dev/null &&
    grep -q "^the update to version $V3 did not start; Moat is back on version v$V2 (slot B)" <<<"$m" &&
    jq -e --arg v "$V3" '.ok == false and .version == $v and (.message | startswith("the update to version " + $v + " did not start"))' <<<"$last" >/dev/null
}

# The update server: a certificate for 10.0.2.2 (the host's loopback as the guest sees it) from an authority of
# the test's own, and serve-https.ts serving $UPD on a free loopback port. Sets UPDATE_URL.
start_update_server() {
  local d="$UPD/https"
  mkdir -p "$d"
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Moat image test update authority" \
    -keyout "$d/ca.key" -out "$d/ca.pem" 2>/dev/null &&
    openssl req -newkey rsa:2048 -nodes -subj "/CN=10.0.2.2" -keyout "$d/server.key" -out "$d/server.csr" 2>/dev/null &&
    openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial -days 2 \
      -extfile <(printf 'subjectAltName=IP:10.0.2.2\nextendedKeyUsage=serverAuth\n') -out "$d/server.pem" 2>/dev/null ||
    return 1
  "$BUN" "$REPO/scripts/image-lib/serve-https.ts" "$UPD" "$d/server.pem" "$d/server.key" >"$d/server.log" 2>&1 &
  UPDATE_SERVER_PID=$!
  local port=
  for _ in $(seq 100); do
    port=$(sed -n 's/^listening on //p' "$d/server.log"); [ -n "$port" ] && break; sleep 0.1
  done
  [ -n "$port" ] || { log "  serve-https.ts did not start: $(cat "$d/server.log")"; return 1; }
  UPDATE_URL="https://10.0.2.2:$port"
  curl -sS -o /dev/null --cacert "$d/ca.pem" --resolve "10.0.2.2:$port:127.0.0.1" "$UPDATE_URL/v2.raucb" -r 0-0 || return 1
  log "  serving $UPD at $UPDATE_URL (pid $UPDATE_SERVER_PID)"
}
stop_update_server() { [ -z "${UPDATE_SERVER_PID:-}" ] || kill "$UPDATE_SERVER_PID" 2>/dev/null || true; }

# What a person with a private update server does: Moat (Bun) trusts NODE_EXTRA_CA_CERTS besides its own roots.
# A drop-in on the running root (slot B), read at Moat's next start: the boot after the power cut.
guest_trusts_update_ca() {
  guest_once 'cat >/etc/moat-update-test-ca.pem' <"$UPD/https/ca.pem" &&
    guest 'mkdir -p /etc/systemd/system/moat.service.d && printf "[Service]\nEnvironment=NODE_EXTRA_CA_CERTS=/etc/moat-update-test-ca.pem\n" >/etc/systemd/system/moat.service.d/update-test-ca.conf && systemctl daemon-reload'
}

# Uploads the bundle and cuts the power (kill -9 QEMU) halfway through RAUC's write of the root slot: at the
# first progress line of "Copying image to rootfs" at 50% or more (the copy runs from 43% to about 80%).
mid_root_write() { awk -F'\t' '$2 ~ /% Copying image to rootfs/ && $2 + 0 >= 50 { f = 1 } END { exit !f }' "$1"; }
power_cut_during_install() { # bundle
  local out="$UPD/cut.out" up at
  : >"$out"
  upload "$1" "$out" &
  up=$!
  local deadline=$(($(date +%s) + 900))
  until mid_root_write "$out"; do
    if ! kill -0 "$up" 2>/dev/null || (($(date +%s) > deadline)); then
      log "  the root slot's write was not seen halfway: $(tail -3 "$out" | tr '\n' '|')"
      kill "$up" 2>/dev/null; return 1
    fi
    sleep 0.2
  done
  kill -9 "$QEMU_PID"
  at=$(tail -1 "$out")
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID= REBOOT_ASKED=$(date +%s)
  wait "$up" 2>/dev/null || true
  log "  power cut ${at%%$'\t'*} s after the upload began, at: ${at#*$'\t'}"
  UPDATE_FIGURES+=("power_cut: at '${at#*$'\t'}'")
}

interrupted_reported() { # version slot: UPDATE_INTERRUPTED says the write into slot did not finish
  local m last; m=$(api GET /api/info/messages | jq -r '.messages[] | select(.type == "UPDATE_INTERRUPTED") | .plain')
  last=$(api GET /api/info/update | jq -c .last)
  log "  UPDATE_INTERRUPTED: $m; last: $last"
  grep -q "^the update to version $1 did not finish: the machine stopped while it was being written into slot $2; Moat still runs version v$V2 (slot B), unchanged" <<<"$m" &&
    jq -e --arg v "$1" '.ok == false and .version == $v and (.message | startswith("the update to version " + $v + " did not finish"))' <<<"$last" >/dev/null
}

# A person's own reboot (SSH, or the power button's shutdown and on again) instead of the dashboard's "Reboot
# now": RAUC's backend made the new slot first in BOOT_ORDER when it installed it, so any boot starts the trial.
plain_reboot() {
  REBOOT_ASKED=$(date +%s)
  local rc=0; guest_once 'systemctl reboot' >/dev/null 2>&1 || rc=$?
  log "  systemctl reboot over SSH: exit $rc"
  ((rc == 0 || rc == 255))   # 255: the connection closed under it
}

run_update_checks() {
  local failed_before=$failed
  check "bundles of versions $V2 and $V3 made from the build's root images" make_update_bundles
  check "refusal test bundles made (another key, another system, truncated)" make_refused_bundles
  ((failed == failed_before)) || return 0

  UPDATE_BEFORE=$(slots_state) || UPDATE_BEFORE="rauc status failed"
  check "refused through the API: a bundle signed by another key" \
    refused "$UPD/stranger.raucb" "the bundle is not signed by this system's update key: refused"
  check "refused through the API: a truncated bundle" refused "$UPD/truncated.raucb" "the bundle is truncated or corrupt: refused"
  check "refused through the API: a bundle for another system" \
    refused "$UPD/other.raucb" "the bundle is built for moat-x86-64, this is moat-rpi-arm64: refused"
  check "rauc status and GET /api/info/update unchanged by the refused bundles" same_slots_state

  check "version $V2 uploaded to POST /api/action/update installs" api_installs "$UPD/v2.raucb" "$V2"
  check "slot B written with its own cmdline.txt, first in BOOT_ORDER with 3 tries" trial_pending B 3 6
  check "POST /api/action/reboot: 202, slot B as a trial" api_reboot B
  check "moat-reboot.path reboots: U-Boot boots the trial, partition 3" boots_partition 3 serial-v2.log
  check "the trial's boot loses power: U-Boot tries slot B again, one try fewer" trial_interrupted B serial-v2.log
  wait_dns "$BOOT_TIMEOUT" && UPDATE_FIGURES+=("reboot_to_first_dns_answer_v2=$(($(date +%s) - REBOOT_ASKED))s (with the power cut)")
  check "version $V2 runs on slot B" runs_version "$V2" B
  check "the password, local record and deny entry are kept across the update" data_kept
  check "moat-health confirms slot B: marked good, 3 tries, first in BOOT_ORDER" wait_for 240 is_default B
  ((failed == failed_before)) || return 0

  check "version $V3 (its kernel panics) installs through the API into slot A" api_installs "$UPD/v3.raucb" "$V3"
  check "slot A written with its own cmdline.txt, first in BOOT_ORDER with 3 tries" trial_pending A 2 5
  check "POST /api/action/reboot: 202, slot A as a trial" api_reboot A
  check "3 boots of slot A panic, then U-Boot boots slot B by itself, DNS answers" panics_until_fallback A 3 serial-v3
  check "version $V2 runs on slot B again" runs_version "$V2" B
  check "GET /api/info/update and /api/info/messages say version $V3 did not start" wait_for 60 rollback_reported
  check "the data is still there after the rollback" data_kept
  ((failed == failed_before)) || return 0

  check "an https server of the bundles on this machine's loopback (10.0.2.2 to the guest)" start_update_server
  check "the guest's Moat is told to trust the update server's authority (from its next start)" guest_trusts_update_ca
  check "power cut (QEMU killed) while version $V2 is being written into slot A" power_cut_during_install "$UPD/v2.raucb"
  check "after the power cut U-Boot boots partition 3 again, DNS answers" boots_partition 3 serial-cut.log power_cut
  check "version $V2 still runs on slot B after the power cut" runs_version "$V2" B
  check "the data is kept across the power cut" data_kept
  check "/api/info/messages says the update to version $V2 did not finish in slot A" wait_for 60 interrupted_reported "$V2" A
  ((failed == failed_before)) || { stop_update_server; return 0; }

  check "version $V2 from an https URL installs through the API into slot A" api_installs "$UPDATE_URL/v2.raucb" "$V2" url
  check "slot A written with its own cmdline.txt, first in BOOT_ORDER with 3 tries" trial_pending A 2 5
  check "a plain reboot (systemctl reboot over SSH, not the API's) instead of the trial's" plain_reboot
  check "U-Boot boots the trial of partition 2 all the same, DNS answers" boots_partition 2 serial-url.log url
  check "version $V2 runs on slot A" runs_version "$V2" A
  check "the data is kept across the update from the URL" data_kept
  check "moat-health confirms slot A" wait_for 240 is_default A
  stop_update_server
}
