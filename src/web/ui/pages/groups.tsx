// Groups: which clients get which lists and domain rules.
import { useState } from "preact/hooks";
import { api, enc, get } from "../api.ts";
import { Button, Card, Field, Loading, Modal } from "../components.tsx";
import { EntityTable, throwProcessed, useForm, type Group, type Processed, useFreshForm } from "../crud.tsx";
import { usePoll } from "../poll.ts";

function GroupForm({ initial, onDone }: { initial?: Group; onDone: () => void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const f = useForm();
  const save = (e: Event) => {
    e.preventDefault();
    void f
      .submit(
        async () => {
          const body = { name: name.trim(), comment: comment || null, enabled: initial?.enabled ?? true };
          throwProcessed(
            initial ? await api("PUT", `/groups/${enc(initial.name)}`, body) : await api("POST", "/groups", body),
          );
        },
        () => "name",
      )
      .then((ok) => ok && onDone());
  };
  return (
    <form class="form row wrap" onSubmit={save}>
      <Field label="Name" id="g-name" error={f.errors.name}>
        <input id="g-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="Comment" id="g-comment">
        <input id="g-comment" value={comment} onInput={(e) => setComment((e.target as HTMLInputElement).value)} />
      </Field>
      <Button type="submit" kind="primary" busy={f.busy} class="align-end">
        {initial ? "Save" : "Add"}
      </Button>
    </form>
  );
}

export function Groups() {
  const { data, reload } = usePoll(() => get<{ groups: Group[] }>("/groups").then((r) => r.groups), 0);
  const [formKey, added] = useFreshForm();
  const [editing, setEditing] = useState<Group | null>(null);
  return (
    <div class="stack">
      <Card title="Add a group">
        <GroupForm
          key={formKey}
          onDone={() => {
            added();
            reload();
          }}
        />
      </Card>
      <Card title="Groups">
        {!data ? (
          <Loading />
        ) : (
          <EntityTable
            noun="group"
            rows={data}
            rowKey={(g) => g.name}
            columns={[
              { title: "Name", cell: (g) => <strong>{g.name}</strong> },
              { title: "Comment", cell: (g) => g.comment ?? "" },
            ]}
            enabled={(g) => g.enabled}
            onToggle={(g, enabled) =>
              api<Processed>("PUT", `/groups/${enc(g.name)}`, { name: g.name, comment: g.comment, enabled })
                .then(throwProcessed)
                .then(reload)
            }
            onEdit={setEditing}
            onDelete={(list) =>
              api(
                "POST",
                "/groups:batchDelete",
                list.map((g) => ({ item: g.name })),
              ).then(reload)
            }
          />
        )}
      </Card>
      {editing && (
        <Modal title={`Edit ${editing.name}`} onClose={() => setEditing(null)}>
          <GroupForm
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
