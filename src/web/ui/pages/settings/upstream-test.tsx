// "Test upstreams" (AdGuard Home's): the upstreams typed in the DNS card, saved or not, each asked for
// one name through POST /api/action/upstreams/test; a table says per server what came back and how fast.
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { Button, ErrorNote } from "../../components.tsx";
import { t } from "../../i18n.ts";

interface Probe {
  upstream: string;
  name: string;
  ok: boolean;
  rcode: string | null;
  answers: string[];
  time: number | null;
  error: string | null;
}

export function UpstreamTest({ upstreams }: { upstreams: string[] }) {
  const [results, setResults] = useState<Probe[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async () => {
    setBusy(true);
    setError(null);
    try {
      const r = await api<{ upstreams: Probe[] }>("POST", "/action/upstreams/test", { upstreams });
      setResults(r.upstreams);
    } catch (e) {
      setResults(null);
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="upstream-test">
      <div class="row wrap">
        <Button type="button" busy={busy} disabled={!upstreams.length} onClick={run}>
          {t("Test upstreams")}
        </Button>
        <span class="muted">{t("Asks each server above for one name, before you save")}</span>
      </div>
      <ErrorNote error={error} />
      {results && (
        <div class="table-wrap">
          <table class="table" aria-label={t("Upstream test results")}>
            <thead>
              <tr>
                <th>{t("Upstream")}</th>
                <th>{t("Name asked")}</th>
                <th>{t("Answer")}</th>
                <th>{t("Time")}</th>
              </tr>
            </thead>
            <tbody>
              {results.map((r) => (
                <tr key={r.upstream + r.name} class={r.ok && r.rcode === "NOERROR" ? "" : "failed"}>
                  <td>{r.upstream}</td>
                  <td>{r.name}</td>
                  <td>
                    {r.ok
                      ? [r.rcode, ...r.answers].join(" · ")
                      : t("No answer: {why}", { why: r.error ?? t("unknown") })}
                  </td>
                  <td>{r.time === null ? "–" : t("{ms} ms", { ms: r.time })}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
