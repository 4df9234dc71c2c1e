// What the Domains, Lists, Groups, Clients and Local DNS pages share: a table with selection and
// bulk delete, enable switches, group chips and a group picker.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { get } from "./api.ts";
import { Button, confirmAction, Loading, Toggle, toast, useAction } from "./components.tsx";
import { NameChecks } from "./fields.tsx";
import { usePoll } from "./poll.ts";
import { ActionsHeader, DataTable } from "./table.tsx";
import { plural, t } from "./i18n.ts";

export type Group = { id: number; name: string; enabled: boolean; comment: string | null };

export function useGroups(): Group[] {
  return usePoll(() => get<{ groups: Group[] }>("/groups").then((r) => r.groups), 0).data ?? [];
}

export function GroupChips({ ids, groups }: { ids: number[]; groups: Group[] }) {
  return (
    <span class="chips">
      {ids.map((id) => (
        <span key={id} class="chip" title={groups.find((g) => g.id === id)?.name} data-raw>
          {groups.find((g) => g.id === id)?.name ?? `#${id}`}
        </span>
      ))}
    </span>
  );
}

export function GroupPicker({
  groups,
  value,
  onChange,
}: {
  groups: Group[];
  value: number[];
  onChange: (v: number[]) => void;
}) {
  return (
    <fieldset class="group-picker">
      <legend>{t("Groups")}</legend>
      <NameChecks items={groups} value={value} onChange={onChange} />
    </fieldset>
  );
}

/** `title` is a msg() label, shown through t() */
export type Column<T> = { title: string; cell: (r: T) => ComponentChildren; class?: string };

export function EntityTable<T>({
  rows,
  columns,
  rowKey,
  enabled,
  onToggle,
  onEdit,
  onDelete,
}: {
  /** undefined while the rows are still loading */
  rows: T[] | undefined;
  columns: Array<Column<T>>;
  rowKey: (r: T) => string;
  enabled?: (r: T) => boolean;
  onToggle?: (r: T, on: boolean) => Promise<void>;
  onEdit?: (r: T) => void;
  onDelete: (rows: T[]) => Promise<void>;
}) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [busy, run] = useAction();
  if (!rows) return <Loading />;
  const chosen = rows.filter((r) => selected.has(rowKey(r)));
  const del = async (list: T[]) => {
    if (
      !(await confirmAction(
        list.length === 1
          ? t("Delete {name}?", { name: rowKey(list[0]!) })
          : plural(list.length, { one: "Delete {count} entry?", other: "Delete {count} entries?" }),
      ))
    )
      return;
    await run(
      () => onDelete(list),
      list.length === 1
        ? t("Deleted {name}", { name: rowKey(list[0]!) })
        : plural(list.length, { one: "Deleted {count} entry", other: "Deleted {count} entries" }),
    );
    setSelected(new Set());
  };
  if (!rows.length) return <p class="empty">{t("Nothing here yet.")}</p>;
  const all = chosen.length === rows.length;
  return (
    <>
      <div class="toolbar">
        <span class="muted">
          {chosen.length
            ? t("{rows}, {count} selected", {
                rows: plural(rows.length, { one: "{count} entry", other: "{count} entries" }),
                count: chosen.length,
              })
            : plural(rows.length, { one: "{count} entry", other: "{count} entries" })}
        </span>
        <Button kind="danger" busy={busy} disabled={!chosen.length} onClick={() => del(chosen)}>
          {t("Delete selected")}
        </Button>
      </div>
      <DataTable
        head={
          <>
            <th class="sel">
              <input
                type="checkbox"
                aria-label={t("Select all")}
                checked={all}
                onChange={() => setSelected(all ? new Set() : new Set(rows.map(rowKey)))}
              />
            </th>
            {columns.map((c) => (
              <th key={c.title} class={c.class}>
                {t(c.title)}
              </th>
            ))}
            {onToggle && <th>{t("Enabled")}</th>}
            <ActionsHeader />
          </>
        }
      >
        {rows.map((r) => {
          const k = rowKey(r);
          return (
            <tr key={k} data-key={k} class={enabled && !enabled(r) ? "disabled" : ""}>
              <td class="sel">
                <input
                  type="checkbox"
                  aria-label={t("Select {name}", { name: k })}
                  checked={selected.has(k)}
                  onChange={(e) => {
                    const s = new Set(selected);
                    if ((e.target as HTMLInputElement).checked) s.add(k);
                    else s.delete(k);
                    setSelected(s);
                  }}
                />
              </td>
              {columns.map((c) => (
                <td key={c.title} class={c.class} data-label={t(c.title)}>
                  {c.cell(r)}
                </td>
              ))}
              {onToggle && enabled && (
                <td data-label={t("Enabled")}>
                  <Toggle
                    checked={enabled(r)}
                    label={t("Enable {name}", { name: k })}
                    onChange={(on) => void run(() => onToggle(r, on))}
                  />
                </td>
              )}
              <td class="row-actions">
                {onEdit && <Button onClick={() => onEdit(r)}>{t("Edit")}</Button>}
                <Button kind="ghost" aria-label={t("Delete {name}", { name: k })} onClick={() => del([r])}>
                  {t("Delete")}
                </Button>
              </td>
            </tr>
          );
        })}
      </DataTable>
    </>
  );
}

/** an add or edit form's submit: "Add" in the add card, "Save" in the edit dialog */
export function SubmitButton({ busy, editing, class: cls }: { busy: boolean; editing: boolean; class?: string }) {
  return (
    <Button type="submit" kind="primary" busy={busy} class={cls}>
      {editing ? t("Save") : t("Add")}
    </Button>
  );
}

/**
 * The key of an add form: it changes only after a successful add, so the form starts empty again then,
 * and not when the list under it loads or loses a row (typing done meanwhile stays).
 */
export function useFreshForm(): [key: number, added: () => void] {
  const [key, setKey] = useState(0);
  return [key, () => setKey((k) => k + 1)];
}

/** a form's submit with field errors from the API (the error's hint or message names the field) */
export function useForm(): {
  busy: boolean;
  errors: Record<string, string>;
  submit: (fn: () => Promise<void>, fieldOf?: (e: unknown) => string) => Promise<boolean>;
  setErrors: (e: Record<string, string>) => void;
  /** the form's onSubmit: runs `fn`, shows its error at `field`, and calls `onDone` once it succeeded */
  onSubmit: (field: string, fn: () => Promise<void>, onDone: () => void) => (e: Event) => void;
} {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const submit = async (fn: () => Promise<void>, fieldOf: (e: unknown) => string = () => "form") => {
    setBusy(true);
    setErrors({});
    try {
      await fn();
      return true;
    } catch (e) {
      const text = (e as { text?: string }).text ?? String((e as Error).message ?? e);
      setErrors({ [fieldOf(e)]: text });
      return false;
    } finally {
      setBusy(false);
    }
  };
  const onSubmit = (field: string, fn: () => Promise<void>, onDone: () => void) => (e: Event) => {
    e.preventDefault();
    void submit(fn, () => field).then((ok) => ok && onDone());
  };
  return { busy, errors, submit, setErrors, onSubmit };
}

/** a batch reply from a create/update endpoint: the items it could not process, and what may not be meant */
export type Processed = { processed?: { errors: Array<{ item: string; error: string }> }; warnings?: string[] };

/** the first error a batch reply (processed.errors) reports, thrown as an Error; its warnings as a toast */
export function throwProcessed(reply: Processed): void {
  const e = reply.processed?.errors?.[0];
  if (e) throw new Error(`${e.item}: ${e.error}`);
  if (reply.warnings?.length) toast(reply.warnings.join(" "), "warn");
}
