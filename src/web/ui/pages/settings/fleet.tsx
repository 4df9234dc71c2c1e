// The fleet as this node sees it (GET /api/fleet, src/fleet/README.md): each node, the versions of
// the shared state it holds, how far behind it is, whether it was heard from lately, and which node
// holds the gravity lease. Without fleet.redis this node runs alone, and the card says so.
import { get } from "../../api.ts";
import { Card, ErrorNote, Loading } from "../../components.tsx";
import { ago } from "../../format.ts";
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
    <Card title="Fleet">
      <ErrorNote error={error} />
      {!data ? (
        !error && <Loading />
      ) : !data.enabled ? (
        <p class="muted" data-testid="fleet-none">
          Not in a fleet: this node runs alone (fleet.redis is not set).
        </p>
      ) : (
        <div class="stack">
          <p>
            This node: <strong>{data.node}</strong> ·{" "}
            {data.connected ? <span class="badge ok">store reached</span> : <span class="badge bad">store away</span>}
            {data.error && <span class="muted"> {data.error}</span>} · gravity lease:{" "}
            <strong>{data.gravity.leader ?? "nobody"}</strong> (version {data.gravity.version})
            {data.gravity.error && <span class="muted"> {data.gravity.error}</span>}
          </p>
          <DataTable
            testId="fleet-nodes"
            head={
              <>
                <th>Node</th>
                <th>Health</th>
                <th>Versions</th>
                <th class="num">Lag</th>
                <th>API port</th>
              </>
            }
          >
            {data.nodes.map((n) => (
              <tr key={n.node}>
                <td>
                  {n.node} {n.node === data.gravity.leader && <span class="badge info">gravity</span>}
                </td>
                <td>
                  {n.healthy ? <span class="badge ok">up</span> : <span class="badge bad">silent</span>}{" "}
                  <small class="muted">{ago(n.seen)}</small>
                </td>
                <td>
                  {Object.entries(n.versions)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(", ")}
                  {n.pending.length > 0 && <small class="muted"> (unpublished: {n.pending.join(", ")})</small>}
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
