// Pausing a device from wherever it is shown (the clients page, the query log): one button that pauses it
// for an hour (POST /api/pauses/{client}) or, when it is paused, resumes it (DELETE).
import { api, enc, get } from "./api.ts";
import { Button, toast, useAction } from "./components.tsx";
import { usePoll } from "./poll.ts";

type Pause = { client: string; until: number | null };

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
  const toggle = () =>
    void run(
      () =>
        paused
          ? api("DELETE", `/pauses/${enc(client)}`)
          : api<{ warning?: string }>("POST", `/pauses/${enc(client)}`, { minutes: 60 }),
      paused ? `${client} resumed` : `${client} paused for an hour`,
    ).then((r) => {
      // a pause of a client Moat has not seen is kept, and the reply says it may pause no one
      const warning = (r as { warning?: string } | undefined)?.warning;
      if (warning) toast(warning, "warn");
      onDone();
    });
  return (
    <Button
      kind="ghost"
      class={cls}
      busy={busy}
      onClick={toggle}
      title={paused ? `Resume ${client}` : `Block everything for ${client} for an hour`}
    >
      {paused ? "Resume" : "Pause"}
    </Button>
  );
}
