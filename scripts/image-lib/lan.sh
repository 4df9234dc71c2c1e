# A home network of the test's own for a card that serves DHCP (sourced by test-image.sh): two network
# namespaces, never the host's interfaces. The LAN namespace holds a bridge (the "router", LAN_ROUTER) with
# the guest's tap device and a veth pair; the other end of that pair is the only interface of the client
# namespace, where busybox udhcpc asks for a lease as a laptop on the network would.
#
#   guest eth0 ── tap ──┐
#                       br0 (LAN_ROUTER/24)        [namespace LAN_NS]
#   udhcpc ── veth ─────┘                          [namespace LAN_CLIENT_NS]

LAN_PREFIX=192.168.77
LAN_ROUTER=$LAN_PREFIX.1
LAN_GUEST=$LAN_PREFIX.2
LAN_RANGE_START=$LAN_PREFIX.100
LAN_RANGE_END=$LAN_PREFIX.119
LAN_TAP=moattap0
LAN_CLIENT_NAME=moat-lan-client

make_lan() { # sets LAN_NS and LAN_CLIENT_NS (unique per test run: two runs may overlap); fails on any step
  local ns=moatimg-$$ cns=moatimg-$$-c
  remove_lan_named "$ns" "$cns"
  ip netns add "$ns" && ip netns add "$cns" || return 1
  LAN_NS=$ns LAN_CLIENT_NS=$cns   # set before anything else can fail, so remove_lan cleans up
  ip -n "$ns" link set lo up &&
    ip -n "$ns" link add br0 type bridge stp_state 0 &&
    ip -n "$ns" tuntap add dev "$LAN_TAP" mode tap &&
    ip -n "$ns" link set "$LAN_TAP" master br0 &&
    ip -n "$ns" link add lan0 type veth peer name client0 netns "$cns" &&
    ip -n "$ns" link set lan0 master br0 &&
    ip -n "$ns" addr add "$LAN_ROUTER/24" dev br0 &&
    ip -n "$ns" link set br0 up && ip -n "$ns" link set lan0 up && ip -n "$ns" link set "$LAN_TAP" up &&
    ip -n "$cns" link set lo up && ip -n "$cns" link set client0 up || return 1
  LAN_CLIENT_MAC=$(ip -n "$cns" -br link show client0 | awk '{print $3}')
  log "LAN: namespaces $ns (bridge $LAN_ROUTER/24, tap $LAN_TAP for the guest) and $cns (client0, $LAN_CLIENT_MAC)"
}

remove_lan() { remove_lan_named "${LAN_NS:-}" "${LAN_CLIENT_NS:-}"; LAN_NS=; LAN_CLIENT_NS=; }
remove_lan_named() { local n; for n in "$@"; do [ -n "$n" ] && ip netns del "$n" 2>/dev/null; done; return 0; }

# The settings file of a card on that LAN: a fixed address (a DHCP server keeps its own) and the pool.
lan_settings() { # base-settings-file -> prints the LAN card's settings
  grep -v -e '^MOAT_GATEWAY=' -e '^MOAT_ADDRESS=' -e '^MOAT_DHCP_RANGE=' "$1"
  echo "MOAT_ADDRESS=$LAN_GUEST/24"
  echo "MOAT_GATEWAY=$LAN_ROUTER"
  echo "MOAT_DHCP_RANGE=$LAN_RANGE_START-$LAN_RANGE_END"
}

# busybox udhcpc in the client namespace: one DHCP exchange (-q: quit once bound, -n: fail if none);
# its script records what it was told, one "event ip router dns" line each.
LEASE_IP=
lease_from_moat() {
  local told="$T/udhcpc.told" script="$T/udhcpc.sh"
  printf '#!/bin/sh\necho "$1 $ip $router $dns" >>%s\nexit 0\n' "$told" >"$script" && chmod +x "$script"
  : >"$told"
  ip netns exec "$LAN_CLIENT_NS" timeout 60 busybox udhcpc -i client0 -s "$script" -q -n -t 5 -T 3 -A 3 \
    -x "hostname:$LAN_CLIENT_NAME" >/dev/null 2>&1 || { log "  udhcpc got no lease: $(paste -sd'|' "$told")"; return 1; }
  log "  udhcpc on $LAN_CLIENT_MAC: $(grep '^bound' "$told" | tail -1)"
  lease_told_ok "$told"
}
lease_told_ok() { # udhcpc's record -> LEASE_IP; ok when it bound an address of the pool, with MOAT_GATEWAY
  # as the router and Moat itself as the DNS server
  LEASE_IP=$(awk '$1 == "bound" { ip = $2 } END { print ip }' "$1")
  ipv4_in_range "$LEASE_IP" "$LAN_RANGE_START" "$LAN_RANGE_END" &&
    awk -v ip="$LEASE_IP" -v r="$LAN_ROUTER" -v d="$LAN_GUEST" '$1 == "bound" && $2 == ip && $3 == r && $4 == d { ok = 1 } END { exit !ok }' "$1"
}

ipv4_in_range() { # ip start end: whether start <= ip <= end (dotted IPv4)
  local a b c
  a=$(ipv4_number "$1") && b=$(ipv4_number "$2") && c=$(ipv4_number "$3") || return 1
  ((b <= a && a <= c))
}
ipv4_number() { # dotted IPv4 -> one number (each part read as decimal: 08 is 8)
  local IFS=. o n=0 x; read -r -a o <<<"$1"
  ((${#o[@]} == 4)) || return 1
  for x in "${o[@]}"; do
    [[ $x =~ ^[0-9]{1,3}$ ]] && ((10#$x <= 255)) || return 1
    n=$(( (n << 8) | 10#$x ))
  done
  echo "$n"
}

lease_listed() { # GET /api/dhcp/leases lists the client's MAC with the leased address and its host name
  local body; body=$(api GET /api/dhcp/leases)
  [ "$API_STATUS" = 200 ] || { log "  GET /api/dhcp/leases: $API_STATUS"; return 1; }
  log "  leases: $(jq -c '[.leases[] | {ip, hwaddr, name}]' <<<"$body")"
  jq -e --arg mac "$LAN_CLIENT_MAC" --arg ip "$LEASE_IP" --arg name "$LAN_CLIENT_NAME" \
    'any(.leases[]; (.hwaddr | ascii_downcase) == $mac and .ip == $ip and .name == $name)' <<<"$body" >/dev/null
}

dhcp_config_on() { # /api/config shows what the settings file switched on
  local body; body=$(api GET /api/config/dhcp)
  [ "$API_STATUS" = 200 ] || { log "  GET /api/config/dhcp: $API_STATUS"; return 1; }
  log "  dhcp: $(jq -c '.config.dhcp | {active, start, "end": .end, router}' <<<"$body")"
  jq -e --arg s "$LAN_RANGE_START" --arg e "$LAN_RANGE_END" --arg r "$LAN_ROUTER" \
    '.config.dhcp | .active == true and .start == $s and .end == $e and .router == $r' <<<"$body" >/dev/null
}
