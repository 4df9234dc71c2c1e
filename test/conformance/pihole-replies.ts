// What Pi-hole FTL v6.4.1 answers to each GET of its table, as facts (from its OpenAPI spec and
// router), in a compact notation: `a,b{c,d[]},e[]{f}`; `x?` is optional, `*` any keys (described
// elsewhere). The test compares Moat's documented reply schemas with these trees, and Moat's replies
// with those schemas.
import type { Schema } from "./check-schema.ts";

const TYPES = "A,AAAA,ANY,SRV,SOA,PTR,TXT,NAPTR,MX,DS,RRSIG,DNSKEY,NS,SVCB,HTTPS,OTHER";
const STATUS =
  "UNKNOWN,GRAVITY,FORWARDED,CACHE,REGEX,DENYLIST,EXTERNAL_BLOCKED_IP,EXTERNAL_BLOCKED_NULL,EXTERNAL_BLOCKED_NXRA,GRAVITY_CNAME,REGEX_CNAME,DENYLIST_CNAME,RETRIED,RETRIED_DNSSEC,IN_PROGRESS,DBBUSY,SPECIAL_DOMAIN,CACHE_STALE,EXTERNAL_BLOCKED_EDE15";
const REPLIES = "UNKNOWN,NODATA,NXDOMAIN,CNAME,IP,DOMAIN,RRNAME,SERVFAIL,REFUSED,NOTIMP,OTHER,DNSSEC,NONE,BLOB";
const DNSMASQ =
  "dns_cache_inserted,dns_cache_live_freed,dns_queries_forwarded,dns_auth_answered,dns_local_answered,dns_stale_answered,dns_unanswered,bootp,pxe,dhcp_ack,dhcp_decline,dhcp_discover,dhcp_inform,dhcp_nak,dhcp_offer,dhcp_release,dhcp_request,noanswer,leases_allocated_4,leases_pruned_4,leases_allocated_6,leases_pruned_6,tcp_connections,dhcp_leasequery,dhcp_lease_unassigned,dhcp_lease_actve,dhcp_lease_unknown,dnssec_max_crypto_use,dnssec_max_sig_fail,dnssec_max_work";
const SYSTEM =
  "system{uptime,memory{ram{total,free,used,available,%used},swap{total,used,free,%used}},procs,cpu{nprocs,%cpu,load{raw[],percent[]}},ftl{%mem,%cpu}}";
const REMOTE = "remote{version,hash}";
const VERSION = `version{core{local{branch,version,hash},${REMOTE}},web{local{branch,version,hash},${REMOTE}},ftl{local{branch,version,hash,date},${REMOTE}},docker{local,remote}}`;
const UPSTREAMS = "upstreams[]{ip,name,port,count,statistics{response,variance}},forwarded_queries,total_queries";
const TOP_DOMAINS = "domains[]{domain,count},total_queries,blocked_queries";
const TOP_CLIENTS = "clients[]{ip,name,count},total_queries,blocked_queries";
const HISTORY = "history[]{timestamp,total,cached,blocked,forwarded}";
const CLIENT_HISTORY = "clients{*},history[]{timestamp,data{*}}";
const LOG = "log[]{timestamp,message,prio},nextID,pid,file";
const ENDPOINT = "[]{uri,parameters}";
const COUNTED = "{total,enabled}";

export const PIHOLE_REPLIES: Readonly<Record<string, string>> = {
  "/api/auth": "session{valid,totp,sid,csrf?,validity,message}",
  "/api/auth/sessions":
    "sessions[]{id,current_session,valid,tls{login,mixed},app,cli,login_at,last_active,valid_until,remote_addr,user_agent,x_forwarded_for}",
  "/api/auth/totp": "totp{type,account,issuer,algorithm,digits,period,offset,secret,codes[]}",
  "/api/auth/app": "app{password,hash}",
  "/api/dns/blocking": "blocking,timer",
  "/api/clients/_suggestions": "clients[]{hwaddr,macVendor,lastQuery,addresses,names}",
  "/api/clients/{client}": "clients[]{client,name,comment,groups[],id,date_added,date_modified}",
  "/api/domains/{type}/{kind}/{domain}":
    "domains[]{domain,unicode,type,kind,comment,groups[],enabled,id,date_added,date_modified}",
  "/api/search/{domain}":
    "search{domains[]{*},gravity[]{*},results{domains{exact,regex},gravity{allow,block},total},parameters{N,partial,domain,debug},debug?}",
  "/api/groups/{name}": "groups[]{name,comment,enabled,id,date_added,date_modified}",
  "/api/lists/{list}":
    "lists[]{address,type,comment,groups[],enabled,id,date_added,date_modified,date_updated,number,invalid_domains,abp_entries,status}",
  "/api/info/client": "remote_addr,http_version,method,headers[]{name,value}",
  "/api/info/login": "https_port,dns",
  "/api/info/system": SYSTEM,
  "/api/info/database":
    "size,type,mode,atime,mtime,ctime,owner{user{uid,name,info},group{gid,name}},queries,earliest_timestamp,queries_disk,earliest_timestamp_disk,sqlite_version",
  "/api/info/sensors": "sensors{list[]{name,path,source,temps[]{name,value,max,crit,sensor}},cpu_temp,hot_limit,unit}",
  "/api/info/host":
    "host{uname{domainname,machine,nodename,release,sysname,version},model,dmi{bios{vendor},board{name,vendor,version},product{name,version,family},sys{vendor}}}",
  "/api/info/ftl": `ftl{database{gravity,groups,lists,clients,domains{allowed${COUNTED},denied${COUNTED}},regex{allowed${COUNTED},denied${COUNTED}}},privacy_level,query_frequency,clients{total,active},pid,uptime,%mem,%cpu,allow_destructive,dnsmasq{${DNSMASQ}}}`,
  "/api/info/version": VERSION,
  "/api/info/messages/count": "count",
  "/api/info/messages": "messages[]{id,timestamp,type,plain,html}",
  "/api/info/metrics":
    "metrics{dns{cache{size,inserted,evicted,expired,immortal,content[]{type,name,count{valid,stale}}},replies{forwarded,unanswered,local,optimized,auth,sum}},dhcp{ack,nak,decline,offer,discover,inform,request,release,noanswer,bootp,pxe,leases{allocated_4,pruned_4,allocated_6,pruned_6}}}",
  "/api/logs/dnsmasq": LOG,
  "/api/logs/ftl": LOG,
  "/api/logs/webserver": LOG,
  "/api/history/clients": CLIENT_HISTORY,
  "/api/history/database/clients": CLIENT_HISTORY,
  "/api/history/database": HISTORY,
  "/api/history": HISTORY,
  "/api/queries/suggestions":
    "suggestions{domain[],client_ip[],client_name[],upstream[],type[],status[],reply[],dnssec[]}",
  "/api/queries":
    "queries[]{id,time,type,domain,cname,status,client{ip,name},dnssec,reply{type,time},list_id,upstream,ede{code,text}},cursor,recordsTotal,recordsFiltered,draw",
  "/api/stats/summary": `queries{total,blocked,percent_blocked,unique_domains,forwarded,cached,frequency,types{${TYPES}},status{${STATUS}},replies{${REPLIES}}},clients{active,total},gravity{domains_being_blocked,last_update}`,
  "/api/stats/query_types": `types{${TYPES}}`,
  "/api/stats/upstreams": UPSTREAMS,
  "/api/stats/top_domains": TOP_DOMAINS,
  "/api/stats/top_clients": TOP_CLIENTS,
  "/api/stats/recent_blocked": "blocked[]",
  "/api/stats/database/top_domains": TOP_DOMAINS,
  "/api/stats/database/top_clients": TOP_CLIENTS,
  "/api/stats/database/summary": "sum_queries,sum_blocked,percent_blocked,total_clients",
  "/api/stats/database/query_types": `types{${TYPES}}`,
  "/api/stats/database/upstreams": UPSTREAMS,
  "/api/config": "config{*}",
  "/api/config/{element}": "config{*}",
  "/api/network/gateway": "gateway[]{family,interface,address,local[]},routes?,interfaces?",
  "/api/network/routes":
    "routes[]{gateway?,family,table,protocol?,scope?,type,flags[],oif,iif?,dst,src?,prefsrc?,priority,pref?}",
  "/api/network/interfaces":
    "interfaces[]{name,speed?,carrier?,type?,flags[],state?,proto_down?,address?,broadcast?,perm_address?,stats{*},addresses[]{*}}",
  "/api/network/devices":
    "devices[]{id,hwaddr,interface,firstSeen,lastQuery,numQueries,macVendor,ips[]{ip,name,lastSeen,nameUpdated}}",
  "/api/endpoints": `endpoints{get${ENDPOINT},post${ENDPOINT},put${ENDPOINT},patch${ENDPOINT},delete${ENDPOINT}}`,
  "/api/dhcp/leases": "leases[]{expires,name,hwaddr,ip,clientid}",
  "/api/padd": `recent_blocked,top_domain,top_blocked,top_client,active_clients,gravity_size,blocking,queries{total,blocked,percent_blocked},cache{size,inserted,evicted},iface?{v4{addr,rx_bytes{value,unit},tx_bytes{value,unit},num_addrs,name,gw_addr},v6{addr,num_addrs,name,gw_addr}},node_name,host_model,config{dhcp_active,dhcp_start,dhcp_end,dhcp_ipv6,dns_domain,dns_port,dns_num_upstreams,dns_dnssec,dns_revServer_active,privacy_level},%cpu,%mem,pid,sensors{cpu_temp,hot_limit,unit},${SYSTEM},${VERSION.replace("version{", "version?{")}`,
};

interface Node {
  optional: boolean;
  array: boolean;
  /** undefined: a leaf; null: any keys */
  children?: Map<string, Node> | null;
}

/** Parses `a,b?{c},d[]{e}` into a tree of property names. */
function parse(text: string): Map<string, Node> {
  let i = 0;
  const list = (): Map<string, Node> => {
    const out = new Map<string, Node>();
    while (i < text.length && text[i] !== "}") {
      let name = "";
      while (i < text.length && !",{}[?".includes(text[i]!)) name += text[i++];
      const node: Node = { optional: false, array: false };
      if (text[i] === "?") (node.optional = true), i++;
      if (text.startsWith("[]", i)) (node.array = true), (i += 2);
      if (text[i] === "{") {
        i++;
        if (text.startsWith("*}", i)) (node.children = null), (i += 2);
        else {
          node.children = list();
          i++; // }
        }
      }
      out.set(name, node);
      if (text[i] === ",") i++;
    }
    return out;
  };
  return list();
}

/** Differences between a documented reply schema and Pi-hole's tree for the same operation. */
export function compareWithPihole(schema: Schema, notation: string, compat = true): string[] {
  const problems: string[] = [];
  const walk = (s: Schema, tree: Map<string, Node>, at: string) => {
    const obj = objectOf(s, compat);
    if (!obj) return problems.push(`${at}: documented as ${s.type ?? "untyped"}, Pi-hole has an object`);
    const props = obj.properties ?? {};
    const visible = Object.keys(props).filter((k) => !(compat && props[k]!["x-moat-only"]));
    for (const k of visible) if (!tree.has(k)) problems.push(`${at}.${k}: documented, but Pi-hole has no such key`);
    for (const [k, node] of tree) {
      const p = props[k];
      if (!p || (compat && p["x-moat-only"])) {
        problems.push(`${at}.${k}: Pi-hole has it, Moat does not document it`);
        continue;
      }
      const required = (obj.required ?? []).includes(k);
      if (required === node.optional)
        problems.push(
          `${at}.${k}: ${node.optional ? "optional" : "always present"} in Pi-hole, ${required ? "required" : "optional"} here`,
        );
      let child: Schema | undefined = p;
      if (node.array) {
        const arr = variants(p, compat).find((v) => v.type === "array");
        if (!arr) {
          problems.push(`${at}.${k}: Pi-hole has an array`);
          continue;
        }
        child = arr.items;
      }
      if (node.children && child) walk(child, node.children, `${at}.${k}${node.array ? "[]" : ""}`);
    }
    return undefined;
  };
  walk(schema, parse(notation), "$");
  return problems;
}

function variants(s: Schema, compat: boolean): Schema[] {
  const u = s.anyOf ?? s.oneOf;
  return u ? u.filter((m) => !(compat && m["x-moat-only"])).flatMap((m) => variants(m, compat)) : [s];
}

function objectOf(s: Schema, compat: boolean): Schema | undefined {
  return variants(s, compat).find((v) => v.type === "object");
}
