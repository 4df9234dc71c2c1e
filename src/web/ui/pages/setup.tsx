// First-run setup, shown while no password or no upstream is set (until done or skipped): a
// password, the upstream resolvers from a few presets or resolving from the root servers
// (dns.recursive.active), and a first block list; the language first of all.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, get, patchConfig } from "../api.ts";
import { Button, Field, TextInput } from "../components.tsx";
import { NewPasswordInput, toggled } from "../fields.tsx";
import { GravityProgress } from "../gravity.tsx";
import { t } from "../i18n.ts";
import { GuideStep } from "./guide.tsx";
import { LIST_PRESETS, UPSTREAM_PRESETS } from "../presets.ts";
import { login, session } from "../session.ts";
import { Store, useStore } from "../store.ts";
import { LanguagePicker } from "../language.tsx";

const DONE_KEY = "moat.setup.done";
const needed = new Store<boolean | null>(null);

/** null while finding out; true when the setup should show */
export function useSetupNeeded(active: boolean): boolean | null {
  const v = useStore(needed);
  useEffect(() => {
    if (!active) return;
    if (localStorage.getItem(DONE_KEY)) return needed.set(false);
    Promise.all([
      get<{ config: { dns: { upstreams: string[] } } }>("/config/dns/upstreams"),
      // a Pi-hole-compatible API (webserver.api.piholeCompat) leaves Moat's own keys out: not resolving then
      get<{ config: { dns?: { recursive?: { active: boolean } } } }>("/config/dns/recursive/active"),
    ])
      .then(([u, r]) =>
        needed.set(
          session.get().state === "open" ||
            (u.config.dns.upstreams.length === 0 && r.config.dns?.recursive?.active !== true),
        ),
      )
      .catch(() => needed.set(false));
  }, [active]);
  return active ? v : false;
}

function finish(): void {
  localStorage.setItem(DONE_KEY, "1");
  needed.set(false);
}

/** a new password's field (the password and its repetition) */
/** a step of the setup, numbered: the password's comes first, and only while the dashboard has none */
function Step({ n, title, children }: { n: number; title: string; children: ComponentChildren }) {
  return (
    <fieldset>
      <legend>
        {n}. {title}
      </legend>
      {children}
    </fieldset>
  );
}

export function Setup() {
  const open = session.get().state === "open";
  const [password, setPassword] = useState("");
  const [password2, setPassword2] = useState("");
  const [chosen, setChosen] = useState<string[]>(["Quad9"]);
  const [custom, setCustom] = useState("");
  const [ipv6, setIpv6] = useState(false);
  /** dns.recursive.active: no upstream needed */
  const [own, setOwn] = useState(false);
  const [list, setList] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [gravity, setGravity] = useState(false);

  const upstreams = () => [
    ...UPSTREAM_PRESETS.filter((p) => chosen.includes(p.name)).flatMap((p) => [...p.v4, ...(ipv6 ? p.v6 : [])]),
    ...custom.split(/[\s,;]+/).filter(Boolean),
  ];

  const save = async (e: Event) => {
    e.preventDefault();
    const errs: Record<string, string> = {};
    if (open && password !== password2) errs.password2 = t("The passwords differ");
    if (upstreams().length === 0 && !own) errs.upstreams = t("Choose at least one upstream");
    setErrors(errs);
    if (Object.keys(errs).length) return;
    setBusy(true);
    try {
      // resolving from the root, Moat checks DNSSEC itself (there is no upstream to trust for it)
      const dns = own ? { "dns.recursive.active": true, "dns.dnssec": true } : {};
      await patchConfig({ "dns.upstreams": upstreams(), ...dns }).catch((err: unknown) => {
        throw Object.assign(err as Error, { field: "upstreams" });
      });
      if (list) {
        for (const l of LIST_PRESETS) {
          await api("POST", "/lists?type=block", { address: l.address, comment: l.name, enabled: true }).catch(
            (err: unknown) => {
              // already subscribed is fine
              if (!(err instanceof ApiError && /UNIQUE|already/i.test(JSON.stringify(err.hint) + err.message)))
                throw err;
            },
          );
        }
      }
      if (open && password) {
        await patchConfig({ "webserver.api.password": password }).catch((err: unknown) => {
          throw Object.assign(err as Error, { field: "password" });
        });
        await login(password, "");
      }
      if (list) setGravity(true);
      else finish();
    } catch (err) {
      const field = (err as { field?: string }).field ?? "form";
      setErrors({ [field]: err instanceof ApiError ? err.text : String((err as Error).message) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login setup">
      <form class="card setup-card" onSubmit={save}>
        <Field label={t("Language")} id="setup-language">
          <LanguagePicker id="setup-language" />
        </Field>
        <h1>{t("Welcome to Moat")}</h1>
        <p>{t("Three things and your network is protected. Everything can be changed later under Settings.")}</p>
        {open && (
          <Step n={1} title={t("A password for this dashboard")}>
            <p class="muted">{t("Without one, anyone on your network can change Moat's settings.")}</p>
            <Field label={t("Password")} id="setup-pw" error={errors.password}>
              <NewPasswordInput id="setup-pw" value={password} onValue={setPassword} />
            </Field>
            <Field label={t("Password again")} id="setup-pw2" error={errors.password2}>
              <NewPasswordInput id="setup-pw2" value={password2} onValue={setPassword2} />
            </Field>
          </Step>
        )}
        <Step n={open ? 2 : 1} title={t("Upstream DNS servers")}>
          <p class="muted">{t("Moat asks these for every name it does not block.")}</p>
          <div class="presets">
            <label class="check">
              <input type="checkbox" checked={own} onChange={(e) => setOwn((e.target as HTMLInputElement).checked)} />
              <span>
                <strong>{t("Resolve myself (private)")}</strong>{" "}
                <small class="muted">
                  {t(
                    "asks the root servers and each domain's own servers, and checks DNSSEC: no resolver company sees every name",
                  )}
                </small>
              </span>
            </label>
            {UPSTREAM_PRESETS.map((p) => (
              <label key={p.name} class="check">
                <input
                  type="checkbox"
                  checked={chosen.includes(p.name)}
                  onChange={(e) => setChosen(toggled(chosen, p.name, (e.target as HTMLInputElement).checked))}
                />
                <span>
                  <strong data-raw>{p.name}</strong> <small class="muted">{t(p.note)}</small>
                </span>
              </label>
            ))}
            <label class="check">
              <input type="checkbox" checked={ipv6} onChange={(e) => setIpv6((e.target as HTMLInputElement).checked)} />{" "}
              {t("also their IPv6 addresses")}
            </label>
          </div>
          <Field
            label={t("Other servers (optional)")}
            id="setup-custom"
            error={errors.upstreams}
            hint={t("IP or IP#port, separated by spaces, e.g. {example}", { example: "192.168.1.1" })}
          >
            <TextInput id="setup-custom" value={custom} onValue={setCustom} />
          </Field>
        </Step>
        <Step n={open ? 3 : 2} title={t("A first block list")}>
          <label class="check">
            <input type="checkbox" checked={list} onChange={(e) => setList((e.target as HTMLInputElement).checked)} />
            <span data-raw>{LIST_PRESETS[0]!.name}</span>
          </label>
        </Step>
        <GuideStep step={open ? 4 : 3} />
        {errors.form && <p class="note error">{errors.form}</p>}
        {gravity ? (
          <>
            <GravityProgress lists={1} onDone={() => undefined} />
            <Button kind="primary" onClick={finish}>
              {t("Go to the dashboard")}
            </Button>
          </>
        ) : (
          <div class="row end">
            <Button kind="ghost" onClick={finish}>
              {t("Skip for now")}
            </Button>
            <Button type="submit" kind="primary" busy={busy}>
              {t("Save and start")}
            </Button>
          </div>
        )}
      </form>
    </main>
  );
}
