// A gravity run's progress, streamed live from POST /api/action/gravity (text, one line per step).
// A second viewer of a running update follows the same run.
import { useEffect, useRef, useState } from "preact/hooks";
import { request } from "./api.ts";
import { Spinner } from "./components.tsx";

export type GravityResult = { ok: boolean; lines: string[] };

async function runGravity(onLine: (line: string) => void): Promise<GravityResult> {
  const res = await request("POST", "/action/gravity");
  const lines: string[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buf += value;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      lines.push(line);
      onLine(line);
    }
  }
  if (buf) {
    lines.push(buf);
    onLine(buf);
  }
  return { ok: !lines.some((l) => /\[✗\] Gravity update failed|Another gravity update/.test(l)), lines };
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
            ? `Update failed: ${error}`
            : result
              ? result.ok
                ? "Update finished"
                : "Update failed, the previous lists stay active"
              : "Updating lists…"}
        </strong>
      </div>
      <progress max={100} value={pct} aria-label="gravity progress" />
      <pre ref={pre} class="log">
        {lines.join("\n")}
      </pre>
    </div>
  );
}
