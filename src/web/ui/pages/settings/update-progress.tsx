// An update's install as it happens: POST /api/action/update with the bundle (multipart "file") or its
// https URL, then the progress RAUC reports, streamed as text lines (` 40% Checking manifest contents`),
// and the last line, the sentence that says how it ended (src/api/action/update.ts). A bundle refused
// before anything was written is a 400 whose hint is that sentence.
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, streamText } from "../../api.ts";
import { ErrorNote, Spinner } from "../../components.tsx";
import { t } from "../../i18n.ts";

const PROGRESS = /^\s*(\d{1,3})% /;
/** the last line of a good install (src/update/install.ts) */
const INSTALLED = /^installed version (\S+) into the other slot/;

/** What the lines so far say: the highest percentage, and the last line that is not a percentage (the end). */
function read(lines: string[]): { percent: number; end: string | null } {
  let percent = 0;
  let end: string | null = null;
  for (const l of lines) {
    const m = PROGRESS.exec(l);
    if (m) percent = Math.max(percent, Math.min(100, Number(m[1])));
    else if (l.trim()) end = l.trim();
  }
  return { percent, end };
}

/**
 * Starts the install when mounted and shows it; `onDone` once the stream ended or the bundle was refused.
 * `run` numbers the installs of this page, so a second one that ends as the first did is still told apart.
 */
export function InstallProgress({
  run,
  body,
  onDone,
}: {
  run: number;
  body: FormData | { url: string };
  onDone: () => void;
}) {
  const [lines, setLines] = useState<string[]>([]);
  const [finished, setFinished] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // how much of an upload went, in percent; a URL is fetched by Moat itself
  const [sent, setSent] = useState(0);
  const pre = useRef<HTMLPreElement>(null);
  useEffect(() => {
    const split = (all: string) => all.split("\n").filter((l) => l.trim());
    const onSent = (part: number) => setSent(Math.round(part * 100));
    streamText("POST", "/action/update", (all) => setLines(split(all)), body, onSent)
      .then((all) => {
        setLines(split(all));
        setFinished(true);
      })
      .catch((e: unknown) => setError(e))
      .finally(onDone);
  }, []);
  useEffect(() => {
    if (pre.current) pre.current.scrollTop = pre.current.scrollHeight;
  }, [lines]);
  const r = read(lines);
  const installed = finished && r.end !== null ? INSTALLED.exec(r.end) : null;
  const refused = error instanceof ApiError && error.status === 400;
  return (
    <div class="gravity" data-testid="update-progress" data-run={run}>
      <div class="row">
        {!finished && !error && <Spinner />}
        <strong data-testid="update-result">
          {error
            ? refused
              ? t("Refused: nothing was written")
              : t("The install did not start")
            : !finished
              ? lines.length
                ? t("Installing… {percent}%", { percent: r.percent })
                : !(body instanceof FormData)
                  ? t("Fetching and checking the bundle…")
                  : sent < 100
                    ? t("Sending the bundle… {percent}%", { percent: sent })
                    : t("Checking the bundle's signature…")
              : installed
                ? t("Installed version {version} into the other slot", { version: installed[1]! })
                : t("The update failed: this version stays")}
        </strong>
      </div>
      {error ? (
        <ErrorNote error={refused ? new Error(sentence((error as ApiError).hint)) : error} />
      ) : (
        <>
          {/* the upload's share first, then RAUC's own percentages */}
          <progress
            max={100}
            value={lines.length ? r.percent : sent}
            aria-label={lines.length ? t("install progress") : t("upload progress")}
          />
          {finished && !installed && (
            <p class="note error" role="alert">
              {r.end ? sentence(r.end) : t("The install ended without saying how.")}
            </p>
          )}
          {installed && (
            <p class="note" data-testid="update-reboot">
              {t(
                'A reboot starts version {version}, once, as a trial: it stays only when Moat comes up healthy on it, otherwise the next boot is this version again. "Reboot now" below starts it.',
                { version: installed[1]! },
              )}
            </p>
          )}
          <pre ref={pre} class="log">
            {lines.join("\n")}
          </pre>
        </>
      )}
    </div>
  );
}

/** the API's lower-case sentence as a sentence on the page */
export function sentence(s: unknown): string {
  const t = String(s ?? "").trim();
  return t ? `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?]$/.test(t) ? "" : "."}` : "";
}
