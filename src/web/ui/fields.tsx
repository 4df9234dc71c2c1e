// Form and table parts the management pages share (lists, domains, clients, DHCP, network, settings):
// a checkbox with its label, a file picker, a form's end (its error and its submit button), a table's
// header row from its titles, an add form's field for the entry's key (fixed once the entry exists), and
// a select's options. Callers pass text already translated: t() runs where the page renders; only the
// options take msg() labels, as the choice tables are made at module scope.
import type { ComponentChildren } from "preact";
import { Button, Field, TextInput } from "./components.tsx";
import { t } from "./i18n.ts";
import { ActionsHeader } from "./table.tsx";

/** a select's options from [value, label] pairs whose labels are msg() labels, translated where they render */
export function Options({ choices }: { choices: ReadonlyArray<readonly [string, string]> }) {
  return (
    <>
      {choices.map(([value, label]) => (
        <option key={value} value={value}>
          {t(label)}
        </option>
      ))}
    </>
  );
}

export function Check({
  id,
  label,
  checked,
  set,
}: {
  id: string;
  label: ComponentChildren;
  checked: boolean;
  set: (v: boolean) => void;
}) {
  return (
    <label class="check" for={id}>
      <input id={id} type="checkbox" checked={checked} onChange={(e) => set((e.target as HTMLInputElement).checked)} />{" "}
      {label}
    </label>
  );
}

export function FileField({
  label,
  id,
  hint,
  accept,
  onFile,
}: {
  label: string;
  id: string;
  hint?: string;
  accept: string;
  onFile: (f: File | null) => void;
}) {
  return (
    <Field label={label} id={id} hint={hint}>
      <input
        id={id}
        type="file"
        accept={accept}
        onChange={(e) => onFile((e.target as HTMLInputElement).files?.[0] ?? null)}
      />
    </Field>
  );
}

/** the end of a settings form: the error no field took, then the submit button at the right */
export function FormEnd({
  error,
  busy,
  label,
  kind = "primary",
}: {
  error?: string | null | undefined;
  busy: boolean;
  label: string;
  kind?: "primary" | "";
}) {
  return (
    <>
      {error && <p class="note error">{error}</p>}
      <div class="row end">
        <Button type="submit" kind={kind} busy={busy}>
          {label}
        </Button>
      </div>
    </>
  );
}

/** a table's header cells: a title, or a title with its class ("num"); then the row buttons' column */
export function Heads({ titles, actions = true }: { titles: Array<string | [string, string]>; actions?: boolean }) {
  return (
    <>
      {titles.map((h) =>
        typeof h === "string" ? (
          <th key={h}>{h}</th>
        ) : (
          <th key={h[0]} class={h[1]}>
            {h[0]}
          </th>
        ),
      )}
      {actions && <ActionsHeader />}
    </>
  );
}

/** the field of what an entry is (its domain, address, client): typed when adding, fixed when editing */
export function KeyField({
  label,
  id,
  error,
  hint,
  value,
  onValue,
  editing,
  type,
  placeholder,
  list,
}: {
  label: string;
  id: string;
  error: string | undefined;
  hint: string;
  value: string;
  onValue: (v: string) => void;
  editing: boolean;
  type?: "url";
  placeholder?: string;
  list?: string;
}) {
  return (
    <Field label={label} id={id} error={error} hint={hint}>
      <TextInput
        id={id}
        type={type}
        list={list}
        required
        value={value}
        disabled={editing}
        placeholder={placeholder}
        onValue={onValue}
      />
    </Field>
  );
}
