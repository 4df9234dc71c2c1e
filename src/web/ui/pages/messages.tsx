// Messages: every warning Moat raised (Pi-hole's "Pi-hole diagnosis" page), with its type, time,
// text and the values stored beside it, dismissed one by one or all at once. The list is the
// shared poll of messages.tsx; a dismiss asks it to look again at once.
import { useEffect, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { Badge, Button, Card, confirmAction, Loading, toast } from "../components.tsx";
import { dateTime } from "../format.ts";
import { dismissMessages, lookAgain, type Message, MessageText, useMessages } from "../messages.tsx";
import { msg, plural, t } from "../i18n.ts";

/** what a message type's blobs hold, where Moat stores any (src/dhcp/service.ts, src/querylog/writer-worker.ts) */
const BLOB_NAMES: Record<string, string[]> = {
  DNSMASQ_WARN: [msg("Interface"), msg("Other DHCP servers")],
  SHMEM: [msg("Queries shed")],
};

const TYPE_NAMES: Record<string, string> = {
  DNSMASQ_WARN: msg("DNS / DHCP"),
  SHMEM: msg("Query log memory"),
  LIST: msg("Lists"),
  FLEET: msg("Fleet"),
};

function Details({ m }: { m: Message }) {
  const names = BLOB_NAMES[m.type];
  if (!names) return null;
  const shown = (m.blobs ?? []).flatMap((v, i) =>
    v === null || v === "" || !names[i] ? [] : [[names[i], v] as const],
  );
  if (!shown.length) return null;
  return (
    <dl class="msg-blobs">
      {shown.map(([k, v]) => (
        <div key={k}>
          <dt>{t(k)}</dt>
          <dd data-raw>{String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

async function dismiss(ids: number[], done: string): Promise<void> {
  try {
    await dismissMessages(ids);
    toast(done);
  } catch (e) {
    toast(e instanceof ApiError ? e.text : String(e), "error");
  }
}

export function Messages() {
  const list = useMessages();
  const [busy, setBusy] = useState<number | "all" | null>(null);
  // the shared poll runs every 30 s: opening the page looks at once
  useEffect(lookAgain, []);
  const run = async (what: number | "all", ids: number[], done: string) => {
    setBusy(what);
    await dismiss(ids, done);
    setBusy(null);
  };
  if (!list) return <Loading />;
  return (
    <Card
      title={plural(list.length, { one: "{count} message", other: "{count} messages" })}
      actions={
        list.length > 1 && (
          <Button
            kind="danger"
            busy={busy === "all"}
            onClick={async () => {
              if (
                await confirmAction(
                  plural(list.length, { one: "Dismiss {count} message?", other: "Dismiss all {count} messages?" }),
                  t("Dismiss all"),
                )
              )
                await run(
                  "all",
                  list.map((m) => m.id),
                  t("All messages dismissed"),
                );
            }}
          >
            {t("Dismiss all")}
          </Button>
        )
      }
    >
      {list.length === 0 ? (
        <p class="empty">{t("No messages: Moat has nothing to warn about.")}</p>
      ) : (
        <ul class="msg-list">
          {list.map((m) => (
            <li key={m.id} class="msg" data-id={m.id}>
              <div class="msg-head">
                <Badge kind="warn">
                  {TYPE_NAMES[m.type] ? t(TYPE_NAMES[m.type]!) : <span data-raw>{m.type}</span>}
                </Badge>
                <time class="muted" dateTime={new Date(m.timestamp * 1000).toISOString()}>
                  {dateTime(m.timestamp)}
                </time>
                <Button
                  kind="ghost"
                  class="msg-dismiss"
                  busy={busy === m.id}
                  onClick={() => void run(m.id, [m.id], t("Message dismissed"))}
                  aria-label={t("Dismiss: {text}", { text: m.plain.slice(0, 80) })}
                >
                  {t("Dismiss")}
                </Button>
              </div>
              <p class="msg-text">
                <MessageText m={m} />
              </p>
              <Details m={m} />
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}
