// Balloon hashing (Boneh, Corrigan-Gibbs, Schechter 2016) with SHA-256, computing the same bytes as
// nettle's balloon_sha256, which Pi-hole FTL uses for `webserver.api.pwhash`: hashes move between
// Pi-hole and Moat in both directions.
//
// One run is ~330,000 SHA-256 calls on 24–72-byte inputs, so per-call overhead decides the speed:
// everything lives in one preallocated buffer, operands move with copyWithin, and the hash
// input/output views are made once, so the loop allocates nothing. (A pure-JS SHA-256 measured 3–5×
// slower than Bun's native one-shot hash here.) The function is self-contained, with no reference
// outside its body, because balloon-worker.ts ships its source text to a worker thread.

export function balloonSha256(password: Uint8Array, salt: Uint8Array, sCost: number, tCost: number): Uint8Array {
  const BS = 32; // SHA-256 digest size = block size
  const DELTA = 3; // dependencies mixed into each block per round
  if (
    !Number.isInteger(sCost) ||
    !Number.isInteger(tCost) ||
    sCost < 1 ||
    tCost < 0 ||
    sCost > 1 << 20 ||
    tCost > 1 << 16
  )
    throw new RangeError("balloon: bad cost parameters");
  const writeU64LE = (dst: Uint8Array, off: number, n: number) => {
    let lo = n >>> 0;
    let hi = Math.floor(n / 0x100000000) >>> 0;
    for (let i = 0; i < 4; i++, lo >>>= 8) dst[off + i] = lo & 0xff;
    for (let i = 4; i < 8; i++, hi >>>= 8) dst[off + i] = hi & 0xff;
  };
  // a block read as a little-endian integer, modulo `mod`
  const blockToInt = (mem: Uint8Array, off: number, mod: number) => {
    let r = 0;
    for (let i = BS - 1; i >= 0; i--) r = (r * 256 + mem[off + i]!) % mod;
    return r;
  };
  const sha256 = (input: Uint8Array, into: Uint8Array) => void Bun.SHA256.hash(input, into);

  // layout: [ buf: sCost blocks | block | ints (24) | msg: counter (8) + operands ]
  const BLOCK = sCost * BS;
  const INTS = BLOCK + BS;
  const MSG = INTS + 24;
  const msgLen = 8 + Math.max(password.length + salt.length, 2 * BS, salt.length + BS);
  const mem = new Uint8Array(MSG + msgLen);
  const blocks = Array.from({ length: sCost }, (_, i) => mem.subarray(i * BS, i * BS + BS));
  const block = mem.subarray(BLOCK, BLOCK + BS);
  const ints = mem.subarray(INTS, INTS + 24);
  const msgPrev = mem.subarray(MSG, MSG + 8 + BS);
  const msgPair = mem.subarray(MSG, MSG + 8 + 2 * BS);
  const msgSalt = mem.subarray(MSG, MSG + 8 + salt.length + BS);
  let cnt = 0;

  // expand: buf[0] = H(cnt, password, salt); buf[i] = H(cnt, buf[i-1])
  writeU64LE(mem, MSG, cnt++);
  mem.set(password, MSG + 8);
  mem.set(salt, MSG + 8 + password.length);
  sha256(mem.subarray(MSG, MSG + 8 + password.length + salt.length), blocks[0]!);
  for (let i = 1; i < sCost; i++) {
    writeU64LE(mem, MSG, cnt++);
    mem.copyWithin(MSG + 8, (i - 1) * BS, i * BS);
    sha256(msgPrev, blocks[i]!);
  }

  // mix: each block absorbs its predecessor and DELTA pseudo-randomly chosen blocks
  for (let t = 0; t < tCost; t++) {
    for (let j = 0; j < sCost; j++) {
      const prev = (j ? j - 1 : sCost - 1) * BS;
      writeU64LE(mem, MSG, cnt++);
      mem.copyWithin(MSG + 8, prev, prev + BS);
      mem.copyWithin(MSG + 8 + BS, j * BS, j * BS + BS);
      sha256(msgPair, blocks[j]!);
      for (let k = 0; k < DELTA; k++) {
        writeU64LE(ints, 0, t);
        writeU64LE(ints, 8, j);
        writeU64LE(ints, 16, k);
        sha256(ints, block);
        writeU64LE(mem, MSG, cnt++);
        mem.set(salt, MSG + 8);
        mem.copyWithin(MSG + 8 + salt.length, BLOCK, BLOCK + BS);
        sha256(msgSalt, block);
        const other = blockToInt(mem, BLOCK, sCost) * BS;
        writeU64LE(mem, MSG, cnt++);
        mem.copyWithin(MSG + 8, j * BS, j * BS + BS);
        mem.copyWithin(MSG + 8 + BS, other, other + BS);
        sha256(msgPair, blocks[j]!);
      }
    }
  }
  return mem.slice((sCost - 1) * BS, sCost * BS);
}
