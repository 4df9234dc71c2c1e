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
  local f; f=$(guest cat /boot/firmware/moat-settings.txt) || return 1
  grep -qx 'MOAT_PASSWORD=' <<<"$f" && ! grep -q "$password" <<<"$f" && grep -q '^MOAT_SSH_KEY=ssh-ed25519' <<<"$f"
}
bad_value_journaled() {
  guest journalctl -b -u moat-firstboot --no-pager | grep -q 'MOAT_GATEWAY rejected'
}
data_grown() { # the 64 MiB data partition fills the 2 GiB test disk, and stays mounted
  guest mountpoint -q /etc/moat || { log "  /etc/moat is not mounted"; return 1; }
  local kb; kb=$(guest df -k --output=size /etc/moat | tail -1) || return 1
  log "  /etc/moat: $((kb / 1024)) MiB"
  ((kb > 1024 * 1024))
}
hostname_is_moat() { [ "$(guest hostname)" = moat ]; }
time_sync_enabled() { guest systemctl is-enabled systemd-timesyncd.service >/dev/null; }
runs_confined() { # own user, only CAP_NET_BIND_SERVICE
  local pid; pid=$(guest systemctl show -P MainPID moat.service) || return 1
  local st; st=$(guest cat "/proc/$pid/status") || return 1
  local user; user=$(guest stat -c %U "/proc/$pid") || return 1
  log "  moat runs as $user; CapEff $(awk '/^CapEff/ {print $2}' <<<"$st")"
  [ "$user" = moat ] && grep -q '^CapEff:.*0000000000000400$' <<<"$st"
}
writer_idle() { # the query writer thread runs at SCHED_IDLE, under the service's restrictions too
  local pid; pid=$(guest systemctl show -P MainPID moat.service) || return 1
  local stats; stats=$(guest "cat /proc/$pid/task/*/stat") || return 1
  # field 41 (policy) is the 39th after the ") " that ends the thread name
  local idle; idle=$(sed 's/.*) //' <<<"$stats" | awk '$39 == 5' | wc -l)
  log "  threads at SCHED_IDLE: $idle of $(wc -l <<<"$stats")"
  ((idle >= 1))
}
nothing_else_listens() { # moat on 53/80, sshd (enabled by this test) on 22, networkd's DHCP clients
  local ss; ss=$(guest ss -Htulpn) || return 1
  local bad; bad=$(awk '{ n = split($5, a, ":"); p = a[n] }
    !((p == 53 || p == 80) && /"moat"/) && !(p == 22 && /sshd/) && !((p == 68 || p == 546) && /systemd-network/)' <<<"$ss")
  [ -z "$bad" ] || { log "  unexpected listeners:"; printf '%s\n' "$bad" >&2; }
  [ -z "$bad" ]
}

restarts_after_kill() {
  local before after
  before=$(guest systemctl show -P MainPID moat.service) || return 1
  guest kill -9 "$before" || return 1
  sleep 3
  wait_for 120 dns_up || return 1
  after=$(guest systemctl show -P MainPID moat.service)
  log "  moat pid $before killed; now $after"
  [ -n "$after" ] && [ "$after" != 0 ] && [ "$after" != "$before" ]
}

survives_reboot() {
  local t0; t0=$(date +%s)
  guest systemctl reboot || true
  wait_for 300 not dns_up || return 1     # down first, so the answer below comes from the new boot
  wait_dns "$BOOT_TIMEOUT" || return 1
  log "  DNS back $(( $(date +%s) - t0 ))s after the reboot started"
  wait_for 120 login "$password" || return 1
  wait_for 60 answers nas.moat.test 10.1.2.3 && blocked ads.moat.test
}

not() { ! "$@"; }

run_checks() {
  check "API asks for a password" wait_for 120 api_requires_password
  check "login with the settings-file password" wait_for 120 login "$password"
  check "local record added through the API" add_local_record "10.1.2.3 nas.moat.test"
  check "DNS answers the local record" wait_for 60 answers nas.moat.test 10.1.2.3
  check "domain not blocked before it is denied" not blocked ads.moat.test
  check "domain denied through the API" deny_domain ads.moat.test
  check "DNS blocks the denied domain" wait_for 60 blocked ads.moat.test
  check "SSH enabled by the settings-file key" wait_for 60 guest true
  check "secrets removed from the settings file" settings_applied
  check "bad setting reported in the journal" bad_value_journaled
  check "data partition grown to the card, /etc/moat still mounted" data_grown
  check "hostname is moat" hostname_is_moat
  check "time sync enabled" time_sync_enabled
  check "moat runs as its own user with CAP_NET_BIND_SERVICE only" runs_confined
  check "the query writer thread runs at SCHED_IDLE" writer_idle
  check "nothing else listens" nothing_else_listens
  check "service comes back after being killed" restarts_after_kill
  check "reboot keeps the password, local record and deny list" survives_reboot
}
