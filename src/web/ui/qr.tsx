// A QR code drawn here (qrcode-generator, ~20 KB) so the TOTP secret never leaves the browser.
import qrcode from "qrcode-generator";

export function Qr({ text, label }: { text: string; label: string }) {
  const qr = qrcode(0, "M");
  qr.addData(text);
  qr.make();
  const n = qr.getModuleCount();
  let d = "";
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (qr.isDark(r, c)) d += `M${c + 4} ${r + 4}h1v1h-1z`;
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${n + 8} ${n + 8}`}
      width="200"
      height="200"
      role="img"
      aria-label={label}
      shape-rendering="crispEdges"
    >
      <rect width="100%" height="100%" fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}
