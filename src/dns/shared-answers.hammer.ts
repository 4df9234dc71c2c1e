// A thread of shared-answers.test.ts: stores and looks up a few keys in a small shared table as fast
// as it can, beside other such threads, and checks that every answer it finds is whole and its key's.
import { answerEnd, answerStart, storedAt, ttlOf } from "./cache-entry.ts";
import { keyBytes, keyHash, writeKey } from "./cache-key.ts";
import { SharedAnswers, BUSY } from "./shared-answers.ts";
import { answerOf, keyWireOf } from "./shared-answers.fixture.ts";

declare const self: Worker;

self.onmessage = (ev: MessageEvent<{ buffer: SharedArrayBuffer; seed: number; rounds: number; keys: number }>) => {
  const { buffer, rounds, keys } = ev.data;
  let seed = ev.data.seed;
  const t = new SharedAnswers(buffer);
  let hits = 0,
    stores = 0,
    busy = 0;
  const wrong: string[] = [];
  for (let i = 0; i < rounds; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const k = seed % keys;
    const length = writeKey(keyWireOf(k), 1, 1, false, false, true, 0);
    const hash = keyHash(length);
    if (seed & 0x10000) {
      const answer = answerOf(k);
      const fields = { storedAt: k, ttl: k, reply: 0, upstreamBlocked: null, dnssec: 0, upstream: 0 };
      const chain = k % 3 === 0 ? [`c${k}.example`] : null;
      if (t.store(hash, answer, [], fields, keyBytes, length, chain) === BUSY) busy++;
      else stores++;
    } else if (t.lookup(hash, keyBytes, length)) {
      hits++;
      const e = t.entry;
      const answer = answerOf(k);
      const got = e.subarray(answerStart(e), answerEnd(e));
      const chain = t.chain();
      const whole =
        storedAt(e) === k &&
        ttlOf(e) === k &&
        got.length === answer.length &&
        got.every((b, j) => b === answer[j]) &&
        (k % 3 === 0 ? chain?.join() === `c${k}.example` : chain === null);
      if (!whole && wrong.length < 5) wrong.push(`key ${k}: ${storedAt(e)} ${ttlOf(e)} ${got.length}/${answer.length}`);
    }
  }
  self.postMessage({ hits, stores, busy, wrong });
};
