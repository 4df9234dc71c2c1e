// Unpredictable 16-bit numbers for upstream query IDs and 0x20 case bits (RFC 5452 §9.2): from the
// CSPRNG, drawn in blocks so a query costs an array read rather than a system call.
const block = new Uint16Array(1024);
let at = block.length;

export function randomU16(): number {
  if (at === block.length) {
    crypto.getRandomValues(block);
    at = 0;
  }
  return block[at++]!;
}
