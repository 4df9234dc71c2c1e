// "Why was this blocked (or allowed)?": the query's status and list id, the matching domain entries
// and list lines from GET /api/search, and the groups that tie them to the client.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { enc, get } from "./api.ts";
import { Loading, Modal } from "./components.tsx";
import { msg, t, tx } from "./i18n.ts";

export type QueryRow = {
  id: number;
  time: number;
  type: string;
  domain: string;
  cname: string | null;
  status: string;
  client: { ip: string; name: string | null };
  reply: { type: string; time: number };
  list_id: number | null;
  upstream: string | null;
  ede: { code: number; text: string | null };
  /** SECURE, INSECURE, BOGUS, ABANDONED, or UNKNOWN when not validated */
  dnssec: string;
  /** Moat's own: the reply's answer records as text (absent in Pi-hole compatibility mode, null when none) */
  answers?: string | null;
};

type Group = { id: number; name: string };
type DomainEntry = {
  id: number;
  domain: string;
  type: string;
  kind: string;
  groups: number[];
  enabled: boolean;
  comment: string | null;
};
type ListEntry = {
  id: number;
  address: string;
  type: string;
  groups: number[];
  enabled: boolean;
  comment: string | null;
  domain?: string;
};
type SearchReply = { search: { domains: DomainEntry[]; gravity: ListEntry[] } };

export const BLOCKED = new Set([
  "GRAVITY",
  "REGEX",
  "DENYLIST",
  "EXTERNAL_BLOCKED_IP",
  "EXTERNAL_BLOCKED_NULL",
  "EXTERNAL_BLOCKED_NXRA",
  "GRAVITY_CNAME",
  "REGEX_CNAME",
  "DENYLIST_CNAME",
  "DBBUSY",
  "SPECIAL_DOMAIN",
  "EXTERNAL_BLOCKED_EDE15",
  "CLIENT_REFUSED",
]);

const STATUS_TEXT: Record<string, string> = {
  GRAVITY: msg("Blocked: the domain is on a subscribed block list."),
  GRAVITY_CNAME: msg("Blocked: the answer's CNAME target is on a subscribed block list."),
  DENYLIST: msg("Blocked: the domain is on your deny list (exact)."),
  DENYLIST_CNAME: msg("Blocked: the answer's CNAME target is on your deny list."),
  REGEX: msg("Blocked: the domain matches a deny regex."),
  REGEX_CNAME: msg("Blocked: the answer's CNAME target matches a deny regex."),
  EXTERNAL_BLOCKED_IP: msg("Blocked by the upstream server (it answered with a block-page address)."),
  EXTERNAL_BLOCKED_NULL: msg("Blocked by the upstream server (it answered 0.0.0.0 / ::)."),
  EXTERNAL_BLOCKED_NXRA: msg("Blocked by the upstream server (NXDOMAIN without recursion)."),
  EXTERNAL_BLOCKED_EDE15: msg("Blocked by the upstream server (Extended DNS Error 15)."),
  SPECIAL_DOMAIN: msg("Blocked: a special domain Moat answers itself (for example Firefox's DNS-over-HTTPS canary)."),
  DBBUSY: msg("Blocked because the filter was not ready."),
  CLIENT_REFUSED: msg("Refused: this client may not use Moat (Settings → Client access)."),
  FORWARDED: msg("Permitted: answered by an upstream server."),
  CACHE: msg("Permitted: answered from Moat's cache."),
  CACHE_STALE: msg("Permitted: answered from the cache with a stale record while refreshing."),
  RETRIED: msg("Permitted: forwarded again after a retry."),
};

const isRuleStatus = (s: string) => /^(DENYLIST|REGEX)/.test(s);

// Family controls log negative list ids (docs/pihole-differences.md): −code of a blocked service, and these two.
const PAUSED_LIST_ID = -1_000_000;
const SCHEDULE_LIST_ID = -1_000_001;
type Service = { name: string; category: string; list_id: number };

/** What a negative list id means, or null for Pi-hole's own (positive) ids. */
function familyReason(listId: number | null, services: Service[] | null): string | null {
  if (listId === null || listId >= 0) return null;
  if (listId === PAUSED_LIST_ID) return t("This client is paused (family controls): every query it sends is blocked.");
  if (listId === SCHEDULE_LIST_ID)
    return t("A schedule window of the client's group is open and blocks everything but the allow list.");
  const s = services?.find((x) => x.list_id === listId);
  return s
    ? t("Blocked service: {name} ({category}), blocked for the client's group (family controls).", {
        name: s.name,
        category: s.category,
      })
    : t("A blocked service of the client's group (family controls).");
}

const groupNames = (ids: number[], groups: Group[]) =>
  ids.map((id) => groups.find((g) => g.id === id)?.name ?? `#${id}`).join(", ") || t("none");

/** the words of a domain rule or a list line that both name: its domain, its type and its groups */
const entryWords = (e: { domain?: string; type: string; groups: number[] }, groups: Group[]) => ({
  domain: <code>{e.domain}</code>,
  type: <span data-raw>{e.type}</span>,
  groups: <span data-raw>{groupNames(e.groups, groups)}</span>,
});

/** the entries of one kind that match the name, one line each; the one that decided the query is marked */
function Matches<E>({
  title,
  entries,
  rowKey,
  hit,
  mark,
  children: line,
}: {
  title: string;
  entries: E[];
  rowKey: (e: E, i: number) => string | number;
  hit: (e: E) => boolean;
  mark: string;
  children: (e: E) => ComponentChildren;
}) {
  if (!entries.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>
        {entries.map((e, i) => (
          <li key={rowKey(e, i)} class={hit(e) ? "hit" : ""}>
            {line(e)}
            {hit(e) && <strong> ← {mark}</strong>}
          </li>
        ))}
      </ul>
    </>
  );
}

export function Why({ row, onClose }: { row: QueryRow; onClose: () => void }) {
  const [data, setData] = useState<
    | { search: SearchReply["search"]; groups: Group[]; clientGroups: number[] | null; services: Service[] | null }
    | { error: string }
    | null
  >(null);
  useEffect(() => {
    const name = row.cname && /_CNAME$/.test(row.status) ? row.cname : row.domain;
    Promise.all([
      get<SearchReply>(`/search/${enc(name)}?N=50`),
      get<{ groups: Group[] }>("/groups"),
      get<{ clients: Array<{ client: string; groups: number[] }> }>("/clients"),
      row.list_id !== null && row.list_id < 0 ? get<{ services: Service[] }>("/services") : null,
    ])
      .then(([s, g, c, svc]) =>
        setData({
          search: s.search,
          groups: g.groups,
          clientGroups: c.clients.find((x) => x.client === row.client.ip)?.groups ?? null,
          services: svc?.services ?? null,
        }),
      )
      .catch((e: Error) => setData({ error: e.message }));
  }, [row.id]);
  return (
    <Modal title={t("Why: {domain}", { domain: row.domain })} onClose={onClose}>
      <p data-testid="why-status">
        <strong>
          {STATUS_TEXT[row.status] ? t(STATUS_TEXT[row.status]!) : t("Status {status}.", { status: row.status })}
        </strong>
        {row.ede.code >= 0 && (
          <span data-raw>
            {" "}
            EDE {row.ede.code}
            {row.ede.text ? ` (${row.ede.text})` : ""}.
          </span>
        )}
      </p>
      {row.answers && (
        <p data-testid="why-answers">
          {t("Answer records")}:{" "}
          <span class="break" data-raw>
            {row.answers}
          </span>
        </p>
      )}
      {!data ? (
        <Loading />
      ) : "error" in data ? (
        <p class="note error" data-raw>
          {data.error}
        </p>
      ) : (
        <div class="why" data-testid="why-details">
          <p class="muted">
            {t("Client {client} is in the groups: {groups}.", {
              client: row.client.name ?? row.client.ip,
              groups: data.clientGroups ? groupNames(data.clientGroups, data.groups) : t("Default (no client entry)"),
            })}
          </p>
          {familyReason(row.list_id, data.services) && (
            <p class="hit" data-testid="why-family">
              <strong>{familyReason(row.list_id, data.services)}</strong>
            </p>
          )}
          <Matches
            title={t("Domain rules that match")}
            entries={data.search.domains}
            rowKey={(d) => d.id}
            hit={(d) => isRuleStatus(row.status) && d.id === row.list_id}
            mark={t("this rule")}
          >
            {(d) =>
              tx(
                d.enabled
                  ? "{domain} ({type} {kind}) in groups {groups}"
                  : "{domain} ({type} {kind}, disabled) in groups {groups}",
                { ...entryWords(d, data.groups), kind: <span data-raw>{d.kind}</span> },
              )
            }
          </Matches>
          <Matches
            title={t("Lists that contain it")}
            entries={data.search.gravity}
            rowKey={(l, i) => `${l.id}-${i}`}
            hit={(l) => /^GRAVITY/.test(row.status) && l.id === row.list_id}
            mark={t("this list")}
          >
            {(l) =>
              tx(
                l.enabled
                  ? "{domain} on {type} list {address} in groups {groups}"
                  : "{domain} on {type} list {address} (disabled) in groups {groups}",
                {
                  ...entryWords(l, data.groups),
                  address: (
                    <span class="break" data-raw>
                      {l.address}
                    </span>
                  ),
                },
              )
            }
          </Matches>
          {data.search.domains.length === 0 && data.search.gravity.length === 0 && (
            <p>{t("No domain rule or list matches this name now.")}</p>
          )}
        </div>
      )}
    </Modal>
  );
}
