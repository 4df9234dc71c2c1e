// The table of queries that the query log and the long-term log share: time, type, domain (and the
// CNAME it led to), client, status in words (with the upstream that answered), reply and DNSSEC verdict;
// the query log adds its row buttons.
import type { ComponentChildren } from "preact";
import { Badge } from "../components.tsx";
import { dateTime, num } from "../format.ts";
import { t } from "../i18n.ts";
import { ActionsHeader, DataTable } from "../table.tsx";
import { BLOCKED, type QueryRow } from "../why.tsx";
import { dnssecKind, dnssecWords, statusKind, statusWords, upstreamWords } from "./query-status.ts";

export function QueryTable({
  rows,
  class: cls,
  actions,
}: {
  rows: QueryRow[];
  class: string;
  /** each row's buttons, in a last column */
  actions?: (r: QueryRow) => ComponentChildren;
}) {
  return (
    <DataTable
      class={cls}
      head={
        <>
          <th>{t("Time")}</th>
          <th>{t("Type")}</th>
          <th>{t("Domain")}</th>
          <th>{t("Client")}</th>
          <th>{t("Status")}</th>
          <th>{t("Reply")}</th>
          {actions && <ActionsHeader />}
        </>
      }
    >
      {rows.map((r) => (
        <tr key={r.id} class={BLOCKED.has(r.status) ? "blocked" : ""} data-domain={r.domain}>
          <td class="nowrap" data-label={t("Time")}>
            {dateTime(r.time)}
          </td>
          <td class="q-type" data-label={t("Type")} data-raw>
            {r.type}
          </td>
          <td class="domain" data-label={t("Domain")} data-raw>
            {r.domain}
            {r.cname && <small class="muted"> → {r.cname}</small>}
          </td>
          <td data-label={t("Client")} data-raw>
            {r.client.name ?? r.client.ip}
          </td>
          <td data-label={t("Status")}>
            <Badge kind={statusKind(r.status)} title={r.status}>
              {statusWords(r.status)}
            </Badge>
            {r.upstream && !BLOCKED.has(r.status) && r.status !== "CACHE" && (
              <small class="muted block" data-raw={upstreamWords(r.upstream) === r.upstream || undefined}>
                {upstreamWords(r.upstream)}
              </small>
            )}
          </td>
          <td class="nowrap q-reply" data-label={t("Reply")}>
            <span data-raw>{r.reply.type}</span>{" "}
            <small class="muted">{t("{ms} ms", { ms: num(Math.round(r.reply.time * 10000) / 10) })}</small>
            {r.dnssec && r.dnssec !== "UNKNOWN" && (
              <Badge kind={dnssecKind(r.dnssec)} title={`DNSSEC: ${r.dnssec}`}>
                {dnssecWords(r.dnssec)}
              </Badge>
            )}
          </td>
          {actions && <td class="q-actions">{actions(r)}</td>}
        </tr>
      ))}
    </DataTable>
  );
}
