// A settings card's form: it starts from the card's config values, keeps what each field shows (a number
// or a list as text, one entry a line), and turns the texts back into values of the config's types on save
// (a number from its digits, a list from its lines, text trimmed). The fields below read their key's text and
// the API's error for it from the form, so a card names each key once and its values' shape only in the API.
import type { ComponentChildren } from "preact";
import { createContext } from "preact";
import { useContext, useState } from "preact/hooks";
import { Card, ErrorNote, Loading, TextInput } from "../../components.tsx";
import { Check, FormEnd } from "../../fields.tsx";
import { usePoll } from "../../poll.ts";
import { get } from "../../api.ts";
import { useSaveConfig } from "./save.ts";
import { SettingField } from "./env.tsx";

export type ConfigValue = string | number | boolean | string[];
type Values = Record<string, ConfigValue>;

type Form = {
  text: (key: string) => string;
  checked: (key: string) => boolean;
  /** whether the key's value is a number (its field then takes digits only) */
  isNumber: (key: string) => boolean;
  set: (key: string, v: string | boolean) => void;
  errors: Record<string, string>;
  busy: boolean;
  submit: (e: Event) => void;
};

const FormContext = createContext<Form | null>(null);

/** a list setting's entries, one a line */
const lines = (s: string): string[] =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

const toText = (v: ConfigValue): string | boolean =>
  Array.isArray(v) ? v.join("\n") : typeof v === "number" ? String(v) : v;

const fromText = (text: string | boolean, like: ConfigValue): ConfigValue => {
  if (typeof text === "boolean") return text;
  if (typeof like === "number") return Number(text);
  return Array.isArray(like) ? lines(text) : text.trim();
};

/**
 * The form of a card showing `values` (config keys to their values). Its save sends the keys whose value
 * changed, or with `all` every key; `parse` reads a key's text its own way (upstreams also split at commas).
 */
export function useSettingsForm(
  values: Values,
  reload: () => void,
  { all = false, parse = {} }: { all?: boolean; parse?: Record<string, (text: string) => ConfigValue> } = {},
): Form {
  const [texts, setTexts] = useState(() => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, toText(v)])));
  const { errors, busy, save } = useSaveConfig(reload);
  const submit = (e: Event) => {
    e.preventDefault();
    const out = Object.fromEntries(
      Object.entries(texts).map(([k, v]) => [
        k,
        typeof v === "string" && parse[k] ? parse[k](v) : fromText(v, values[k]!),
      ]),
    );
    void save(out, all ? undefined : values);
  };
  return {
    text: (key) => String(texts[key] ?? ""),
    checked: (key) => texts[key] === true,
    isNumber: (key) => typeof values[key] === "number",
    set: (key, v) => setTexts((now) => ({ ...now, [key]: v })),
    errors,
    busy,
    submit,
  };
}

function useForm(): Form {
  const form = useContext(FormContext);
  if (!form) throw new Error("a setting's field outside a SettingsForm");
  return form;
}

/** the card's form: its fields, the error no field took and the save button labelled `label` */
export function SettingsForm({
  form,
  label,
  kind,
  children,
}: {
  form: Form;
  label: string;
  kind?: "primary" | "";
  children: ComponentChildren;
}) {
  return (
    <FormContext.Provider value={form}>
      <form class="form" onSubmit={form.submit}>
        {children}
        <FormEnd error={form.errors.form} busy={form.busy} label={label} kind={kind} />
      </form>
    </FormContext.Provider>
  );
}

/** a card of settings from `GET /api<path>`: loading, the read's error, then the card's form with the values */
export function ConfigCard<T>({
  title,
  path,
  pick,
  children,
}: {
  title: string;
  path: string;
  pick: (config: never) => T;
  children: (values: T, reload: () => void) => ComponentChildren;
}) {
  const { data, error, reload } = usePoll(() => get<{ config: never }>(path).then((r) => pick(r.config)), 0);
  return (
    <Card title={title}>
      <ErrorNote error={error} />
      {data ? children(data, reload) : !error && <Loading />}
    </Card>
  );
}

type FieldProps = { setting: string; label: string; id: string; hint?: ComponentChildren };

/** one line of text, or a count or a port (0 or more) where the key's value is a number */
export function SettingText(field: FieldProps) {
  const form = useForm();
  const input = { id: field.id, value: form.text(field.setting), onValue: (v: string) => form.set(field.setting, v) };
  return (
    <SettingField {...field} errors={form.errors}>
      {form.isNumber(field.setting) ? <TextInput {...input} type="number" min="0" /> : <TextInput {...input} />}
    </SettingField>
  );
}

/** the form and a handler of an input event that keeps the text of `setting` */
function useBound(setting: string): [Form, (e: Event) => void] {
  const form = useForm();
  return [form, (e) => form.set(setting, (e.target as HTMLTextAreaElement | HTMLSelectElement).value)];
}

/** a list, one entry a line */
export function SettingLines({ rows, ...field }: FieldProps & { rows: number }) {
  const [form, keep] = useBound(field.setting);
  return (
    <SettingField {...field} errors={form.errors}>
      <textarea id={field.id} rows={rows} value={form.text(field.setting)} onInput={keep} />
    </SettingField>
  );
}

/** one of the `<option>`s given as children */
export function SettingSelect({ children, ...field }: FieldProps & { children: ComponentChildren }) {
  const [form, keep] = useBound(field.setting);
  return (
    <SettingField {...field} errors={form.errors}>
      <select id={field.id} value={form.text(field.setting)} onChange={keep}>
        {children}
      </select>
    </SettingField>
  );
}

/** a switch of a boolean key labelled `check`; with `field`, inside a field of that title and hint */
export function SettingCheck({
  setting,
  id,
  check,
  field,
}: {
  setting: string;
  id: string;
  check: ComponentChildren;
  field?: { label: string; hint: ComponentChildren };
}) {
  const form = useForm();
  const box = <Check id={id} label={check} checked={form.checked(setting)} set={(v) => form.set(setting, v)} />;
  if (!field) return box;
  return (
    <SettingField setting={setting} errors={form.errors} id={id} {...field}>
      {box}
    </SettingField>
  );
}
