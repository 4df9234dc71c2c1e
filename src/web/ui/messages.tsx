// The warnings Moat raised (GET /api/info/messages: no upstream, a failed list download, a rival
// DHCP server, …): one poll shared by the banners above every page, the count badge in the header
// and the Messages page, so the three never disagree and the Pi answers one request per 30 s. The
// server takes a message back when its cause ends; the banner follows within a poll, and at once
// after a setting is saved or a message is dismissed here.
import { api, get } from "./api.ts";
import { usePoll } from "./poll.ts";
import { linkProps, useRoute } from "./router.ts";
import { Store, useStore } from "./store.ts";
import { plural, t } from "./i18n.ts";
import { num } from "./format.ts";

export interface Message {
  id: number;
  timestamp: number;
  type: string;
  plain: string;
  /** what Moat stored beside the text (an interface, the addresses of a rival DHCP server) */
  blobs?: Array<string | number | null>;
}

/** bumped after a change that may raise or clear a message (a saved setting): look again at once */
export const messagesMayChange = new Store(0);

/** the latest list; null until the first answer */
const latest = new Store<Message[] | null>(null);

/** Pi-hole's wording for "dns.upstreams is empty" (src/services.ts): shown until fixed, not dismissed. */
const NO_UPSTREAM = "no upstream servers configured";

const dismissable = (m: Message) => m.plain !== NO_UPSTREAM;

/** asks the server again now (a page that shows messages, opened) */
export const lookAgain = () => messagesMayChange.set(messagesMayChange.get() + 1);

/** DELETE /api/info/messages/{id,id,…} (Pi-hole takes a comma-separated list), then a fresh look */
export async function dismissMessages(ids: number[]): Promise<void> {
  try {
    if (ids.length) await api("DELETE", `/info/messages/${ids.join(",")}`);
  } finally {
    lookAgain();
  }
}

/** The one poll: mounted once in the frame (app.tsx), everything else reads `latest`. */
export function MessagesPoll() {
  const bump = useStore(messagesMayChange);
  const { data } = usePoll(() => get<{ messages: Message[] }>("/info/messages"), 30_000, [bump]);
  if (data) latest.set(data.messages);
  return null;
}

export const useMessages = (): Message[] | null => useStore(latest);

/**
 * A message's text in the dashboard's language where its type's values (blobs) say all of it; the English
 * keys are the server's own sentences (src/notices/list-failures.ts, dnssec-upstream.ts), so English reads
 * as sent. Any other message shows as the server wrote it, marked as data.
 */
function translated(m: Message): string | null {
  const [a, b] = m.blobs ?? [];
  const has = (v: unknown) => v !== null && v !== undefined && v !== "";
  if (m.plain === NO_UPSTREAM) return t("no upstream servers configured");
  if (m.type === "LIST" && has(a) && has(b))
    return t("List with ID {id} ({address}) was inaccessible during last gravity run", {
      id: String(a),
      address: String(b),
    });
  if (m.type === "DNSSEC" && has(a))
    return t(
      "DNSSEC validation is on (dns.dnssec), but the upstream {upstream} answers the root's DNSKEY without signatures (RRSIG): every name Moat validates gets SERVFAIL. Pick an upstream that passes DNSSEC records, or turn DNSSEC validation off.",
      { upstream: String(a) },
    );
  return null;
}

export function MessageText({ m, class: cls }: { m: Message; class?: string }) {
  const text = translated(m);
  return text === null ? (
    <span class={cls} data-raw lang="en">
      {m.plain}
    </span>
  ) : (
    <span class={cls}>{text}</span>
  );
}

/** the header's count: a link to the Messages page, absent when there is nothing to read */
export function MessageBadge() {
  const n = useMessages()?.length ?? 0;
  if (!n) return null;
  const label = plural(n, { one: "{count} message", other: "{count} messages" });
  return (
    <a class="msg-badge" {...linkProps("/messages")} title={label} data-testid="message-count">
      <span aria-hidden="true">⚠</span> {num(n)}
      <span class="sr-only"> {plural(n, { one: "message", other: "messages" })}</span>
    </a>
  );
}

export function MessageBanners() {
  const list = useMessages() ?? [];
  // the Messages page lists them all itself
  const onMessagesPage = useRoute().split("?")[0]!.replace(/\/+$/, "") === "/messages";
  if (list.length === 0 || onMessagesPage) return null;
  return (
    <div class="banners">
      {list.map((m) =>
        !dismissable(m) ? (
          <p key={m.id} class="banner" role="alert">
            <strong>{t("No upstream DNS servers are set.")}</strong>{" "}
            {t("Every name Moat cannot answer itself gets SERVFAIL.")}{" "}
            <a {...linkProps("/settings")}>{t("Set them in Settings")}</a>
          </p>
        ) : (
          <p key={m.id} class="banner" role="status">
            <MessageText m={m} />
            <button type="button" class="btn ghost" onClick={() => void dismissMessages([m.id]).catch(() => undefined)}>
              {t("Dismiss")}
            </button>
          </p>
        ),
      )}
    </div>
  );
}
