// Settings, Import: a Pi-hole (Teleporter archive, or its directory on this machine) or an AdGuard Home
// install (AdGuardHome.yaml) carried in through POST /api/action/migrate (src/migrate/): a dry run first
// shows what would be carried and, one line each, what not and why; then the same is applied, as new,
// merged into this Moat's data or replacing it (backed up first).
import { useState } from "preact/hooks";
import { api } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, TextInput, toast } from "../../components.tsx";
import { FileField, SelectField } from "../../fields.tsx";
import { msg, t } from "../../i18n.ts";

const ACCEPT = ".zip,.tar.gz,.tgz,.yaml,.yml,application/zip,application/gzip";

/** what to do when this Moat already has data ("" refuses) */
const MODES: Array<[string, string]> = [
  ["", msg("Refuse")],
  ["merge", msg("Merge (add to it)")],
  ["replace", msg("Replace (backed up first)")],
];

interface Report {
  source: string;
  applied: boolean;
  mode: "new" | "merge" | "replace";
  backup?: string;
  carried: string[];
  notCarried: { item: string; why: string }[];
}

function ReportView({ r }: { r: Report }) {
  return (
    <div class="migrate-report" data-testid="migrate-report">
      <p class="note">
        {r.applied
          ? t("Imported from {source}", { source: r.source })
          : t("Dry run of {source}: nothing changed yet", { source: r.source })}
      </p>
      {r.backup && <p class="muted">{t("This Moat's data before the import: {file}", { file: r.backup })}</p>}
      <h4>{t("Carried")}</h4>
      <ul data-testid="migrate-carried">
        {r.carried.map((c) => (
          <li key={c}>{c}</li>
        ))}
      </ul>
      {r.notCarried.length > 0 && (
        <>
          <h4>{t("Not carried")}</h4>
          <ul data-testid="migrate-not-carried">
            {r.notCarried.map((n) => (
              <li key={n.item + n.why}>
                <strong>{n.item}</strong>: {n.why}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

export function ImportCard() {
  const [file, setFile] = useState<File | null>(null);
  const [path, setPath] = useState("");
  const [mode, setMode] = useState("");
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ready = !!file || path.trim() !== "";
  /** a changed source or mode makes the last report one of something else */
  const stale =
    <V,>(set: (v: V) => void) =>
    (v: V) => {
      set(v);
      setReport(null);
    };
  const send = async (dryRun: boolean) => {
    const form = new FormData();
    if (file) form.append("file", file);
    else form.append("path", path.trim());
    if (mode) form.append("mode", mode);
    form.append("dryRun", String(dryRun));
    setBusy(true);
    setError(null);
    try {
      const r = await api<Report>("POST", "/action/migrate", form);
      setReport(r);
      if (r.applied) toast(t("Imported"));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const apply = async () => {
    const text =
      mode === "replace"
        ? t("Replace this Moat's settings and lists with the import? They are backed up first.")
        : t("Import into this Moat as the dry run showed?");
    if (await confirmAction(text, t("Import"))) await send(false);
  };
  return (
    <Card title={t("Import from Pi-hole or AdGuard Home")}>
      <div class="form" id="import">
        <p class="muted">
          {t(
            "A Pi-hole Teleporter archive (v5 or v6) or AdGuardHome.yaml, uploaded or as a path on this machine (a Pi-hole directory such as /etc/pihole too). Check first: nothing changes until you import.",
          )}
        </p>
        <div class="row wrap">
          <FileField label={t("File")} id="s-migrate-file" accept={ACCEPT} onFile={stale(setFile)} />
          <Field label={t("…or a path on this machine")} id="s-migrate-path">
            <TextInput
              id="s-migrate-path"
              value={path}
              placeholder="/etc/pihole"
              disabled={!!file}
              onValue={stale(setPath)}
            />
          </Field>
          <SelectField
            label={t("If this Moat already has data")}
            id="s-migrate-mode"
            value={mode}
            onValue={stale(setMode)}
            choices={MODES}
          />
        </div>
        <ErrorNote error={error} />
        {report && <ReportView r={report} />}
        <div class="row">
          <Button type="button" busy={busy} disabled={!ready} onClick={() => send(true)}>
            {t("Check (dry run)")}
          </Button>
          <Button type="button" kind="primary" busy={busy} disabled={!report || report.applied} onClick={apply}>
            {t("Import")}
          </Button>
        </div>
      </div>
    </Card>
  );
}
