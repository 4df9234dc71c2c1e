// Pi-hole FTL v6.4.1's configuration tree as facts: every key of GET /api/config with the JSON
// type of its value (from the `config` schema of FTL's OpenAPI spec and its pihole.toml). The
// tests compare Moat's compat-mode tree against this list: nothing missing, nothing extra.
type T = "boolean" | "integer" | "number" | "string" | "array";

const b: T = "boolean", i: T = "integer", n: T = "number", s: T = "string", a: T = "array";

const DEBUG = [
  "database", "networking", "locks", "queries", "flags", "shmem", "gc", "arp", "regex", "api", "tls", "overtime", "status", "caps",
  "dnssec", "vectors", "resolver", "edns0", "clients", "aliasclients", "events", "helper", "config", "inotify", "webserver", "extra",
  "reserved", "ntp", "netlink", "timing", "all",
];

export const PIHOLE_CONFIG_KEYS: Readonly<Record<string, T>> = {
  "dns.upstreams": a, "dns.CNAMEdeepInspect": b, "dns.blockESNI": b, "dns.EDNS0ECS": b, "dns.ignoreLocalhost": b,
  "dns.showDNSSEC": b, "dns.analyzeOnlyAandAAAA": b, "dns.piholePTR": s, "dns.replyWhenBusy": s, "dns.blockTTL": i,
  "dns.hosts": a, "dns.domainNeeded": b, "dns.expandHosts": b, "dns.domain.name": s, "dns.domain.local": b,
  "dns.bogusPriv": b, "dns.dnssec": b, "dns.interface": s, "dns.hostRecord": s, "dns.listeningMode": s,
  "dns.queryLogging": b, "dns.cnameRecords": a, "dns.port": i, "dns.localise": b,
  "dns.cache.size": i, "dns.cache.optimizer": i, "dns.cache.upstreamBlockedTTL": i, "dns.revServers": a,
  "dns.blocking.active": b, "dns.blocking.mode": s, "dns.blocking.edns": s,
  "dns.specialDomains.mozillaCanary": b, "dns.specialDomains.iCloudPrivateRelay": b, "dns.specialDomains.designatedResolver": b,
  "dns.reply.host.force4": b, "dns.reply.host.IPv4": s, "dns.reply.host.force6": b, "dns.reply.host.IPv6": s,
  "dns.reply.blocking.force4": b, "dns.reply.blocking.IPv4": s, "dns.reply.blocking.force6": b, "dns.reply.blocking.IPv6": s,
  "dns.rateLimit.count": i, "dns.rateLimit.interval": i,
  "dhcp.active": b, "dhcp.start": s, "dhcp.end": s, "dhcp.router": s, "dhcp.netmask": s, "dhcp.leaseTime": s, "dhcp.ipv6": b,
  "dhcp.rapidCommit": b, "dhcp.multiDNS": b, "dhcp.logging": b, "dhcp.ignoreUnknownClients": b, "dhcp.hosts": a,
  "ntp.ipv4.active": b, "ntp.ipv4.address": s, "ntp.ipv6.active": b, "ntp.ipv6.address": s,
  "ntp.sync.active": b, "ntp.sync.server": s, "ntp.sync.interval": i, "ntp.sync.count": i,
  "ntp.sync.rtc.set": b, "ntp.sync.rtc.device": s, "ntp.sync.rtc.utc": b,
  "resolver.resolveIPv4": b, "resolver.resolveIPv6": b, "resolver.networkNames": b, "resolver.refreshNames": s,
  "database.DBimport": b, "database.maxDBdays": i, "database.DBinterval": i, "database.useWAL": b,
  "database.network.parseARPcache": b, "database.network.expire": i,
  "webserver.domain": s, "webserver.acl": s, "webserver.port": s, "webserver.threads": i, "webserver.headers": a,
  "webserver.serve_all": b, "webserver.advancedOpts": a, "webserver.session.timeout": i, "webserver.session.restore": b,
  "webserver.tls.cert": s, "webserver.tls.validity": i,
  "webserver.paths.webroot": s, "webserver.paths.webhome": s, "webserver.paths.prefix": s,
  "webserver.interface.boxed": b, "webserver.interface.theme": s,
  "webserver.api.max_sessions": i, "webserver.api.prettyJSON": b, "webserver.api.pwhash": s, "webserver.api.password": s,
  "webserver.api.totp_secret": s, "webserver.api.app_pwhash": s, "webserver.api.app_sudo": b, "webserver.api.cli_pw": b,
  "webserver.api.excludeClients": a, "webserver.api.excludeDomains": a, "webserver.api.maxHistory": i,
  "webserver.api.maxClients": i, "webserver.api.client_history_global_max": b, "webserver.api.allow_destructive": b,
  "webserver.api.temp.limit": n, "webserver.api.temp.unit": s,
  "files.pid": s, "files.database": s, "files.gravity": s, "files.gravity_tmp": s, "files.macvendor": s, "files.pcap": s,
  "files.log.ftl": s, "files.log.dnsmasq": s, "files.log.webserver": s,
  "misc.privacylevel": i, "misc.delay_startup": i, "misc.nice": i, "misc.addr2line": b, "misc.etc_dnsmasq_d": b,
  "misc.dnsmasq_lines": a, "misc.extraLogging": b, "misc.readOnly": b, "misc.normalizeCPU": b, "misc.hide_dnsmasq_warn": b,
  "misc.check.load": b, "misc.check.shmem": i, "misc.check.disk": i,
  ...Object.fromEntries(DEBUG.map((k) => [`debug.${k}`, b])),
};

/** Pi-hole's defaults where Moat keeps them (ports, headers, certificate and database paths are Moat's own). */
export const PIHOLE_DEFAULTS: Readonly<Record<string, unknown>> = {
  "dns.upstreams": [], "dns.blockTTL": 2, "dns.domain.name": "lan", "dns.domain.local": true, "dns.localise": true,
  "dns.cache.size": 10000, "dns.cache.optimizer": 3600, "dns.cache.upstreamBlockedTTL": 86400, "dns.blocking.edns": "TEXT",
  "dns.rateLimit.count": 1000, "dns.rateLimit.interval": 60, "dns.piholePTR": "PI.HOLE", "dns.listeningMode": "LOCAL",
  "dhcp.active": false, "dhcp.start": "", "dhcp.leaseTime": "", "dhcp.hosts": [], "dhcp.ignoreUnknownClients": false,
  "ntp.ipv4.active": true, "ntp.ipv6.active": true, "ntp.sync.active": true, "ntp.sync.server": "pool.ntp.org",
  "ntp.sync.interval": 3600, "ntp.sync.count": 8, "ntp.sync.rtc.set": false, "ntp.sync.rtc.device": "", "ntp.sync.rtc.utc": true,
  "webserver.session.timeout": 1800, "webserver.tls.validity": 47, "webserver.paths.webroot": "/var/www/html",
  "webserver.paths.webhome": "/admin/", "webserver.paths.prefix": "", "webserver.interface.boxed": true,
  "webserver.interface.theme": "default-auto", "webserver.advancedOpts": [], "webserver.api.max_sessions": 16,
  "webserver.api.temp.limit": 60, "webserver.api.temp.unit": "C",
  "files.pid": "/run/pihole-FTL.pid", "files.gravity_tmp": "/tmp", "files.pcap": "", "files.log.ftl": "/var/log/pihole/FTL.log",
  "misc.nice": -10, "misc.addr2line": true, "misc.etc_dnsmasq_d": false, "misc.dnsmasq_lines": [], "misc.normalizeCPU": true,
  "misc.hide_dnsmasq_warn": false, "misc.check.shmem": 90, "debug.all": false,
};
