// API throughput: wrk against a real Moat (password set) on loopback, for a public route, an
// authenticated GET (SID in a header) and an authenticated GET with the SID in a JSON body (Pi-hole's
// checker sends it so). Prints requests/s, latency and the server's RSS before and after.
// Needs wrk (`apt-get install wrk`). Usage: bun bench/api/run.ts [seconds=10] [connections=32]
import { readFileSync } from "node:fs";
import { startMoat } from "../../test/harness/moat.ts";

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 32);

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

async function wrk(url: string, headers: Record<string, string>, body?: string): Promise<string> {
  const args = ["wrk", "-t", "2", "-c", String(CONNECTIONS), "-d", `${SECONDS}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  let script: string | undefined;
  if (body !== undefined) {
    script = `/tmp/moat-bench-api-${process.pid}.lua`;
    await Bun.write(
      script,
      `wrk.method = "GET"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    args.push("-s", script);
  }
  args.push(url);
  const p = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? "?";
  const p50 = /50%\s+(\S+)/.exec(out)?.[1] ?? "?";
  const p99 = /99%\s+(\S+)/.exec(out)?.[1] ?? "?";
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? "0";
  return `${rps} req/s, p50 ${p50}, p99 ${p99}, non-2xx ${errors}`;
}

const m = await startMoat({ configToml: `[webserver.api]\npassword = "bench"\nmax_sessions = 16\n` });
try {
  const login = await m.api("/api/auth", { method: "POST", body: JSON.stringify({ password: "bench" }) });
  const { session } = (await login.json()) as { session: { sid: string } };
  const pid = m.proc!.pid;
  console.log(`RSS at start: ${rssMiB(pid)} MiB`);
  console.log(`GET /api/info/login (public):       ${await wrk(`${m.base}/api/info/login`, {})}`);
  console.log(`GET /api/stats/summary (sid header): ${await wrk(`${m.base}/api/stats/summary`, { sid: session.sid })}`);
  console.log(
    `GET /api/stats/summary (sid body):   ${await wrk(`${m.base}/api/stats/summary`, {}, JSON.stringify({ sid: session.sid }))}`,
  );
  console.log(`RSS after: ${rssMiB(pid)} MiB`);
} finally {
  await m.dispose();
}
