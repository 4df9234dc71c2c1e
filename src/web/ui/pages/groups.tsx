// Groups: which clients get which lists and domain rules.
import { useState } from "preact/hooks";
import { api, enc } from "../api.ts";
import { Card, Field, TextInput } from "../components.tsx";
import { EntityTable, SubmitButton, throwProcessed, useForm, type Group, type Processed } from "../crud.tsx";
import { t } from "../i18n.ts";
import { CommentField, EditDialog, useResourcePage } from "../resource.tsx";

function GroupForm({ initial, onDone }: { initial?: Group; onDone: () => void }) {
  const [name, setName] = useState(initial?.name ?? "");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const f = useForm();
  const save = f.onSubmit(
    "name",
    async () => {
      const body = { name: name.trim(), comment: comment || null, enabled: initial?.enabled ?? true };
      throwProcessed(
        initial ? await api("PUT", `/groups/${enc(initial.name)}`, body) : await api("POST", "/groups", body),
      );
    },
    onDone,
  );
  return (
    <form class="form row wrap" onSubmit={save}>
      <Field label={t("Name")} id="g-name" error={f.errors.name}>
        <TextInput id="g-name" required value={name} onValue={setName} />
      </Field>
      <CommentField id="g-comment" value={comment} onChange={setComment} />
      <SubmitButton busy={f.busy} editing={!!initial} class="align-end" />
    </form>
  );
}

export function Groups() {
  const page = useResourcePage<Group>("groups");
  return (
    <div class="stack">
      <Card title={t("Add a group")}>
        <GroupForm key={page.formKey} onDone={page.added} />
      </Card>
      <Card title={t("Groups")}>
        <EntityTable
          rows={page.data}
          rowKey={(g) => g.name}
          columns={[
            { title: t("Name"), cell: (g) => <strong data-raw>{g.name}</strong> },
            { title: t("Comment"), cell: (g) => <span data-raw>{g.comment ?? ""}</span> },
          ]}
          enabled={(g) => g.enabled}
          onToggle={(g, enabled) =>
            api<Processed>("PUT", `/groups/${enc(g.name)}`, { name: g.name, comment: g.comment, enabled })
              .then(throwProcessed)
              .then(page.reload)
          }
          onEdit={page.edit}
          onDelete={page.batchDelete((g) => ({ item: g.name }))}
        />
      </Card>
      <EditDialog row={page.editing} title={(g) => t("Edit {name}", { name: g.name })} onClose={page.close}>
        {(g) => <GroupForm initial={g} onDone={page.saved} />}
      </EditDialog>
    </div>
  );
}
