// Keys the environment sets (FTLCONF_…, flags.env_var of GET /api/config?detailed): the API refuses
// to change them, so the Settings page shows them read-only with the variable to change instead, and
// saveConfig leaves them out of what it sends.
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";
import { get } from "../../api.ts";
import { Field } from "../../components.tsx";
import { t } from "../../i18n.ts";
import { Store, useStore } from "../../store.ts";
import { type Detailed, envName, flatten } from "./detailed.ts";

const envKeys = new Store<ReadonlySet<string>>(new Set());

/** the keys the environment sets; asked once each time a page using them opens */
export function useEnvKeys(): ReadonlySet<string> {
  useEffect(() => {
    get<Detailed>("/config?detailed=true")
      .then((d) => envKeys.set(new Set(flatten(d.config).flatMap((e) => (e.leaf.flags.env_var ? [e.path] : [])))))
      .catch(() => {
        // the fields stay editable; a save then shows the API's refusal
      });
  }, []);
  return useStore(envKeys);
}

/** the values without the keys the environment sets (the API refuses any write to them) */
export const withoutEnvKeys = (values: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(values).filter(([k]) => !envKeys.get().has(k)));

/**
 * A field of one config key: its error is the one the API gives for that key; when the environment
 * sets the key, its control is disabled and the hint names the variable.
 */
export function SettingField({
  setting,
  errors,
  label,
  id,
  hint,
  children,
}: {
  setting: string;
  errors: Record<string, string>;
  label: string;
  id: string;
  hint?: ComponentChildren;
  children: ComponentChildren;
}) {
  const env = useStore(envKeys).has(setting);
  return (
    <Field
      label={label}
      id={id}
      error={errors[setting]}
      hint={
        env ? t("Read-only: set by the environment variable {name}; change it there", { name: envName(setting) }) : hint
      }
    >
      {env ? (
        <fieldset class="plain" disabled>
          {children}
        </fieldset>
      ) : (
        children
      )}
    </Field>
  );
}
