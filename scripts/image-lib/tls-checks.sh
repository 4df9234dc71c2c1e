# HTTPS and DNS over TLS on the booted image, checked as a device that trusts Moat's own authority would
# (sourced by test-image.sh; uses qemu.sh's helpers). The authority is read over SSH from the data
# partition (src/tls/README.md: <data-dir>/tls_ca.crt, /etc/moat on the appliance); the name is `moat`, the
# host name the certificate is made for, mapped to qemu's forwarded ports with curl --resolve and kdig.

CA="$T/moat-ca.crt"

authority_fetched() { # the authority over SSH, and the same file at http://moat/tls/ca.crt (the download for devices)
  guest cat /etc/moat/tls_ca.crt >"$CA" || return 1
  log "  authority: $(openssl x509 -noout -subject -enddate -in "$CA" 2>&1 | paste -sd' ')"
  curl -s -m 60 -o "$T/served-ca.crt" "http://127.0.0.1:$HTTP_PORT/tls/ca.crt" || return 1
  cmp -s "$CA" "$T/served-ca.crt" || { log "  /tls/ca.crt differs from /etc/moat/tls_ca.crt"; return 1; }
}

https_curl() { # path [curl options...]: https://moat:<forwarded 443>/path with certificate verification on
  local path=$1; shift
  curl -sS -m 60 --resolve "moat:$HTTPS_PORT:127.0.0.1" "$@" "https://moat:$HTTPS_PORT$path"
}

https_verified() {
  local code
  code=$(https_curl /admin/ --cacert "$CA" -o "$T/admin.html" -w '%{http_code}') || return 1
  log "  GET https://moat/admin/ with the authority: $code, $(wc -c <"$T/admin.html") bytes"
  [ "$code" = 200 ] && grep -qi '<html' "$T/admin.html" || return 1
  local out status
  out=$(https_curl /api/stats/summary --cacert "$CA" -H "X-FTL-SID: ${SID:-}" -w '\n%{http_code}') || return 1
  status=${out##*$'\n'}
  log "  GET https://moat/api/stats/summary: $status, queries.total $(jq '.queries.total' <<<"${out%$'\n'*}" 2>/dev/null)"
  [ "$status" = 200 ] && jq -e '.queries.total | type == "number"' <<<"${out%$'\n'*}" >/dev/null || return 1
  # the same request without the authority must be refused by curl (60: certificate not trusted), or the
  # checks above did not depend on it
  local rc=0; https_curl /admin/ -o /dev/null 2>/dev/null || rc=$?
  log "  without the authority: curl exit $rc"
  [ "$rc" = 60 ]
}

dot_verified() { # name ip: a DNS-over-TLS answer, the certificate checked against the authority and the name moat
  local out
  out=$(kdig @127.0.0.1 -p "$DOT_PORT" +tls-ca="$CA" +tls-hostname=moat +time=10 +retry=0 +short "$1" A 2>&1) || {
    log "  kdig over TLS: $(tail -2 <<<"$out" | paste -sd' ')"; return 1; }
  log "  kdig +tls-ca +tls-hostname=moat $1: $out"
  [ "$(head -1 <<<"$out")" = "$2" ]
}
