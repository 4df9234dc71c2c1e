# The checks test-image.sh runs against the booted image. Sourced; uses qemu.sh's helpers and check().

login() { # -> sets SID; fails on a wrong password or a missing API
  SID=
  # not body=$(api …): API_STATUS set in that subshell would be lost (and every retry a new session)
  api POST /api/auth "{\"password\":\"$1\"}" >"$T/login.json"
  SID=$(jq -r '.session.sid // empty' "$T/login.json" 2>/dev/null) || SID=
  [ "$API_STATUS" = 200 ] && [ -n "$SID" ]
}

api_requires_password() {
  local saved=${SID:-}; SID=
  api GET /api/auth >/dev/null; local anon=$API_STATUS
  api POST /api/auth '{"password":"wrong-password"}' >/dev/null; local wrong=$API_STATUS
  SID=$saved
  log "  GET /api/auth without session: $anon; wrong password: $wrong"
  [ "$anon" = 401 ] && [ "$wrong" = 401 ]
}

add_local_record() { # "IP NAME"
  api PUT "/api/config/dns/hosts/$(jq -rn --arg v "$1" '$v|@uri')" >/dev/null
  log "  PUT /api/config/dns/hosts: $API_STATUS"
  case $API_STATUS in 200|201|204) return 0 ;; esac
  api PATCH /api/config "{\"config\":{\"dns\":{\"hosts\":[\"$1\"]}}}" >/dev/null
  log "  PATCH /api/config: $API_STATUS"
  [[ $API_STATUS == 20? ]]
}

dns_up() { [ -n "$(dns_status moat.test)" ]; }
answers() { [ "$(dns "$1" A | head -1)" = "$2" ]; }   # name ip
answered_unblocked() { # a reply came (SERVFAIL included: the test's upstream is dead), and not a block
  local st; st=$(dns_status "$1"); [ -n "$st" ] && [ "$st" != NXDOMAIN ] && [ "$(dns "$1" A | head -1)" != 0.0.0.0 ]
}
blocked() { # NULL blocking answers 0.0.0.0; other modes NXDOMAIN
  local a; a=$(dns "$1" A | head -1)
  [ "$a" = 0.0.0.0 ] || [ "$(dns_status "$1")" = NXDOMAIN ]
}

deny_domain() {
  api POST /api/domains/deny/exact "{\"domain\":\"$1\"}" >/dev/null
  log "  POST /api/domains/deny/exact: $API_STATUS"
  [[ $API_STATUS == 20? ]]
}

settings_applied() {
  local f; f=$(guest cat /boot/moat/moat-settings.txt) || return 1
  grep -qx 'MOAT_PASSWORD=' <<<"$f" && ! grep -q "$password" <<<"$f" && grep -q '^MOAT_SSH_KEY=ssh-ed25519' <<<"$f"
}
bad_value_journaled() {
  guest journalctl -b -u moat-firstboot --no-pager | grep -q 'MOAT_GATEWAY rejected'
}
data_grown() { # the data partition ends where the card does, its filesystem fills it, /etc/moat is mounted
  guest mountpoint -q /etc/moat || { log "  /etc/moat is not mounted"; return 1; }
  local out; out=$(guest 'd=/dev/disk/by-partuuid/6d6f6174-07; p=$(basename "$(readlink -f $d)"); s=/sys/class/block/$p
    echo $(cat $s/start) $(cat $s/size) $(cat $s/../size); dumpe2fs -h $d 2>/dev/null | sed -n "s/^Block count: *//p; s/^Block size: *//p"') || return 1
  local start size disk count bsize
  read -r start size disk count bsize <<<"$(tr '\n' ' ' <<<"$out")"
  local part_mib=$((size / 2048)) fs_mib=$((count * bsize >> 20)) disk_mib=$((disk / 2048))
  log "  card $disk_mib MiB; data partition $part_mib MiB, ending $(((disk - start - size) / 2048)) MiB before the card's end; filesystem $fs_mib MiB"
  # the filesystem covers the card from the partition's start (after the boot and root slots) to its end
  ((disk - start - size < 8192 && part_mib - fs_mib < 4 && fs_mib > disk_mib - start / 2048 - 8))
}
# The slot layout (docs/updates.md): slot A booted, / is root A (partition 5), /boot/firmware boot A (2), both
# through the names 61-moat-slot.rules gives the booted slot's partitions, and /boot/moat is partition 1.
slot_a_mounted() {
  local out; out=$(guest 'for x in /:05 /boot/firmware:02 /boot/moat:01; do m=${x%:*} p=${x#*:}
      s=$(findmnt -no SOURCE "$m"); [ "$(readlink -f "$s")" = "$(readlink -f /dev/disk/by-partuuid/6d6f6174-$p)" ] && echo "$m=$p" || echo "$m=wrong($s)"
    done; for l in root boot; do echo "moat/$l=$(readlink -f /dev/disk/moat/$l)"; done') || return 1
  log "  $(tr '\n' ' ' <<<"$out")"
  grep -qx '/=05' <<<"$out" && grep -qx '/boot/firmware=02' <<<"$out" && grep -qx '/boot/moat=01' <<<"$out" &&
    [ "$(sed -n 's|^moat/root=||p' <<<"$out")" != "" ] && [ "$(sed -n 's|^moat/boot=||p' <<<"$out")" != "" ]
}
# The first boot came through U-Boot's boot script (image/boot/boot.cmd): slot A, one of its 3 tries taken,
# and moat-health gave the try back (RAUC's mark-good through fw_setenv): BOOT_A_LEFT is 3 again.
counters_settled() {
  local out; out=$(guest 'fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; cat /etc/moat/rauc/confirmed') || return 1
  log "  U-Boot said: ${FIRST_BOOT_LINE:-nothing}; now $(tr '\n' ' ' <<<"$out")"
  [[ ${FIRST_BOOT_LINE:-} == "booting slot A (partition 2); tries left A=2 B=0, order A B" ]] &&
    grep -qx 'BOOT_ORDER=A B' <<<"$out" && grep -qx 'BOOT_A_LEFT=3' <<<"$out" && grep -qx 'BOOT_B_LEFT=0' <<<"$out" &&
    grep -qx A <<<"$out"
}
# systemd holds the hardware watchdog (i6300esb here, bcm2835_wdt on a Pi) and a panic restarts the machine.
watchdog_armed() {
  local out; out=$(guest 'cat /sys/class/watchdog/watchdog0/identity /sys/class/watchdog/watchdog0/state \
    /sys/class/watchdog/watchdog0/timeout; sysctl -n kernel.panic; systemctl show -P RuntimeWatchdogUSec') || return 1
  log "  $(tr '\n' ' ' <<<"$out")"
  [ "$(sed -n 2p <<<"$out")" = active ] && [ "$(sed -n 3p <<<"$out")" = 30 ] && [ "$(sed -n 4p <<<"$out")" = 10 ] &&
    [ "$(sed -n 5p <<<"$out")" = 30s ]
}
# RAUC in the guest knows both slots and that A booted and is the primary (rauc status through its service).
rauc_slots() {
  local out; out=$(guest rauc status --output-format=json 2>&1) || { log "  rauc status failed: $out"; return 1; }
  local booted primary slots
  booted=$(jq -r .booted <<<"$out" 2>/dev/null) primary=$(jq -r .boot_primary <<<"$out" 2>/dev/null)
  slots=$(jq -r '[.slots[] | keys[]] | sort | join(" ")' <<<"$out" 2>/dev/null)
  log "  rauc status: booted $booted, primary $primary, slots $slots"
  [ "$booted" = A ] && [ "$primary" = rootfs.0 ] && [ "$slots" = "boot.0 boot.1 rootfs.0 rootfs.1" ] ||
    { log "  $out"; return 1; }
}
# The API's reboot request (POST /api/action/reboot) is acted on by root: the path unit must be watching.
reboot_watch() {
  local state; state=$(guest systemctl is-active moat-reboot.path 2>&1)
  log "  moat-reboot.path: $state"
  [ "$state" = active ]
}
hostname_is_moat() { [ "$(guest hostname)" = moat ]; }
time_sync_enabled() { guest systemctl is-enabled systemd-timesyncd.service >/dev/null; }
runs_confined() { # own user, only CAP_NET_BIND_SERVICE and CAP_NET_RAW; pid, owner and status read in one go (a restart between reads)
  local out; out=$(guest 'p=$(systemctl show -P MainPID moat.service); stat -c %U /proc/$p && cat /proc/$p/status') || return 1
  local user; user=$(head -1 <<<"$out")
  log "  moat runs as $user; CapEff $(awk '/^CapEff/ {print $2}' <<<"$out")"
  [ "$user" = moat ] && grep -q '^CapEff:.*0000000000002400$' <<<"$out"
}
# Threads come and go (Bun's and the runtime's helpers): a task that ends between the listing and the
# reading is skipped, not an error. misc.nice (default -10, as Pi-hole's FTL) is set on the main thread at
# start (src/core/process-priority.ts), which the unit's LimitNICE=-20 allows the unprivileged user; the
# query writer then lowers itself to SCHED_IDLE (src/core/thread-priority.ts). Fails when the main thread
# is gone or at another niceness, or when no thread is at SCHED_IDLE (the writer missing or at another policy).
priorities_set() { # NICE: moat's main thread (the unit's MainPID) at NICE, the writer at SCHED_IDLE
  # the pid and the stat lines in one go: a restart between reads would mix two processes
  local out; out=$(guest 'p=$(systemctl show -P MainPID moat.service); echo "$p"; for f in /proc/$p/task/*/stat; do cat "$f" 2>/dev/null || :; done') || return 1
  local pid stats; pid=$(head -1 <<<"$out") stats=$(tail -n +2 <<<"$out")
  [ -n "$stats" ] || { log "  no moat threads (not running?)"; return 1; }
  local nice idle; nice=$(thread_nice "$pid" <<<"$stats") idle=$(sched_idle_count <<<"$stats")
  log "  main thread $pid at nice ${nice:-?}; threads at SCHED_IDLE: $idle of $(wc -l <<<"$stats")"
  [ "$nice" = "$1" ] && ((idle >= 1))
}
thread_nice() { # TID, /proc/<pid>/task/*/stat lines -> that thread's niceness (nothing when it is not there)
  # field 19 (nice) is the 17th after the ") " that ends the thread name (which may hold spaces and parentheses)
  awk -v tid="$1" '$1 == tid' | sed 's/.*) //' | awk '{ print $17 }'
}
sched_idle_count() { # /proc/<pid>/task/*/stat lines -> how many run at SCHED_IDLE (policy 5)
  # field 41 (policy) is the 39th after the ") " that ends the thread name (which may hold spaces and parentheses)
  sed 's/.*) //' | awk '$39 == 5' | wc -l
}
# What listens on the appliance (README, "Appliance image"): Moat's DNS (53), HTTP (80), HTTPS (443), DNS over
# TLS (853) and NTP (123); sshd when the settings file gives a key; Moat's DHCP (67) when it turns DHCP on.
# systemd-networkd's DHCP clients (68, 546) listen while the Pi takes its own address by DHCP.
APPLIANCE_LISTENERS="udp/53/moat tcp/53/moat tcp/80/moat tcp/443/moat tcp/853/moat udp/123/moat"
SSH_LISTENER=tcp/22/sshd
DHCP_SERVER_LISTENER=udp/67/moat
DHCP_CLIENT_LISTENERS="udp/68/systemd-network udp/546/systemd-network"

listens_exactly() { # "wanted listeners" ["listeners allowed besides"]: every wanted one is there, nothing else
  local ss; ss=$(guest ss -Htulpn) || return 1
  compare_listeners "$ss" "$1" "${2:-}"
}
compare_listeners() { # ss-output wanted allowed (space-separated proto/port/process)
  local have want may missing extra
  have=$(listener_set <<<"$1")
  want=$(words "$2") may=$(words "$2 $3")
  missing=$(LC_ALL=C comm -23 <(printf '%s\n' "$want") <(printf '%s\n' "$have") | sed '/^$/d')
  extra=$(LC_ALL=C comm -13 <(printf '%s\n' "$may") <(printf '%s\n' "$have") | sed '/^$/d')
  log "  listening: $(paste -sd' ' <<<"$have")"
  [ -z "$missing" ] || log "  missing: $(paste -sd' ' <<<"$missing")"
  [ -z "$extra" ] || log "  unexpected: $(paste -sd' ' <<<"$extra")"
  [ -z "$missing" ] && [ -z "$extra" ]
}
words() { tr -s ' ' '\n' <<<"$1" | sed '/^$/d' | LC_ALL=C sort -u; }
listener_set() { # `ss -Htulpn` lines -> "proto/port/process", sorted, each once (IPv4 and IPv6 sockets alike)
  awk '{ n = split($5, a, ":"); proc = "?"
         if (match($0, /users:\(\("[^"]+"/)) proc = substr($0, RSTART + 9, RLENGTH - 10)
         print $1 "/" a[n] "/" proc }' | LC_ALL=C sort -u
}

restarts_after_kill() {
  local before; before=$(guest systemctl show -P MainPID moat.service) || return 1
  guest_once kill -9 "$before" || return 1
  # a new main process (systemd restarts it after RestartSec) that answers DNS
  new_moat() { local now; now=$(guest systemctl show -P MainPID moat.service) &&
    [ -n "$now" ] && [ "$now" != 0 ] && [ "$now" != "$before" ] && dns_up && log "  moat pid $before killed; now $now"; }
  wait_for 120 new_moat
}

boot_id() { guest cat /proc/sys/kernel/random/boot_id; }
survives_reboot() {
  local t0 before; t0=$(date +%s); before=$(boot_id) || return 1
  guest_once systemctl reboot || true
  # QEMU runs with -no-reboot: the reboot ends it and the harness powers on again, as the Pi would boot
  power_on_again 180 serial-reboot.log || return 1
  # answers count only once the guest runs a new boot (not while the old one is still shutting down)
  new_boot() { local now; now=$(boot_id 2>/dev/null) && [ -n "$now" ] && [ "$now" != "$before" ]; }
  wait_for "$BOOT_TIMEOUT" new_boot || { log "  no new boot"; return 1; }
  wait_dns "$BOOT_TIMEOUT" || return 1
  log "  DNS back $(( $(date +%s) - t0 ))s after the reboot started"
  wait_for 120 login "$password" || return 1
  wait_for 60 answers nas.moat.test 10.1.2.3 && wait_for 60 blocked ads.moat.test
}

own_name_answered() { # a browser on the network finds the dashboard at http://moat/: Moat answers its own name
  local want got; want=$(guest "ip -4 -o addr show dev eth0 | awk '{print \$4}' | cut -d/ -f1 | head -1") || return 1
  got=$(dns moat A | head -1)
  log "  moat -> ${got:-no answer} (eth0: $want)"
  [ -n "$want" ] && [ "$got" = "$want" ]
}
dashboard_renders() {
  "$BUN" "$here/image-lib/dashboard-check.ts" "$HTTP_PORT" "$password" "$T/dashboard.png" >&2
}

not() { ! "$@"; }

# What the later stages build on: the password, a local record, a denied domain, SSH.
first_checks() {
  check "API asks for a password" wait_for 120 api_requires_password
  check "login with the settings-file password" wait_for 120 login "$password"
  check "local record added through the API" add_local_record "10.1.2.3 nas.moat.test"
  check "DNS answers the local record" wait_for 60 answers nas.moat.test 10.1.2.3
  check "domain not blocked before it is denied" wait_for 60 answered_unblocked ads.moat.test
  check "domain denied through the API" deny_domain ads.moat.test
  check "DNS blocks the denied domain" wait_for 60 blocked ads.moat.test
  check "SSH enabled by the settings-file key" wait_for 60 guest true
}

run_checks() {
  first_checks
  check "secrets removed from the settings file" settings_applied
  check "bad setting reported in the journal" bad_value_journaled
  check "data partition and filesystem grown to the card's end, /etc/moat mounted" data_grown
  check "slot A booted: / on root A, /boot/firmware on boot A, /boot/moat on partition 1" slot_a_mounted
  check "rauc status: slots A and B, A booted and primary" wait_for 60 rauc_slots
  check "U-Boot's script booted slot A, and moat-health gave its try back (BOOT_A_LEFT=3)" wait_for 120 counters_settled
  check "systemd arms the hardware watchdog (30 s), a panic restarts after 10 s" wait_for 60 watchdog_armed
  check "moat-reboot.path watches for the API's reboot request" wait_for 30 reboot_watch
  check "hostname is moat" hostname_is_moat
  check "time sync enabled" time_sync_enabled
  check "moat runs as its own user with CAP_NET_BIND_SERVICE and CAP_NET_RAW only" wait_for 30 runs_confined
  check "moat's main thread runs at misc.nice (-10), the query writer thread at SCHED_IDLE" wait_for 30 priorities_set -10
  check "listening: exactly Moat's DNS, HTTP, HTTPS, DoT and NTP, and SSH" \
    wait_for 30 listens_exactly "$APPLIANCE_LISTENERS $SSH_LISTENER" "$DHCP_CLIENT_LISTENERS"
  check "DNS answers the appliance's own name, moat" wait_for 60 own_name_answered
  check "the dashboard at http://moat/ renders in Chromium after login" dashboard_renders
  check "the authority Moat made is on the data partition and served at /tls/ca.crt" wait_for 60 authority_fetched
  check "HTTPS at https://moat/ (dashboard, API) verified against that authority" wait_for 60 https_verified
  check "DNS over TLS on 853 verified against it for the name moat" wait_for 60 dot_verified nas.moat.test 10.1.2.3
  check "service comes back after being killed" restarts_after_kill
  check "reboot keeps the password, local record and deny list" survives_reboot
  # a device that installed the authority keeps trusting the Pi after a restart
  check "after the reboot HTTPS still verifies against the same authority" wait_for 60 https_verified
}
