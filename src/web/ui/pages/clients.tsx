// Clients (by IP, subnet, MAC, host name or :interface) and the groups they belong to; devices
// Moat has seen on the network are offered as suggestions.
import { useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Button, Card, Field, Loading, Modal } from "../components.tsx";
import { EntityTable, GroupChips, GroupPicker, throwProcessed, useForm, useGroups, type Group } from "../crud.tsx";
import { usePoll } from "../poll.ts";

type Client = { id: number; client: string; name: string | null; comment: string | null; groups: number[] };
type Suggestion = { hwaddr: string; macVendor: string | null; addresses: string; names: string };

function ClientForm({ groups, initial, onDone }: { groups: Group[]; initial?: Client; onDone: () => void }) {
  const [client, setClient] = useState(initial?.client ?? "");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [sel, setSel] = useState<number[]>(initial?.groups ?? [0]);
  const { data: sug } = usePoll(
    () => get<{ clients: Suggestion[] }>("/clients/_suggestions").then((r) => r.clients),
    0,
  );
  const f = useForm();
  const save = (e: Event) => {
    e.preventDefault();
    void f
      .submit(
        async () => {
          const body = { comment: comment || null, groups: sel };
          throwProcessed(
            initial
              ? await api("PUT", `/clients/${enc(initial.client)}`, body)
              : await api("POST", "/clients", { ...body, client: client.trim() }),
          );
        },
        () => "client",
      )
      .then((ok) => ok && onDone());
  };
  return (
    <form class="form" onSubmit={save}>
      <Field
        label="Client"
        id="c-client"
        error={f.errors.client}
        hint="IP address, subnet (192.168.1.0/24), MAC address, host name or :interface"
      >
        <input
          id="c-client"
          list="c-sug"
          required
          value={client}
          disabled={!!initial}
          onInput={(e) => setClient((e.target as HTMLInputElement).value)}
        />
      </Field>
      <datalist id="c-sug">
        {(sug ?? []).flatMap((s) =>
          [s.hwaddr, ...s.addresses.split(",").filter(Boolean)].map((v) => (
            <option key={v} value={v}>
              {[s.names, s.macVendor].filter(Boolean).join(" · ")}
            </option>
          )),
        )}
      </datalist>
      {!initial && sug && sug.length > 0 && (
        <div class="suggestions">
          <span class="muted">Seen on the network:</span>
          {sug.slice(0, 8).map((s) => (
            <button
              key={s.hwaddr}
              type="button"
              class="chip as-button"
              onClick={() => setClient(s.addresses.split(",")[0] || s.hwaddr)}
            >
              {s.names.split(",")[0] || s.addresses.split(",")[0] || s.hwaddr}
            </button>
          ))}
        </div>
      )}
      <Field label="Comment" id="c-comment">
        <input id="c-comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
      </Field>
      <GroupPicker groups={groups} value={sel} onChange={setSel} />
      <div class="row end">
        <Button type="submit" kind="primary" busy={f.busy}>
          {initial ? "Save" : "Add"}
        </Button>
      </div>
    </form>
  );
}

export function Clients() {
  const groups = useGroups();
  const { data, reload } = usePoll(() => get<{ clients: Client[] }>("/clients").then((r) => r.clients), 0);
  const [editing, setEditing] = useState<Client | null>(null);
  return (
    <div class="stack">
      <Card title="Add a client">
        <ClientForm key={data?.length ?? 0} groups={groups} onDone={reload} />
      </Card>
      <Card title="Clients">
        {!data ? (
          <Loading />
        ) : (
          <EntityTable
            noun="client"
            rows={data}
            rowKey={(c) => c.client}
            columns={[
              { title: "Client", cell: (c) => <code>{c.client}</code> },
              { title: "Name", cell: (c) => c.name ?? "" },
              { title: "Comment", cell: (c) => c.comment ?? "" },
              { title: "Groups", cell: (c) => <GroupChips ids={c.groups} groups={groups} /> },
            ]}
            onEdit={setEditing}
            onDelete={(list) =>
              api(
                "POST",
                "/clients:batchDelete",
                list.map((c) => ({ item: c.client })),
              ).then(reload)
            }
          />
        )}
      </Card>
      {editing && (
        <Modal title={`Edit ${editing.client}`} onClose={() => setEditing(null)}>
          <ClientForm
            groups={groups}
            initial={editing}
            onDone={() => {
              setEditing(null);
              reload();
            }}
          />
        </Modal>
      )}
    </div>
  );
}
