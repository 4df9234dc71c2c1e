// The setup guide's live check (GET /api/guide/check): whether this device's queries reach Moat (its
// address's queries of the last ten minutes, asked when shown), and on request whether this
// browser's own lookups do: the page makes the browser look up a fresh name under Moat's probe zone
// and asks whether a query for it arrived, and from where. The probe waits for a click: its lookup
// goes to whatever resolver the device has, which may be outside the house.
import { useEffect, useState } from "preact/hooks";
import { get } from "../api.ts";
import { Button, ErrorNote, Spinner } from "../components.tsx";
import { plural, t } from "../i18n.ts";

type Check = {
  address: string;
  recent: number;
  last: number | null;
  zone: string;
  probe: { name: string; seen: boolean; client: string | null } | null;
  hidden: boolean;
};

const ask = (probe?: string) =>
  get<{ check: Check }>(`/guide/check${probe ? `?probe=${probe}` : ""}`).then((r) => r.check);

function nonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Makes this browser look `name` up: a request to it on this page's scheme and port, which fails once
 * resolved. False when the page's Content-Security-Policy (webserver.headers) forbids the request, so
 * no lookup was made.
 */
async function lookUp(name: string): Promise<boolean> {
  const url = `${location.protocol}//${name}${location.port ? `:${location.port}` : ""}/admin/probe`;
  let refused = false;
  const onRefused = (e: SecurityPolicyViolationEvent) => void (refused ||= e.blockedURI.includes(name));
  document.addEventListener("securitypolicyviolation", onRefused);
  await fetch(url, { mode: "no-cors", cache: "no-store", signal: AbortSignal.timeout(5000) }).catch(() => undefined);
  // the event is queued as a task of its own: let it run before deciding
  await new Promise((r) => setTimeout(r, 0));
  document.removeEventListener("securitypolicyviolation", onRefused);
  return !refused;
}

class PolicyRefused extends Error {}

async function probeBrowser(zone: string): Promise<Check> {
  const id = nonce();
  if (!(await lookUp(`${id}.${zone}`))) throw new PolicyRefused();
  // the query's record can reach the statistics a moment after its answer (a DNS thread's batch)
  let c = await ask(id);
  for (let i = 0; i < 4 && !c.probe?.seen; i++) {
    await new Promise((r) => setTimeout(r, 500));
    c = await ask(id);
  }
  return c;
}

function BrowserFix({ doh }: { doh: string | null }) {
  return (
    <div class="guide-fix">
      <p>
        {t("A browser with its own secure DNS (DNS over HTTPS) never asks Moat. Turn it off, or point it at Moat:")}
      </p>
      <ul>
        <li>{t("Firefox: Settings › Privacy & Security › DNS over HTTPS: Off, or Custom with Moat's address.")}</li>
        <li>
          {t(
            "Chrome and Edge: Settings › Privacy and security › Security › Use secure DNS: off, or Custom with Moat's address.",
          )}
        </li>
      </ul>
      {doh && (
        <p>
          {t("Moat's DNS over HTTPS address:")} <code class="wrap-anywhere">{doh}</code>
        </p>
      )}
    </div>
  );
}

export function LiveCheck({ doh }: { doh: string | null }) {
  const [check, setCheck] = useState<Check | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [probing, setProbing] = useState(false);
  useEffect(() => void ask().then(setCheck, setError), []);
  const probe = async () => {
    if (!check) return;
    setProbing(true);
    setError(null);
    try {
      setCheck(await probeBrowser(check.zone));
    } catch (e) {
      setError(
        e instanceof PolicyRefused
          ? new Error(
              t(
                "The Content-Security-Policy of webserver.headers keeps this page from checking: add connect-src 'self' *.{zone}:* to it, as Moat's default has.",
                { zone: check.zone },
              ),
            )
          : e,
      );
    } finally {
      setProbing(false);
    }
  };
  if (!check) return error ? <ErrorNote error={error} /> : <Spinner label={t("Checking…")} />;
  const browser = check.probe;
  const using = browser ? browser.seen : check.recent > 0;
  return (
    <div class="guide-check" data-testid="live-check" aria-live="polite">
      {/* with the names or clients hidden, no query found is no evidence either way */}
      {(using || !check.hidden) && (
        <p>
          <span class={`badge ${using ? "ok" : "bad"}`} data-testid="check-verdict">
            {using ? t("This device is using Moat") : t("This device is not using Moat")}
          </span>
        </p>
      )}
      {check.hidden && !using && (
        <p class="note">{t("The privacy level hides the names or clients of queries, so Moat cannot tell.")}</p>
      )}
      {!browser && check.recent > 0 && (
        <p>
          {plural(
            check.recent,
            {
              one: "Moat answered {count} query from this device ({address}) in the last ten minutes.",
              other: "Moat answered {count} queries from this device ({address}) in the last ten minutes.",
            },
            { address: check.address },
          )}
        </p>
      )}
      {!browser && check.recent === 0 && !check.hidden && (
        <div class="guide-fix" data-testid="check-fix">
          <p>
            {t("Moat has had no query from this device ({address}) in the last ten minutes.", {
              address: check.address,
            })}
          </p>
          <p>
            {t(
              "Set its DNS server to Moat's address (the Setup guide says where for each system), or set it once for every device in the router.",
            )}
          </p>
        </div>
      )}
      {browser?.seen && browser.client === check.address && <p>{t("This browser's lookups reach Moat.")}</p>}
      {browser?.seen && browser.client !== check.address && (
        <p>
          {t(
            "This browser's lookups reach Moat through {client} (a router or another DNS server that forwards to Moat): blocking works, but Moat sees every device behind it as {client}.",
            { client: browser.client ?? "?" },
          )}
        </p>
      )}
      {browser && !browser.seen && !check.hidden && (
        <div data-testid="check-fix">
          <p>{t("This browser's lookups do not reach Moat.")}</p>
          {check.recent > 0 ? (
            <p>
              {t("Other programs on this device ({address}) ask Moat, so the device's setting is right.", {
                address: check.address,
              })}
            </p>
          ) : (
            <p>{t("Set this device's DNS server to Moat's address (the Setup guide says where for each system).")}</p>
          )}
          <BrowserFix doh={doh} />
        </div>
      )}
      <div class="row wrap">
        <Button busy={probing} onClick={() => void probe()}>
          {browser ? t("Check again") : t("Check this browser")}
        </Button>
      </div>
      <ErrorNote error={error} />
    </div>
  );
}
