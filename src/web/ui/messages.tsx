// The warnings Moat raised (GET /api/info/messages: no upstream, a failed list download, a rival
// DHCP server, …) as banners above every page, so a problem Moat knows of is seen where people
// look. The server takes a message back when its cause ends; the banner follows within a poll, and
// at once after a setting is saved here.
import { api, get } from "./api.ts";
import { usePoll } from "./poll.ts";
import { linkProps } from "./router.ts";
import { Store, useStore } from "./store.ts";

interface Message {
  id: number;
  timestamp: number;
  type: string;
  plain: string;
}

/** bumped after a change that may raise or clear a message (a saved setting): look again at once */
export const messagesMayChange = new Store(0);

/** Pi-hole's wording for "dns.upstreams is empty" (src/services.ts): shown until fixed, not dismissed. */
const NO_UPSTREAM = "no upstream servers configured";

export function MessageBanners() {
  const bump = useStore(messagesMayChange);
  const { data, reload } = usePoll(() => get<{ messages: Message[] }>("/info/messages"), 30_000, [bump]);
  const list = data?.messages ?? [];
  if (list.length === 0) return null;
  return (
    <div class="banners">
      {list.map((m) =>
        m.plain === NO_UPSTREAM ? (
          <p key={m.id} class="banner" role="alert">
            <strong>No upstream DNS servers are set.</strong> Every name Moat cannot answer itself gets SERVFAIL.{" "}
            <a {...linkProps("/settings")}>Set them in Settings</a>
          </p>
        ) : (
          <p key={m.id} class="banner" role="status">
            <span>{m.plain}</span>
            <button
              type="button"
              class="btn ghost"
              onClick={() => void api("DELETE", `/info/messages/${m.id}`).then(reload, reload)}
            >
              Dismiss
            </button>
          </p>
        ),
      )}
    </div>
  );
}
