// Pausing a device from wherever it is shown (the clients page, the query log): "Pause" asks for how
// long in a dialog before it cuts the device off (POST /api/pauses/{client}); when it is paused,
// "Resume" gives it back at once (DELETE), which takes nothing from anyone.
import { useState } from "preact/hooks";
import { api, enc, get } from "./api.ts";
import { Button, Modal, toast, useAction } from "./components.tsx";
import { SelectField } from "./fields.tsx";
import { usePoll } from "./poll.ts";
import { msg, t } from "./i18n.ts";

type Pause = { client: string; until: number | null };

/** how long a pause lasts, as the family page and this dialog offer it ("" = until resumed); msg() labels */
const PAUSE_CHOICES: ReadonlyArray<{ minutes: string; label: string }> = [
  { minutes: "15", label: msg("15 minutes") },
  { minutes: "60", label: msg("1 hour") },
  { minutes: "120", label: msg("2 hours") },
  { minutes: "", label: msg("until resumed") },
];

/** the "For" field of a pause: how long, one of PAUSE_CHOICES */
export function PauseFor({ id, value, onValue }: { id: string; value: string; onValue: (v: string) => void }) {
  return (
    <SelectField
      label={t("For")}
      id={id}
      value={value}
      onValue={onValue}
      choices={PAUSE_CHOICES.map((c) => [c.minutes, c.label] as const)}
    />
  );
}

/** the API's `minutes` for a choice: null pauses until resumed */
export const pauseMinutes = (choice: string): number | null => (choice === "" ? null : Number(choice));

/** the paused clients, and a reload for after a change */
export function usePauses(): { paused: Set<string>; reload: () => void } {
  const { data, reload } = usePoll(() => get<{ pauses: Pause[] }>("/pauses").then((r) => r.pauses), 30000);
  return { paused: new Set((data ?? []).map((p) => p.client)), reload };
}

export function PauseButton({
  client,
  paused,
  onDone,
  class: cls,
}: {
  client: string;
  paused: boolean;
  onDone: () => void;
  class?: string;
}) {
  const [busy, run] = useAction();
  const [asking, setAsking] = useState(false);
  const [minutes, setMinutes] = useState("60");
  const resume = () =>
    void run(() => api("DELETE", `/pauses/${enc(client)}`), t("{client} resumed", { client })).then(onDone);
  const pause = (e: Event) => {
    e.preventDefault();
    const label = t(PAUSE_CHOICES.find((c) => c.minutes === minutes)?.label ?? "");
    void run(
      () => api<{ warning?: string }>("POST", `/pauses/${enc(client)}`, { minutes: pauseMinutes(minutes) }),
      minutes === ""
        ? t("{client} paused until resumed", { client })
        : t("{client} paused for {time}", { client, time: label }),
    ).then((r) => {
      // a pause of a client Moat has not seen is kept, and the reply says it may pause no one
      const warning = (r as { warning?: string } | undefined)?.warning;
      if (warning) toast(warning, "warn");
      setAsking(false);
      onDone();
    });
  };
  return (
    <>
      <Button
        kind="ghost"
        class={cls}
        busy={busy && !asking}
        onClick={paused ? resume : () => setAsking(true)}
        title={paused ? t("Resume {client}", { client }) : t("Block everything for {client} for a while", { client })}
      >
        {paused ? t("Resume") : t("Pause")}
      </Button>
      {asking && (
        <Modal title={t("Pause {client}", { client })} onClose={() => setAsking(false)}>
          <form class="form" onSubmit={pause} data-testid="pause-dialog">
            <p>{t("Every lookup of {client} will be blocked until the pause ends.", { client })}</p>
            <PauseFor id="pause-minutes" value={minutes} onValue={setMinutes} />
            <div class="row end">
              <Button onClick={() => setAsking(false)}>{t("Cancel")}</Button>
              <Button type="submit" kind="danger" busy={busy}>
                {t("Pause")}
              </Button>
            </div>
          </form>
        </Modal>
      )}
    </>
  );
}
