// Settings, updates: firmware updates (docs/updates.md) as GET /api/info/update reports them: the running
// version and slot, what the other slot holds and whether the next boot takes it, and the last attempt.
// A bundle (uploaded, or its https address) is installed into the other slot after a confirmation, with
// RAUC's progress streamed (update-progress.tsx). While the next boot tries the other slot, "Reboot now" starts
// it and the card waits for Moat to come back (update-reboot.tsx). Where RAUC is missing the card says so and
// offers nothing.
import { useState } from "preact/hooks";
import { get } from "../../api.ts";
import { Badge, Button, Card, confirmAction, ErrorNote, Field, Loading, TextInput } from "../../components.tsx";
import { FileField } from "../../fields.tsx";
import { intlLocale, msg, t } from "../../i18n.ts";
import { usePoll } from "../../poll.ts";
import { InstallProgress, sentence } from "./update-progress.tsx";
import { RebootButton, type RebootPlan, Restarting } from "./update-reboot.tsx";

/** GET /api/info/update (StatusReply in src/api/action/update.ts) */
type UpdateStatus = {
  available: boolean;
  message: string | null;
  running: { version: string; slot: string | null };
  other: { slot: string; bootname: string; version: string | null; bootStatus: string; primary: boolean } | null;
  last: { at: string; ok: boolean; version: string; message: string; installing?: boolean } | null;
};

/** The last attempt's badge: an install still writing the other slot is neither installed nor failed. */
function lastBadge(last: NonNullable<UpdateStatus["last"]>) {
  if (last.installing) return <Badge kind="info">{t("installing")}</Badge>;
  return <Badge kind={last.ok ? "ok" : "bad"}>{last.ok ? t("installed") : t("failed")}</Badge>;
}

/** RAUC's boot status words */
const BOOT: Record<string, string> = { good: msg("good"), bad: msg("bad") };

function Facts({ s }: { s: UpdateStatus }) {
  const { other, last } = s;
  return (
    <dl class="facts" data-testid="update-status">
      <dt>{t("Running")}</dt>
      <dd data-testid="update-running">
        {s.running.version}
        {s.running.slot && ` (${t("slot {slot}", { slot: s.running.slot })})`}
      </dd>
      {s.available && (
        <>
          <dt>{t("Other slot")}</dt>
          <dd data-testid="update-other">
            {!other ? (
              t("none")
            ) : (
              <>
                {other.bootname || other.slot}: {other.version ?? t("nothing installed by an update yet")}{" "}
                {other.bootStatus && (
                  <Badge kind={other.bootStatus === "good" ? "ok" : "bad"}>
                    {BOOT[other.bootStatus] ? t(BOOT[other.bootStatus]!) : other.bootStatus}
                  </Badge>
                )}{" "}
                {other.primary && <Badge kind="info">{t("the next boot tries it")}</Badge>}
              </>
            )}
          </dd>
        </>
      )}
      <dt>{t("Last update")}</dt>
      <dd data-testid="update-last">
        {!last ? (
          t("no update yet")
        ) : (
          <>
            {lastBadge(last)} {last.version && `${last.version} · `}
            {new Date(last.at).toLocaleString(intlLocale())}
            <br />
            <small class="muted">{sentence(last.message)}</small>
          </>
        )}
      </dd>
    </dl>
  );
}

function InstallForm({ onInstall }: { onInstall: (body: FormData | { url: string }) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [url, setUrl] = useState("");
  const submit = async (e: Event) => {
    e.preventDefault();
    const what = file ? file.name : url.trim();
    if (!what) return;
    const ok = await confirmAction(
      t(
        "Install {bundle} into the other slot? Moat keeps running on this one while it is written; a reboot then starts the new version once as a trial, and this version stays as the fallback.",
        { bundle: what },
      ),
      t("Install"),
    );
    if (!ok) return;
    if (file) {
      const form = new FormData();
      form.append("file", file);
      onInstall(form);
    } else onInstall({ url: url.trim() });
  };
  return (
    <form class="form" onSubmit={submit}>
      <FileField
        label={t("Bundle file")}
        id="u-file"
        hint={t("A .raucb bundle signed with the project's key")}
        accept=".raucb"
        onFile={setFile}
      />
      <Field
        label={t("…or its address")}
        id="u-url"
        hint={t("https:// only; Moat downloads it, the signature decides")}
      >
        <TextInput
          id="u-url"
          type="url"
          placeholder="https://…"
          value={url}
          disabled={file !== null}
          onValue={setUrl}
        />
      </Field>
      <div class="row">
        <Button type="submit" kind="danger" disabled={!file && !url.trim()}>
          {t("Install update")}
        </Button>
      </div>
    </form>
  );
}

export function UpdateCard() {
  const { data, error, reload } = usePoll(() => get<UpdateStatus>("/info/update"), 0);
  // each install gets a fresh progress view; null: none started on this page
  const [install, setInstall] = useState<{ n: number; body: FormData | { url: string } } | null>(null);
  const [running, setRunning] = useState(false);
  // the reboot asked for on this page, and what runs once Moat answered again
  const [restart, setRestart] = useState<{
    plan: RebootPlan;
    asked: number;
    back: UpdateStatus["running"] | null;
  } | null>(null);
  const restarting = restart !== null && restart.back === null;
  return (
    <Card title={t("Updates")}>
      <ErrorNote error={error} />
      {!data ? (
        !error && <Loading />
      ) : (
        <div class="stack">
          <Facts s={data} />
          {!data.available ? (
            <p class="muted" data-testid="update-unavailable" data-raw lang="en">
              {sentence(data.message)}
            </p>
          ) : (
            <>
              {install && (
                <InstallProgress
                  key={install.n}
                  run={install.n}
                  body={install.body}
                  onDone={() => {
                    setRunning(false);
                    reload();
                  }}
                />
              )}
              {restart && (
                <Restarting
                  plan={restart.plan}
                  asked={restart.asked}
                  back={restart.back}
                  onBack={(back) => {
                    setRestart({ ...restart, back });
                    reload();
                  }}
                />
              )}
              {!running && !restarting && data.other?.primary && (
                <RebootButton
                  version={data.other.version}
                  onAsked={(plan) => setRestart({ plan, asked: Date.now(), back: null })}
                />
              )}
              {!running && !restarting && (
                <InstallForm
                  onInstall={(body) => {
                    setRunning(true);
                    setInstall({ n: (install?.n ?? 0) + 1, body });
                  }}
                />
              )}
            </>
          )}
        </div>
      )}
    </Card>
  );
}
