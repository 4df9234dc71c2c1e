// "All settings": every key of GET /api/config?detailed with its description, type, default and
// what it accepts, grouped by section with a filter, as Pi-hole's settings/all page shows them.
// A key the environment sets (FTLCONF_…, flags.env_var) is read-only: the API would refuse the
// change and the next start would undo it. Each key saves alone, so the API's error (a range, an
// enum value) shows at that key.
import { useMemo, useState } from "preact/hooks";
import { ApiError, get, patchConfig } from "../../api.ts";
import { Button, Card, ErrorNote, Loading, toast, TextInput } from "../../components.tsx";
import { plural, t } from "../../i18n.ts";
import { messagesMayChange } from "../../messages.tsx";
import { usePoll } from "../../poll.ts";
import { type Detailed, type Entry, envName, flatten, type Leaf } from "./detailed.ts";

const shown = (v: unknown): string =>
  Array.isArray(v) ? (v.length ? v.join(", ") : t("(empty)")) : v === "" ? t("(empty)") : String(v);

/** the text in the editor for a value */
const asText = (leaf: Leaf): string =>
  Array.isArray(leaf.value) ? leaf.value.join("\n") : leaf.type.startsWith("password") ? "" : String(leaf.value);

function parse(leaf: Leaf, text: string): unknown {
  if (leaf.type === "boolean") return text === "true";
  if (leaf.type === "string array")
    return text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
  if (/integer|double/.test(leaf.type)) return text.trim() === "" ? text : Number(text);
  return text;
}

function Editor({
  e,
  id,
  text,
  set,
  disabled,
}: {
  e: Entry;
  id: string;
  text: string;
  set: (s: string) => void;
  disabled: boolean;
}) {
  const leaf = e.leaf;
  const on = (ev: Event) => set((ev.target as HTMLInputElement).value);
  if (leaf.type === "boolean")
    return (
      <input
        id={id}
        type="checkbox"
        checked={text === "true"}
        disabled={disabled}
        onChange={(ev) => set(String((ev.target as HTMLInputElement).checked))}
      />
    );
  if (Array.isArray(leaf.allowed))
    return (
      <select id={id} class="all-input" value={text} disabled={disabled} onChange={on}>
        {leaf.allowed.map((a) => (
          <option key={a.item} value={a.item} data-raw>
            {a.item}
          </option>
        ))}
      </select>
    );
  if (leaf.type === "string array")
    return <textarea id={id} class="all-input" rows={2} value={text} disabled={disabled} onInput={on} />;
  if (/integer|double/.test(leaf.type))
    return <input id={id} class="all-input" type="number" step="any" value={text} disabled={disabled} onInput={on} />;
  if (leaf.type.startsWith("password"))
    return (
      <input
        id={id}
        class="all-input"
        type="password"
        autoComplete="new-password"
        value={text}
        disabled={disabled}
        onInput={on}
      />
    );
  return <input id={id} class="all-input" type="text" value={text} disabled={disabled} onInput={on} />;
}

function Row({ e, reload }: { e: Entry; reload: () => void }) {
  const leaf = e.leaf;
  const [text, setText] = useState(asText(leaf));
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = `all-${e.path.replace(/\./g, "-")}`;
  const env = leaf.flags.env_var;
  const dirty = text !== asText(leaf);
  const save = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await patchConfig({ [e.path]: parse(leaf, text) });
      toast(t("Saved {key}", { key: e.path }));
      messagesMayChange.set(messagesMayChange.get() + 1);
      reload();
    } catch (err) {
      setError(err instanceof ApiError ? err.text : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class={`all-row ${error ? "invalid" : ""}`} data-key={e.path} onSubmit={save}>
      <div class="all-head">
        <label for={id}>
          <code>{e.path}</code>
        </label>
        {leaf.modified && <span class="badge info">{t("changed")}</span>}
        {env && (
          <span class="badge warn" title={t("set by {name}", { name: envName(e.path) })}>
            {t("read-only: environment")}
          </span>
        )}
        {leaf.flags.restart_dnsmasq && <span class="badge plain">{t("restarts DNS")}</span>}
        {leaf.flags.session_reset && <span class="badge plain">{t("ends sessions")}</span>}
      </div>
      <p class="all-desc" data-raw lang="en">
        {leaf.description}
      </p>
      <div class="row wrap all-edit">
        <Editor e={e} id={id} text={text} set={setText} disabled={env} />
        {dirty && !env && (
          <Button type="submit" kind="primary" busy={busy}>
            {t("Save")}
          </Button>
        )}
      </div>
      {error && (
        <small class="error" role="alert">
          {error}
        </small>
      )}
      <small class="muted all-meta">
        <span data-raw lang="en">
          {leaf.type}
        </span>{" "}
        · {t("default {value}", { value: shown(leaf.default) })}
        {typeof leaf.allowed === "string" && (
          <>
            {" · "}
            <span data-raw lang="en">
              {leaf.allowed}
            </span>
          </>
        )}
        {env && ` · ${t("set by {name}", { name: envName(e.path) })}`}
      </small>
    </form>
  );
}

export function AllSettings() {
  const { data, error, reload } = usePoll(() => get<Detailed>("/config?detailed=true"), 0);
  const [filter, setFilter] = useState("");
  const entries = useMemo(() => (data ? flatten(data.config) : []), [data]);
  const f = filter.trim().toLowerCase();
  const shownEntries = f
    ? entries.filter((e) => e.path.toLowerCase().includes(f) || e.leaf.description.toLowerCase().includes(f))
    : entries;
  const sections = [...new Set(shownEntries.map((e) => e.path.split(".")[0]!))];
  const title = (s: string) => data?.topics?.find((t) => t.name === s)?.title ?? s;
  return (
    <div class="stack">
      <ErrorNote error={error} />
      <div class="field">
        <label for="all-filter">{t("Filter")}</label>
        <TextInput
          id="all-filter"
          type="search"
          placeholder={t("a key or a word of its description")}
          value={filter}
          onValue={setFilter}
        />
      </div>
      {!data && !error && <Loading />}
      {data && (
        <p class="muted" data-testid="all-count">
          {plural(
            entries.length,
            { one: "{shown} of {count} setting", other: "{shown} of {count} settings" },
            {
              shown: shownEntries.length,
            },
          )}
        </p>
      )}
      {sections.map((s) => (
        <Card
          key={s}
          title={
            <span data-raw lang="en">
              {title(s)} ({s})
            </span>
          }
        >
          {shownEntries
            .filter((e) => e.path.split(".")[0] === s)
            .map((e) => (
              <Row key={`${e.path} ${JSON.stringify(e.leaf.value)}`} e={e} reload={reload} />
            ))}
        </Card>
      ))}
    </div>
  );
}
