// The fleet as this node sees it (GET /api/fleet, src/fleet/README.md): each node, the versions of
// the shared state it holds, how far behind it is, whether it was heard from lately, and which node
// holds the gravity lease. Without fleet.redis this node runs alone, and the card says so.
import { get } from "../../api.ts";
import { Card, ErrorNote, Loading } from "../../components.tsx";
import { Heads } from "../../fields.tsx";
import { ago } from "../../format.ts";
import { t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { DataTable } from "../../table.tsx";

type Fleet = {
  enabled: boolean;
  node: string | null;
  connected: boolean;
  error: string | null;
  nodes: Array<{
    node: string;
    seen: number;
    healthy: boolean;
    versions: Record<string, number>;
    lag: number;
    pending: string[];
    api: string;
  }>;
  gravity: { version: number; leader: string | null; error: string | null };
};

export function FleetCard() {
  const { data, error } = usePoll(() => get<{ fleet: Fleet }>("/fleet").then((r) => r.fleet), 15000);
  return (
    <Card title={t("Fleet")}>
      <ErrorNote error={error} />
      {!data ? (
        !error && <Loading />
      ) : !data.enabled ? (
        <p class="muted" data-testid="fleet-none">
          {t("Not in a fleet: this node runs alone ({key} is not set).", { key: "fleet.redis" })}
        </p>
      ) : (
        <div class="stack">
          <p>
            {t("This node:")} <strong>{data.node}</strong> ·{" "}
            {data.connected ? (
              <span class="badge ok">{t("store reached")}</span>
            ) : (
              <span class="badge bad">{t("store away")}</span>
            )}
            {data.error && <span class="muted"> {data.error}</span>} · {t("gravity lease:")}{" "}
            <strong>{data.gravity.leader ?? t("nobody")}</strong> (
            {t("version {version}", { version: String(data.gravity.version) })})
            {data.gravity.error && <span class="muted"> {data.gravity.error}</span>}
          </p>
          <DataTable
            testId="fleet-nodes"
            head={
              <Heads
                titles={[t("Node"), t("Health"), t("Versions"), [t("Lag"), "num"], t("API port")]}
                actions={false}
              />
            }
          >
            {data.nodes.map((n) => (
              <tr key={n.node}>
                <td>
                  {n.node} {n.node === data.gravity.leader && <span class="badge info">{t("gravity")}</span>}
                </td>
                <td>
                  {n.healthy ? <span class="badge ok">{t("up")}</span> : <span class="badge bad">{t("silent")}</span>}{" "}
                  <small class="muted">{ago(n.seen)}</small>
                </td>
                <td>
                  {Object.entries(n.versions)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(", ")}
                  {n.pending.length > 0 && (
                    <small class="muted"> ({t("unpublished: {parts}", { parts: n.pending.join(", ") })})</small>
                  )}
                </td>
                <td class="num">{n.lag}</td>
                <td>{n.api}</td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </Card>
  );
}
