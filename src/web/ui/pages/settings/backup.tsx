// Settings, backup: the Teleporter archive, downloaded and restored (Pi-hole's format, src/teleporter/).
import { useState } from "preact/hooks";
import { api, request } from "../../api.ts";
import { Button, Card, confirmAction, ErrorNote, Field, useAction } from "../../components.tsx";

export function Backup() {
  const [busy, run] = useAction();
  const [file, setFile] = useState<File | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const exportIt = () =>
    run(async () => {
      const res = await request("GET", "/teleporter");
      const name =
        /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? "moat-teleporter.zip";
      const a = document.createElement("a");
      a.href = URL.createObjectURL(await res.blob());
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    }, "Backup downloaded");
  const importIt = async (e: Event) => {
    e.preventDefault();
    if (
      !file ||
      !(await confirmAction(
        `Restore ${file.name}? It replaces the lists, domains, groups, clients and settings.`,
        "Restore",
      ))
    )
      return;
    setError(null);
    const form = new FormData();
    form.append("file", file);
    const r = await run(() =>
      api<{ files: string[] }>("POST", "/teleporter", form).catch((err: unknown) => {
        setError(err);
        throw err;
      }),
    );
    if (r) setResult(`Restored: ${r.files.join(", ")}`);
  };
  return (
    <Card title="Backup (Teleporter)">
      <div class="form">
        <p class="muted">
          A zip in Pi-hole's layout: lists, domains, groups, clients, settings and local DNS records. It moves to and
          from Pi-hole v6.
        </p>
        <Button busy={busy} onClick={exportIt}>
          Download backup
        </Button>
      </div>
      <form class="form" onSubmit={importIt}>
        <Field label="Restore from a backup" id="s-import">
          <input
            id="s-import"
            type="file"
            accept=".zip,application/zip"
            onChange={(e) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
          />
        </Field>
        <ErrorNote error={error} />
        {result && (
          <p class="note" data-testid="import-result">
            {result}
          </p>
        )}
        <div class="row">
          <Button type="submit" kind="danger" busy={busy} disabled={!file}>
            Restore
          </Button>
        </div>
      </form>
    </Card>
  );
}
