// Pausing a device from wherever it is shown (the clients page, the query log): "Pause" asks for how
// long in a dialog before it cuts the device off (POST /api/pauses/{client}); when it is paused,
// "Resume" gives it back at once (DELETE), which takes nothing from anyone.
import { useState } from "preact/hooks";
import { api, enc, get } from "./api.ts";
import { Button, Field, Modal, toast, useAction } from "./components.tsx";
import { usePoll } from "./poll.ts";

type Pause = { client: string; until: number | null };

/** how long a pause lasts, as the family page and this dialog offer it ("" = until resumed) */
export const PAUSE_CHOICES: ReadonlyArray<{ minutes: string; label: string }> = [
  { minutes: "15", label: "15 minutes" },
  { minutes: "60", label: "1 hour" },
  { minutes: "120", label: "2 hours" },
  { minutes: "", label: "until resumed" },
];

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
  const resume = () => void run(() => api("DELETE", `/pauses/${enc(client)}`), `${client} resumed`).then(onDone);
  const pause = (e: Event) => {
    e.preventDefault();
    const label = PAUSE_CHOICES.find((c) => c.minutes === minutes)?.label ?? "";
    void run(
      () => api<{ warning?: string }>("POST", `/pauses/${enc(client)}`, { minutes: pauseMinutes(minutes) }),
      `${client} paused ${minutes === "" ? label : `for ${label}`}`,
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
        title={paused ? `Resume ${client}` : `Block everything for ${client} for a while`}
      >
        {paused ? "Resume" : "Pause"}
      </Button>
      {asking && (
        <Modal title={`Pause ${client}`} onClose={() => setAsking(false)}>
          <form class="form" onSubmit={pause} data-testid="pause-dialog">
            <p>Every lookup of {client} will be blocked until the pause ends.</p>
            <Field label="For" id="pause-minutes">
              <select
                id="pause-minutes"
                value={minutes}
                onChange={(e) => setMinutes((e.target as HTMLSelectElement).value)}
              >
                {PAUSE_CHOICES.map((c) => (
                  <option key={c.minutes} value={c.minutes}>
                    {c.label}
                  </option>
                ))}
              </select>
            </Field>
            <div class="row end">
              <Button onClick={() => setAsking(false)}>Cancel</Button>
              <Button type="submit" kind="danger" busy={busy}>
                Pause
              </Button>
            </div>
          </form>
        </Modal>
      )}
    </>
  );
}
