// Form and table parts the management pages share (lists, domains, clients, DHCP, network, settings):
// a checkbox with its label, a checkbox per named item (groups, services), a select of msg() choices, a new password's input, a file picker, a form's end (its error and its submit button), a table's
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

/** a field of one of `choices` ([value, msg() label] pairs) */
export function SelectField<V extends string>({
  label,
  id,
  value,
  onValue,
  choices,
  disabled,
}: {
  label: string;
  id: string;
  value: V;
  onValue: (v: V) => void;
  choices: ReadonlyArray<readonly [V, string]>;
  disabled?: boolean;
}) {
  return (
    <Field label={label} id={id}>
      <select
        id={id}
        value={value}
        disabled={disabled}
        onChange={(e) => onValue((e.target as HTMLSelectElement).value as V)}
      >
        <Options choices={choices} />
      </select>
    </Field>
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

/** `list` with `item` added (`on`) or taken out */
export const toggled = <K,>(list: readonly K[], item: K, on: boolean): K[] =>
  on ? [...list, item] : list.filter((x) => x !== item);

/** a checkbox per item (its id the checkbox's value), labelled with its name; `value` holds the ids ticked */
export function NameChecks<K extends string | number>({
  items,
  value,
  onChange,
}: {
  items: ReadonlyArray<{ id: K; name: string }>;
  value: K[];
  onChange: (v: K[]) => void;
}) {
  return (
    <>
      {items.map((item) => (
        <label key={item.id} class="check">
          <input
            type="checkbox"
            value={item.id}
            checked={value.includes(item.id)}
            onChange={(e) => onChange(toggled(value, item.id, (e.target as HTMLInputElement).checked))}
          />
          <span data-raw>{item.name}</span>
        </label>
      ))}
    </>
  );
}

/** a new password's input: hidden as typed, and one a password manager offers to make and keep */
export function NewPasswordInput({ id, value, onValue }: { id: string; value: string; onValue: (v: string) => void }) {
  return <TextInput id={id} type="password" autoComplete="new-password" value={value} onValue={onValue} />;
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
