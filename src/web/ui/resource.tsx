// What the pages of the four list resources (domains, lists, groups, clients) do alike: their rows
// from `GET /<name>`, the batch delete, an add form that starts empty after each add, the dialog that
// edits one row, and their forms' comment field and submit button. Each page keeps its own form,
// columns and Pi-hole shape of the items.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, get } from "./api.ts";
import { Field, Modal, TextInput } from "./components.tsx";
import { type Group, GroupPicker, SubmitButton, useFreshForm } from "./crud.tsx";
import { usePoll } from "./poll.ts";
import { t } from "./i18n.ts";

/** What a list resource's page keeps: its rows (`GET /groups` answers `{"groups": […]}`, loaded once and
 * reloaded after a change), the add form's key (renewed after an add, so the form starts empty again),
 * the row in the edit dialog, and the batch delete. */
export function useResourcePage<T>(name: "domains" | "lists" | "groups" | "clients"): {
  data: T[] | undefined;
  reload: () => void;
  formKey: number;
  editing: T | null;
  edit: (row: T) => void;
  close: () => void;
  added: () => void;
  saved: () => void;
  /** the table's delete: `POST /<name>:batchDelete` with each row's item (and type, kind where they key it) */
  batchDelete: (item: (row: T) => Record<string, string>) => (rows: T[]) => Promise<void>;
} {
  const { data, reload } = usePoll(() => get<Record<string, T[]>>(`/${name}`).then((r) => r[name]!), 0);
  const [formKey, renewForm] = useFreshForm();
  const [editing, setEditing] = useState<T | null>(null);
  return {
    data,
    reload,
    formKey,
    editing,
    edit: setEditing,
    close: () => setEditing(null),
    added: () => {
      renewForm();
      reload();
    },
    saved: () => {
      setEditing(null);
      reload();
    },
    batchDelete: (item) => (rows) => api("POST", `/${name}:batchDelete`, rows.map(item)).then(reload),
  };
}

/** the dialog that edits one row with the page's form; nothing while no row is being edited */
export function EditDialog<T>({
  row,
  title,
  onClose,
  children,
}: {
  row: T | null;
  title: (row: T) => string;
  onClose: () => void;
  children: (row: T) => ComponentChildren;
}) {
  if (row === null) return null;
  return (
    <Modal title={title(row)} onClose={onClose}>
      {children(row)}
    </Modal>
  );
}

export function CommentField({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  return (
    <Field label={t("Comment")} id={id}>
      <TextInput id={id} value={value} onValue={onChange} />
    </Field>
  );
}

/** the end of a form whose entry belongs to groups: the group picker, then the submit button */
export function GroupsAndSubmit({
  groups,
  value,
  onChange,
  busy,
  editing,
}: {
  groups: Group[];
  value: number[];
  onChange: (v: number[]) => void;
  busy: boolean;
  editing: boolean;
}) {
  return (
    <>
      <GroupPicker groups={groups} value={value} onChange={onChange} />
      <div class="row end">
        <SubmitButton busy={busy} editing={editing} />
      </div>
    </>
  );
}
