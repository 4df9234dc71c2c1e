# Parser of the first-boot settings file (moat-settings.txt on partition 1, MOAT). Sourced by firstboot
# and by the unit tests (test/image/). Pure bash: no moat, no systemd.
#
# parse_settings FILE sets the S_* variables below. A line it cannot use is reported on stderr with a
# journal priority prefix (<3> error, <4> warning) and its setting keeps its default: a typo never locks
# the owner out, and the journal says which line was wrong and why.

S_PASSWORD=""        # API/web password; empty: keep the current one
S_UPSTREAMS=""       # ';'-separated IP[#port]; empty: keep the current upstreams
S_ADDRESS=""         # static IPv4/prefix; empty: DHCP
S_GATEWAY=""
S_WIFI_COUNTRY=""
S_WIFI_SSID=""
S_WIFI_PASSWORD=""   # empty with an SSID: open network
S_SSH_KEYS=()        # public keys; none: SSH stays off
S_DHCP_START=""      # DHCP pool (MOAT_DHCP_RANGE=start-end, needs MOAT_ADDRESS); empty: leave DHCP as it is
S_DHCP_END=""
S_DHCP_OFF=""        # "1": MOAT_DHCP_RANGE=off
SETTINGS_ERRORS=0

_settings_msg() { # priority line-number text
  printf '<%s>moat-settings.txt line %s: %s\n' "$1" "$2" "$3" >&2
}
_settings_reject() { # line-number key reason
  _settings_msg 3 "$1" "$2 rejected: $3; keeping the default"
  SETTINGS_ERRORS=$((SETTINGS_ERRORS + 1))
}

is_ipv4() {
  local IFS=. o
  local -a parts
  [[ $1 =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || return 1
  read -ra parts <<<"$1"
  for o in "${parts[@]}"; do
    [[ $o =~ ^(0|[1-9][0-9]*)$ ]] && ((o <= 255)) || return 1
  done
}

is_ipv6() {
  # Shape check only (hex groups, at most one '::'); the kernel and moat validate the rest.
  local a=$1
  [[ $a =~ ^[0-9A-Fa-f:]+$ && $a == *:* && ${#a} -ge 2 && ${#a} -le 39 ]] || return 1
  [[ $a != *:::* ]] || return 1
  local rest=${a#*::}
  [[ $rest != *::* ]] || return 1
  [[ ! $a =~ [0-9A-Fa-f]{5} ]]
}

# IP or IP#port, as Pi-hole's dns.upstreams takes them.
is_upstream() {
  local ip=${1%%#*} port=""
  [[ $1 == *#* ]] && port=${1#*#}
  if [ -n "$port" ] || [[ $1 == *#* ]]; then
    [[ $port =~ ^[1-9][0-9]{0,4}$ ]] && ((port <= 65535)) || return 1
  fi
  is_ipv4 "$ip" || is_ipv6 "$ip"
}

is_ssh_key() {
  [[ $1 =~ ^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)\ [A-Za-z0-9+/]{40,}={0,3}(\ [^[:cntrl:]]*)?$ ]]
}

_ip_number() { local IFS=. a b c d; read -r a b c d <<<"$1"; echo $(((a << 24) | (b << 16) | (c << 8) | d)); }
_same_network() { # address prefix start end
  local mask=$(((0xffffffff << (32 - $2)) & 0xffffffff)) net
  net=$(($(_ip_number "$1") & mask))
  (( ($(_ip_number "$3") & mask) == net && ($(_ip_number "$4") & mask) == net ))
}

_settings_set() { # line-number key value
  local n=$1 key=$2 v=$3
  case $key in
    MOAT_PASSWORD)
      if ((${#v} > 256)); then _settings_reject "$n" "$key" "longer than 256 characters"; else S_PASSWORD=$v; fi ;;
    MOAT_UPSTREAMS)
      local list=() u
      IFS=';, ' read -ra list <<<"$v"
      for u in "${list[@]}"; do
        if ! is_upstream "$u"; then _settings_reject "$n" "$key" "'$u' is not an IP address or IP#port"; return; fi
      done
      ((${#list[@]})) && S_UPSTREAMS=$(IFS=';'; echo "${list[*]}") ;;
    MOAT_ADDRESS)
      local ip=${v%/*} prefix=${v#*/}
      if [[ $v != */* ]] || ! is_ipv4 "$ip" || ! [[ $prefix =~ ^[0-9]{1,2}$ ]] || ((prefix < 8 || prefix > 30)); then
        _settings_reject "$n" "$key" "'$v' is not an IPv4 address with a prefix length 8-30 (like 192.168.1.2/24)"
      else S_ADDRESS=$v; fi ;;
    MOAT_GATEWAY)
      if is_ipv4 "$v"; then S_GATEWAY=$v; else _settings_reject "$n" "$key" "'$v' is not an IPv4 address"; fi ;;
    MOAT_WIFI_COUNTRY)
      v=${v^^}
      if [[ $v =~ ^[A-Z]{2}$ ]]; then S_WIFI_COUNTRY=$v; else _settings_reject "$n" "$key" "'$v' is not a two-letter country code"; fi ;;
    MOAT_WIFI_SSID)
      if ((${#v} > 32)); then _settings_reject "$n" "$key" "longer than 32 characters"
      elif [[ $v =~ [[:cntrl:]\"] ]]; then _settings_reject "$n" "$key" "contains a quote or control character"
      else S_WIFI_SSID=$v; fi ;;
    MOAT_WIFI_PASSWORD)
      if [[ $v =~ ^[0-9A-Fa-f]{64}$ ]] || { ((${#v} >= 8 && ${#v} <= 63)) && [[ $v =~ ^[[:print:]]+$ && $v != *\"* ]]; }; then
        S_WIFI_PASSWORD=$v
      else _settings_reject "$n" "$key" "a WPA passphrase has 8-63 printable characters (no double quote) or 64 hex digits"; fi ;;
    MOAT_DHCP_RANGE)
      local start=${v%%-*} end=${v#*-}
      if [[ ${v,,} == off ]]; then S_DHCP_OFF=1
      elif [[ $v != *-* ]] || ! is_ipv4 "$start" || ! is_ipv4 "$end" || [ "${start%.*}" != "${end%.*}" ] || ((${start##*.} > ${end##*.})); then
        _settings_reject "$n" "$key" "'$v' is not a range like 192.168.1.100-192.168.1.200 (or off)"
      else S_DHCP_START=$start; S_DHCP_END=$end; fi ;;
    MOAT_SSH_KEY)
      if is_ssh_key "$v"; then S_SSH_KEYS+=("$v"); else _settings_reject "$n" "$key" "not an OpenSSH public key (ssh-ed25519 AAAA... comment)"; fi ;;
    *)
      _settings_msg 4 "$n" "unknown setting '$key' ignored" ;;
  esac
}

parse_settings() { # file
  local line key value n=0
  while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    line=${line%$'\r'}                       # written on Windows
    [[ $line =~ ^[[:space:]]*(#|$) ]] && continue
    if ! [[ $line =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]*=(.*)$ ]]; then
      _settings_msg 4 "$n" "not a KEY=value line, ignored"
      continue
    fi
    key=${BASH_REMATCH[1]^^}
    value=${BASH_REMATCH[2]}
    value=${value#"${value%%[![:space:]]*}"}  # trim
    value=${value%"${value##*[![:space:]]}"}
    if [[ $value =~ ^\"(.*)\"$ || $value =~ ^\'(.*)\'$ ]]; then value=${BASH_REMATCH[1]}; fi
    [ -z "$value" ] && continue              # empty: keep the default
    _settings_set "$n" "$key" "$value"
  done <"$1"
  if [ -n "$S_ADDRESS" ] && [ -z "$S_GATEWAY" ]; then
    _settings_msg 3 "-" "MOAT_ADDRESS rejected: MOAT_GATEWAY is missing; keeping DHCP"
    S_ADDRESS=""; SETTINGS_ERRORS=$((SETTINGS_ERRORS + 1))
  fi
  # a DHCP server must keep its address: the pool needs the fixed one, and must lie in its network
  if [ -n "$S_DHCP_START" ] && { [ -z "$S_ADDRESS" ] || ! _same_network "${S_ADDRESS%/*}" "${S_ADDRESS#*/}" "$S_DHCP_START" "$S_DHCP_END"; }; then
    _settings_msg 3 "-" "MOAT_DHCP_RANGE rejected: it needs MOAT_ADDRESS and must lie in its network; DHCP stays off"
    S_DHCP_START=""; S_DHCP_END=""; SETTINGS_ERRORS=$((SETTINGS_ERRORS + 1))
  fi
  if [ -n "$S_WIFI_PASSWORD" ] && [ -z "$S_WIFI_SSID" ]; then
    _settings_msg 4 "-" "MOAT_WIFI_PASSWORD given without MOAT_WIFI_SSID, ignored"
  fi
  return 0
}

# Prints FILE with the values of the secret settings removed, so the card no longer holds them.
redact_settings() { # file
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%$'\r'}
    if [[ $line =~ ^[[:space:]]*(MOAT_PASSWORD|MOAT_WIFI_PASSWORD)[[:space:]]*=[[:space:]]*[^[:space:]] ]]; then
      printf '%s=\n' "${BASH_REMATCH[1]}"
    else
      printf '%s\n' "$line"
    fi
  done <"$1"
}

# Sets single-line keys of one [table] in Moat's TOML config ("key = value" arguments, values in TOML
# syntax), replacing those keys where they are and leaving every other line alone. Prints the new file.
toml_set_keys() { # file table "key = value"...
  local file=$1 table=$2; shift 2
  local lines; lines=$(printf '%s\n' "$@")
  awk -v table="[$table]" -v lines="$lines" '
    function flush() { if (!done) { printf "%s\n", lines; done = 1 } }
    BEGIN { n = split(lines, l, "\n"); for (i = 1; i <= n; i++) { k = l[i]; sub(/[[:space:]]*=.*/, "", k); if (k != "") keys[k] = 1 } }
    /^[[:space:]]*\[/ { if (intable) flush(); h = $0; gsub(/[[:space:]]/, "", h); intable = (h == table) }
    intable { k = $0; sub(/^[[:space:]]*/, "", k); sub(/[[:space:]]*=.*/, "", k); if (k in keys) next }
    { print }
    END { if (intable) flush(); else if (!done) { printf "\n%s\n", table; flush() } }
  ' "$file"
}

# Sets dns.upstreams in Moat's TOML config (the file Moat writes: one [table] per branch, arrays possibly
# over several lines), leaving every other line as it is. Prints the new file.
toml_set_upstreams() { # file ';'-list
  local list=$2 toml_list="" u
  local -a arr
  IFS=';' read -ra arr <<<"$list"
  for u in "${arr[@]}"; do toml_list+="${toml_list:+, }\"$u\""; done
  awk -v val="  upstreams = [$toml_list]" '
    /^[[:space:]]*\[/ { if (indns && !done) { print val; done = 1 } indns = ($0 ~ /^[[:space:]]*\[dns\][[:space:]]*$/) }
    skipping { if ($0 ~ /\]/) skipping = 0; next }
    indns && /^[[:space:]]*upstreams[[:space:]]*=/ {
      if (!done) { print val; done = 1 }
      if ($0 !~ /\]/) skipping = 1
      next
    }
    { print }
    END { if (!done) { if (!indns) print "\n[dns]"; print val } }
  ' "$1"
}
