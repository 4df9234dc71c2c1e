// Clients (by IP, subnet, MAC, host name or :interface) and the groups they belong to; devices
// Moat has seen on the network are offered as suggestions.
import { useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Card } from "../components.tsx";
import { EntityTable, GroupChips, throwProcessed, useForm, useGroups, type Group } from "../crud.tsx";
import { KeyField } from "../fields.tsx";
import { t } from "../i18n.ts";
import { usePoll } from "../poll.ts";
import { PauseButton, usePauses } from "../pause.tsx";
import { CommentField, EditDialog, GroupsAndSubmit, useResourcePage } from "../resource.tsx";

type Client = { id: number; client: string; name: string | null; comment: string | null; groups: number[] };
type Suggestion = { hwaddr: string; macVendor: string | null; addresses: string; names: string };
type LogClient = { ip: string; name: string; count: number };

/** the clients of the query log, busiest first: names for the table and suggestions where the
 * network table has no device (no MAC seen: another subnet, a VPN, a container host) */
function useLogClients(): LogClient[] {
  return (
    usePoll(() => get<{ clients: LogClient[] }>("/stats/top_clients?count=50").then((r) => r.clients), 0).data ?? []
  );
}

/** one chip per device: the network table's first, then the log's clients it does not know of */
function chips(sug: Suggestion[], log: LogClient[], configured: Set<string>) {
  const out = sug.map((s) => ({
    key: s.hwaddr,
    value: s.addresses.split(",")[0] || s.hwaddr,
    label: s.names.split(",")[0] || s.addresses.split(",")[0] || s.hwaddr,
  }));
  const seen = new Set(sug.flatMap((s) => s.addresses.split(",")));
  for (const c of log)
    if (!seen.has(c.ip) && !configured.has(c.ip.toLowerCase()))
      out.push({ key: c.ip, value: c.ip, label: c.name || c.ip });
  return out;
}

function ClientForm({
  groups,
  initial,
  onDone,
  log = [],
  configured = new Set(),
}: {
  groups: Group[];
  initial?: Client;
  onDone: () => void;
  log?: LogClient[];
  configured?: Set<string>;
}) {
  const [client, setClient] = useState(initial?.client ?? "");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [sel, setSel] = useState<number[]>(initial?.groups ?? [0]);
  const { data: sug } = usePoll(
    () => get<{ clients: Suggestion[] }>("/clients/_suggestions").then((r) => r.clients),
    0,
  );
  const offered = chips(sug ?? [], log, configured);
  const f = useForm();
  const save = f.onSubmit(
    "client",
    async () => {
      const body = { comment: comment || null, groups: sel };
      throwProcessed(
        initial
          ? await api("PUT", `/clients/${enc(initial.client)}`, body)
          : await api("POST", "/clients", { ...body, client: client.trim() }),
      );
    },
    onDone,
  );
  return (
    <form class="form" onSubmit={save}>
      <KeyField
        label={t("Client")}
        id="c-client"
        error={f.errors.client}
        hint={t("IP address, subnet (192.168.1.0/24), MAC address, host name or :interface")}
        list="c-sug"
        value={client}
        editing={!!initial}
        onValue={setClient}
      />
      <datalist id="c-sug">
        {(sug ?? []).flatMap((s) =>
          [s.hwaddr, ...s.addresses.split(",").filter(Boolean)].map((v) => (
            <option key={v} value={v}>
              {[s.names, s.macVendor].filter(Boolean).join(" · ")}
            </option>
          )),
        )}
      </datalist>
      {!initial && offered.length > 0 && (
        <div class="suggestions">
          <span class="muted">{t("Seen on the network:")}</span>
          {offered.slice(0, 12).map((c) => (
            <button
              key={c.key}
              type="button"
              class="chip as-button"
              title={c.value}
              onClick={() => setClient(c.value)}
              data-raw
            >
              {c.label}
            </button>
          ))}
        </div>
      )}
      <CommentField id="c-comment" value={comment} onChange={setComment} />
      <GroupsAndSubmit groups={groups} value={sel} onChange={setSel} busy={f.busy} editing={!!initial} />
    </form>
  );
}

export function Clients() {
  const groups = useGroups();
  const page = useResourcePage<Client>("clients");
  const pauses = usePauses();
  const log = useLogClients();
  const logName = new Map(log.filter((c) => c.name).map((c) => [c.ip, c.name]));
  const configured = new Set((page.data ?? []).map((c) => c.client.toLowerCase()));
  return (
    <div class="stack">
      <Card title={t("Add a client")}>
        <ClientForm key={page.formKey} groups={groups} onDone={page.added} log={log} configured={configured} />
      </Card>
      <Card title={t("Clients")}>
        <EntityTable
          rows={page.data}
          rowKey={(c) => c.client}
          columns={[
            { title: t("Client"), cell: (c) => <code>{c.client}</code> },
            // the network table's name, else the one the query log knows (a reverse lookup)
            { title: t("Name"), cell: (c) => <span data-raw>{c.name ?? logName.get(c.client) ?? ""}</span> },
            { title: t("Comment"), cell: (c) => <span data-raw>{c.comment ?? ""}</span> },
            { title: t("Groups"), cell: (c) => <GroupChips ids={c.groups} groups={groups} /> },
            {
              title: t("Pause"),
              cell: (c) => (
                <PauseButton client={c.client} paused={pauses.paused.has(c.client)} onDone={pauses.reload} />
              ),
            },
          ]}
          onEdit={page.edit}
          onDelete={page.batchDelete((c) => ({ item: c.client }))}
        />
      </Card>
      <EditDialog row={page.editing} title={(c) => t("Edit {name}", { name: c.client })} onClose={page.close}>
        {(c) => <ClientForm groups={groups} initial={c} onDone={page.saved} />}
      </EditDialog>
    </div>
  );
}
