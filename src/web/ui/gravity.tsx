// A gravity run's progress, streamed live from POST /api/action/gravity (text, one line per step).
// A second viewer of a running update follows the same run.
import { useEffect, useRef, useState } from "preact/hooks";
import { streamText } from "./api.ts";
import { Spinner } from "./components.tsx";
import { t } from "./i18n.ts";

/** ok: the run finished (the new filter is live); failed of lists: the lists it could not use */
export type GravityResult = { ok: boolean; lines: string[]; lists: number; failed: number };

/** each list's outcome line: `[✗] Status: …` (download failed) or `[✗] Not a list: …` (src/filter/gravity/build.ts) */
const LIST_FAILED = /^\s*\[✗\] (Status|Not a list):/;

async function runGravity(onLine: (line: string) => void): Promise<GravityResult> {
  const lines: string[] = [];
  let used = 0;
  // whole lines as they arrive; the last one may end without a newline
  const take = (all: string, last: boolean) => {
    let i: number;
    while ((i = all.indexOf("\n", used)) >= 0) {
      const line = all.slice(used, i);
      used = i + 1;
      lines.push(line);
      onLine(line);
    }
    if (last && used < all.length) {
      lines.push(all.slice(used));
      onLine(all.slice(used));
      used = all.length;
    }
  };
  take(await streamText("POST", "/action/gravity", (all) => take(all, false)), true);
  const of = lines.map((l) => /Gravity update of (\d+) list/.exec(l)).find(Boolean);
  return {
    ok: !lines.some((l) => /\[✗\] Gravity update failed|Another gravity update/.test(l)),
    lines,
    lists: of ? Number(of[1]) : 0,
    failed: lines.filter((l) => LIST_FAILED.test(l)).length,
  };
}

/** starts a run when mounted and shows it; `lists` (enabled lists) lets it show a percentage */
export function GravityProgress({ lists, onDone }: { lists: number; onDone: (r: GravityResult) => void }) {
  const [lines, setLines] = useState<string[]>([]);
  const [result, setResult] = useState<GravityResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    let all: string[] = [];
    runGravity((l) => {
      all = [...all, l];
      setLines(all);
    })
      .then((r) => {
        setResult(r);
        onDone(r);
      })
      .catch((e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [lines]);
  const seen = lines.filter((l) => /Target:/i.test(l)).length;
  const pct = result ? 100 : lists > 0 ? Math.min(95, Math.round((seen / (lists + 1)) * 100)) : undefined;
  return (
    <div class="gravity" data-testid="gravity-progress">
      <div class="row">
        {!result && !error && <Spinner />}
        <strong>
          {error
            ? t("Update failed: {error}", { error })
            : result
              ? !result.ok
                ? t("Update failed, the previous lists stay active")
                : result.failed > 0
                  ? t(
                      "Update finished, but {failed} of {lists} lists failed (see below; a cached copy is used where there is one)",
                      { failed: result.failed, lists: result.lists },
                    )
                  : t("Update finished")
              : t("Updating lists…")}
        </strong>
      </div>
      <progress max={100} value={pct} aria-label={t("gravity progress")} />
      <pre ref={pre} class="log" data-raw>
        {lines.join("\n")}
      </pre>
    </div>
  );
}
