// Settings, updates: the reboot that starts an installed version (POST /api/action/reboot, docs/updates.md).
// The card offers it while a trial is pending; after a confirmation Moat asks the machine to reboot (U-Boot's
// boot counters start the new version first), and the card waits for a Moat that started after the request (its
// GET /api/info/ftl uptime is shorter than the wait), then says which version runs.
import { useEffect, useState } from "preact/hooks";
import { api, ApiError, get, request } from "../../api.ts";
import { Button, confirmAction, ErrorNote, Spinner } from "../../components.tsx";
import { t } from "../../i18n.ts";

/** POST /api/action/reboot's 202 (RebootReply in src/api/action/update.ts) */
export type RebootPlan = { slot: string | null; tryboot: boolean };
type Running = { version: string; slot: string | null };

const POLL_MS = 2000;
/** a reboot takes about a minute; after this long the card says what to do if the machine stays away */
const LONG_MS = 3 * 60_000;

export function RebootButton({ version, onAsked }: { version: string | null; onAsked: (p: RebootPlan) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const click = async () => {
    const ok = await confirmAction(
      `${version ? t("Reboot now into version {version}?", { version }) : t("Reboot now?")} ${t(
        "DNS stops for about a minute while the machine restarts; if the new version does not come up healthy, the old one boots again by itself.",
      )}`,
      t("Reboot now"),
    );
    if (!ok) return;
    setBusy(true);
    setError(null);
    try {
      onAsked(await api<RebootPlan>("POST", "/action/reboot"));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="stack">
      <ErrorNote error={error} />
      <div class="row">
        <Button kind="danger" busy={busy} onClick={click}>
          {t("Reboot now")}
        </Button>
      </div>
    </div>
  );
}

/**
 * Whether a Moat answers that started after `asked` (this page's clock; the uptime is a duration, so the
 * two clocks need not agree). A refusal (a session the reboot forgot) counts once Moat was seen away.
 */
async function backSince(asked: number, wasAway: boolean): Promise<"back" | "old" | "away"> {
  try {
    const res = await request("GET", "/info/ftl", undefined, { auth: false });
    const { ftl } = (await res.json()) as { ftl: { uptime: number } };
    return ftl.uptime < Date.now() - asked ? "back" : "old";
  } catch (e) {
    if (e instanceof ApiError) return wasAway ? "back" : "old";
    return "away";
  }
}

/** The restart as it happens; `onBack` with what runs once Moat answers again. */
export function Restarting({
  plan,
  asked,
  back,
  onBack,
}: {
  plan: RebootPlan;
  asked: number;
  back: Running | null;
  onBack: (r: Running) => void;
}) {
  const [long, setLong] = useState(false);
  useEffect(() => {
    if (back) return;
    let stopped = false;
    let away = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      const now = await backSince(asked, away);
      if (stopped) return;
      if (now === "back") {
        try {
          onBack((await get<{ running: Running }>("/info/update")).running);
          return;
        } catch {
          // up, but not ready to say: the next round asks again
        }
      }
      away ||= now === "away";
      setLong(Date.now() - asked > LONG_MS);
      timer = setTimeout(tick, POLL_MS);
    };
    timer = setTimeout(tick, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [back]);
  if (back)
    return (
      <p class="note" data-testid="update-back">
        {back.slot
          ? t("Moat is back: running version {version} (slot {slot}).", { version: back.version, slot: back.slot })
          : t("Moat is back: running version {version}.", { version: back.version })}
      </p>
    );
  return (
    <div class="stack" data-testid="update-restarting">
      <div class="row">
        <Spinner label={t("restarting")} />
        <strong>
          {plan.slot
            ? plan.tryboot
              ? t("Restarting into slot {slot}, once as a trial…", { slot: plan.slot })
              : t("Restarting into slot {slot}…", { slot: plan.slot })
            : plan.tryboot
              ? t("Restarting, once as a trial…")
              : t("Restarting…")}
        </strong>
      </div>
      <p class="muted">
        {t(
          "DNS is away for about a minute. This page waits for Moat to answer again and then shows the version that runs.",
        )}
      </p>
      {long && (
        <p class="note error" role="alert">
          {t(
            "Moat has not answered for three minutes. If the machine does not come back, switch it off and on: it then starts the version that ran before.",
          )}
        </p>
      )}
    </div>
  );
}
