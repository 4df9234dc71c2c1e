// What an API call costs DNS: the slowest answer to a name Moat answers itself, asked every 5 ms
// while the call runs (bench/querylog/search-while-answering.ts, bench/api/long-calls.ts).
import { encodeQuery, sendUdp } from "../../test/dns/helpers.ts";

/** The slowest DNS answer while `during` runs (a query every 5 ms, 1 s at most each). */
export async function slowestDns(
  port: number,
  during: () => Promise<void>,
): Promise<{ slowest: number; answers: number }> {
  const q = encodeQuery("localhost");
  let stop = false;
  let slowest = 0;
  let answers = 0;
  const loop = (async () => {
    while (!stop) {
      const s = performance.now();
      if (await sendUdp(port, q, "127.0.0.1", 1000)) answers++;
      slowest = Math.max(slowest, performance.now() - s);
      await Bun.sleep(5);
    }
  })();
  await during();
  stop = true;
  await loop;
  return { slowest, answers };
}
